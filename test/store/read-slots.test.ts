// The bound on the store's reads at once (issue 33): past `slots` reads a read waits in a queue of
// at most `queue`, past that it is refused at once, and a read (waiting included) past its deadline
// is given up — each as TerminalError 'store_busy', which the HTTP layer answers 503
// /errors/store-busy with Retry-After. Unit by unit, with reads the test holds and releases.
import t from 'tap';

import { toProblem } from '../../src/http/errors-map.js';
import { ReadSlots } from '../../src/store/read-slots.js';
import { TerminalError } from '../../src/terminal/errors.js';

/** A read that ends when the test says so, and says whether it was started. */
function heldRead(): { started: boolean; release: () => void; read: (signal: AbortSignal) => Promise<string> } {
  let release: () => void = () => undefined;
  const h = {
    started: false,
    release: () => release(),
    read: (signal: AbortSignal) => {
      h.started = true;
      return new Promise<string>((resolve, reject) => {
        release = () => resolve('done');
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    },
  };
  return h;
}

await t.test('at most `slots` at once; the next waits in the queue; past the queue: store_busy at once', async (t) => {
  const slots = new ReadSlots({ slots: 2, queue: 1, deadlineMs: 60_000 });
  const [a, b, c, d] = [heldRead(), heldRead(), heldRead(), heldRead()];
  const pa = slots.run('a', a.read);
  const pb = slots.run('b', b.read);
  const pc = slots.run('c', c.read);
  await new Promise((r) => setImmediate(r));
  t.ok(a.started && b.started, 'two run');
  t.notOk(c.started, 'the third waits');
  await t.rejects(slots.run('d', d.read), { name: 'TerminalError', kind: 'store_busy', message: /2 reads running and 1 waiting; d was not read/ }, 'the fourth: refused at once');
  t.notOk(d.started);
  a.release();
  t.equal(await pa, 'done');
  await new Promise((r) => setImmediate(r));
  t.ok(c.started, 'a slot passed on to the waiting read');
  b.release();
  c.release();
  t.same(await Promise.all([pb, pc]), ['done', 'done']);
  const e = heldRead();
  const pe = slots.run('e', e.read);
  await new Promise((r) => setImmediate(r));
  t.ok(e.started, 'all slots free again');
  e.release();
  await pe;
});

await t.test('a read past its deadline, or waiting past it: store_busy', async (t) => {
  // The deadline's timer does not keep a process alive (AbortSignal.timeout); the held reads here
  // are not I/O that would, so this interval does, until the reads have ended.
  const alive = setInterval(() => undefined, 1000);
  t.teardown(() => clearInterval(alive));
  const slots = new ReadSlots({ slots: 1, queue: 4, deadlineMs: 50 });
  const slow = heldRead();
  const waiting = heldRead();
  const first = slots.run('slow.parquet', slow.read);
  const second = slots.run('next.parquet', waiting.read);
  await t.rejects(first, { kind: 'store_busy', message: /reading slow\.parquet took longer than 50 ms/ });
  // The second either waited past its own deadline or got the slot and was aborted by it: store_busy either way.
  await t.rejects(second, { name: 'TerminalError', kind: 'store_busy' });
  const ok = heldRead();
  const third = slots.run('ok', ok.read);
  await new Promise((r) => setImmediate(r));
  t.ok(ok.started, 'the slot is free again');
  ok.release();
  t.equal(await third, 'done');
});

await t.test('an error of the read itself passes through, and frees its slot', async (t) => {
  const slots = new ReadSlots({ slots: 1, queue: 0, deadlineMs: 60_000 });
  await t.rejects(slots.run('x', () => Promise.reject(new Error('EIO'))), { message: 'EIO' });
  t.equal(await slots.run('y', () => Promise.resolve(7)), 7);
});

await t.test('store_busy and store_damaged as problems: 503, with Retry-After for busy', async (t) => {
  const busy = toProblem(new TerminalError('store_busy', -10005, 'busy'), undefined);
  t.equal(busy?.kind, 'storeBusy');
  t.equal(busy?.headers['retry-after'], '1');
  const damaged = toProblem(new TerminalError('store_damaged', -10002, 'damaged'), undefined);
  t.equal(damaged?.kind, 'storeDamaged');
});
