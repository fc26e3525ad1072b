// The shaped link's pure pieces (bench/delay-proxy.ts, bench/netlink.ts): the delaying proxy
// forwards bytes in order, holds each for at least the set time, passes an end on only after what
// came before it, and keeps at most its bound waiting; tbf's parameters and --links parse. No speed
// is asserted: a loaded machine only makes delays longer, and every wait is for the thing awaited.
import net from 'node:net';

import t from 'tap';

import { pingPong, startDelayProxy, startLinkPeer, timeTransfer } from '../../bench/delay-proxy.js';
import { linkName, parseLinks, tbfParams } from '../../bench/netlink.js';

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

t.test('bytes arrive in order, each held at least the delay', async (t) => {
  const delayMs = 25;
  const arrivals: { at: number; data: Buffer }[] = [];
  let gotAll!: () => void;
  const done = new Promise<void>((r) => (gotAll = r));
  const want = 20 * 3;
  let received = 0;
  const target = net.createServer((s) =>
    s.on('data', (d: Buffer) => {
      arrivals.push({ at: nowMs(), data: d });
      received += d.length;
      if (received >= want) gotAll();
    }),
  );
  const port = await listen(target);
  const proxy = await startDelayProxy({ targetHost: '127.0.0.1', targetPort: port, delayMs });
  const client = net.connect({ host: '127.0.0.1', port: proxy.port, noDelay: true });
  await new Promise((r) => client.once('connect', r));
  const sent: number[] = [];
  for (let i = 0; i < 20; i++) {
    sent.push(nowMs());
    client.write(Buffer.from(String(i).padStart(3, '0')));
    // A gap between writes so that each is its own chunk (and its own delay).
    await new Promise((r) => setTimeout(r, 3));
  }
  await done;
  const all = Buffer.concat(arrivals.map((a) => a.data)).toString();
  t.equal(all, Array.from({ length: 20 }, (_, i) => String(i).padStart(3, '0')).join(''), 'in order, nothing lost');
  // The k-th three bytes arrived no sooner than the delay after they were written.
  let offset = 0;
  const held: number[] = [];
  for (const a of arrivals) {
    for (let k = offset; k < offset + a.data.length; k += 3) held.push(a.at - sent[k / 3]!);
    offset += a.data.length;
  }
  t.ok(
    held.every((h) => h >= delayMs - 0.01),
    `every byte held >= ${delayMs} ms (min ${Math.min(...held).toFixed(2)}, median ${held.sort((a, b) => a - b)[10]!.toFixed(2)})`,
  );
  t.same(proxy.bytes(), { up: want, down: 0 });
  client.destroy();
  await proxy.close();
  await new Promise((r) => target.close(r));
});

t.test('an end is passed on after the bytes before it; ping-pong through the proxy', async (t) => {
  const peer = await startLinkPeer('127.0.0.1', 0);
  const peerPort = (peer.address() as net.AddressInfo).port;
  const proxy = await startDelayProxy({ targetHost: '127.0.0.1', targetPort: peerPort, delayMs: 5 });
  const bytes = 3_000_000;
  await timeTransfer('127.0.0.1', proxy.port, bytes); // rejects unless exactly `bytes` arrive before the end
  t.ok(proxy.bytes().down >= bytes, 'all forwarded');
  const rtts = await pingPong('127.0.0.1', proxy.port, 5);
  t.equal(rtts.length, 5);
  t.ok(
    rtts.every((r) => r >= 10 - 0.01),
    `each round trip holds two delays (min ${Math.min(...rtts).toFixed(2)} ms)`,
  );
  await proxy.close();
  await new Promise((r) => peer.close(r));
});

t.test('at most the bound waits when the far end does not read', async (t) => {
  const max = 256 * 1024;
  const total = 8 * 1024 * 1024;
  let far!: net.Socket;
  let got = 0;
  let gotAll!: () => void;
  const done = new Promise<void>((r) => (gotAll = r));
  const chunks: Buffer[] = [];
  const target = net.createServer((s) => {
    far = s;
    s.pause();
    s.on('data', (d: Buffer) => {
      chunks.push(d);
      got += d.length;
      if (got >= total) gotAll();
    });
  });
  const port = await listen(target);
  const proxy = await startDelayProxy({ targetHost: '127.0.0.1', targetPort: port, delayMs: 1, maxBufferedBytes: max });
  const client = net.connect({ host: '127.0.0.1', port: proxy.port });
  const body = Buffer.alloc(total);
  for (let i = 0; i < total; i += 4) body.writeUInt32LE(i / 4, i);
  client.write(body);
  // Wait until the proxy's queue has reached its bound (the far end reads nothing yet), then read.
  while (proxy.peakQueued() < max) await new Promise((r) => setTimeout(r, 5));
  far.resume();
  await done;
  t.ok(Buffer.concat(chunks).equals(body), 'every byte, in order');
  t.ok(proxy.peakQueued() <= max + 2 * 64 * 1024, `waiting peaked at ${proxy.peakQueued()} bytes (bound ${max} + what was read as it paused: a 64 KiB read or two)`);
  client.destroy();
  await proxy.close();
  await new Promise((r) => target.close(r));
});

t.test('tbf parameters and --links', async (t) => {
  const gig = tbfParams({ mbit: 1000, rttMs: 0.5 });
  t.equal(gig.rate, '1000mbit');
  t.equal(gig.burstBytes, 250_000, '2 ms at 125 MB/s');
  t.equal(gig.latencyMs, 5, 'queue at least 5 ms');
  const slow = tbfParams({ mbit: 100, rttMs: 20 });
  t.equal(slow.burstBytes, 128 * 1024, 'never below one 64 KiB GSO segment, with room');
  t.equal(slow.latencyMs, 20, 'queue of one RTT at the rate');
  t.same(parseLinks('1000:0.5,100:20'), [
    { mbit: 1000, rttMs: 0.5 },
    { mbit: 100, rttMs: 20 },
  ]);
  t.throws(() => parseLinks('fast'), /--links/);
  t.equal(linkName({ mbit: 1000, rttMs: 0.5 }), '1 Gbit/s, 0.5 ms RTT');
  t.equal(linkName({ mbit: 100, rttMs: 20 }), '100 Mbit/s, 20 ms RTT');
});
