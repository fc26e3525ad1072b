// The account feed on a scripted account (test/helpers/scripted-account.ts): every change a trader
// makes (open, SL/TP modified, partial close, close, pending order placed, modified, cancelled,
// filled, new deals) comes out as the right event with the record after it; the account's money at
// most every accountMs; one poll for any number of listeners; a failed poll loses nothing.
import t from 'tap';

import { AccountFeed, dealsBetween, type AccountEvent } from '../../src/events/account-feed.js';
import { diffByTicket, positionDigest, dealsAfter } from '../../src/events/account-diff.js';
import { simTerminal } from '../helpers/server.js';
import { deal, position, ScriptedAccount } from '../helpers/scripted-account.js';

const sim = simTerminal();
t.teardown(() => sim.close());

const until = async (pred: () => boolean, what: string, ms = 5000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};
/** The last event of `kind` (account events come between the others whenever the money moves). */
function lastOf<K extends AccountEvent['kind']>(events: readonly AccountEvent[], kind: K): Extract<AccountEvent, { kind: K }> {
  return events.filter((e) => e.kind === kind).at(-1) as Extract<AccountEvent, { kind: K }>;
}
const brief = (e: AccountEvent): string => {
  switch (e.kind) {
    case 'deal':
      return `deal ${e.deal.ticket}`;
    case 'order':
      return `order ${e.change} ${e.order.ticket}`;
    case 'position':
      return `position ${e.change} ${e.position.ticket}`;
    case 'account':
      return `account ${e.account.balance}`;
  }
};

t.test('diffByTicket: opened, modified (on the digest only), removed', async (t) => {
  const before = new Map([1, 2, 3].map((k) => [k, position(k)]));
  const d = diffByTicket(before, [position(1), position(2, { sl: 1.0 }), position(4), position(3, { profit: 12, price_current: 1.2 })], positionDigest);
  t.same(d.opened.map((p) => p.ticket), [4]);
  t.same(d.modified.map((p) => p.ticket), [2], 'SL modified; a moving profit or price is no change');
  t.same(d.removed, []);
  const gone = diffByTicket(d.next, [position(2)], positionDigest);
  t.same(gone.removed.map((p) => p.ticket), [1, 3, 4]);
  t.same(dealsAfter([deal(7, 2000), deal(5, 1000), deal(6, 1000), deal(4, 999)], { time_msc: 1000, ticket: 5 }).map((x) => x.ticket), [6, 7], 'after (time, ticket), in history order');
});

t.test('every change of a scripted account becomes its event, in order, with the record after it', async (t) => {
  const acc = new ScriptedAccount(sim);
  acc.open(100, 1_700_000_000_000);
  const feed = new AccountFeed(acc.terminal, { tradeMs: 10, accountMs: 10 });
  t.teardown(() => feed.stop());
  const got: AccountEvent[] = [];
  const sub = await feed.subscribe((events) => got.push(...events));
  t.same(sub.state.positions.map((p) => p.ticket), [100], 'the state the changes follow');
  t.same(sub.state.lastDeal, { time_msc: 1_700_000_000_000, ticket: 100 }, 'the last deal of the history');
  t.equal(sub.state.account.balance, 10_000);
  const step = async (what: string, act: () => void, want: string[]): Promise<void> => {
    const from = got.length;
    act();
    await until(() => got.slice(from).filter((e) => e.kind !== 'account').length >= want.length, what);
    // One more poll: nothing else comes of it.
    const polls = acc.polls;
    await until(() => acc.polls >= polls + 2, 'two more polls');
    t.same(got.slice(from).filter((e) => e.kind !== 'account').map(brief), want, what);
  };
  await step('open', () => acc.open(101, 1_700_000_001_000), ['deal 101', 'position opened 101']);
  await step('modify SL/TP', () => acc.modifyPosition(101, { sl: 1.0, tp: 1.3 }), ['position modified 101']);
  t.match(lastOf(got, 'position').position, { sl: 1.0, tp: 1.3 }, 'the position after the change');
  await step('partial close', () => acc.close(101, 102, 1_700_000_002_000, 5, 0.4), ['deal 102', 'position modified 101']);
  t.equal(lastOf(got, 'position').position.volume, 0.6);
  await step('close', () => acc.close(101, 103, 1_700_000_003_000, 7), ['deal 103', 'position closed 101']);
  await step('pending placed', () => acc.place(200, { price_open: 1.05 }), ['order opened 200']);
  await step('pending modified', () => acc.modifyOrder(200, { price_open: 1.04, tp: 1.2 }), ['order modified 200']);
  await step('pending cancelled', () => acc.cancel(200), ['order cancelled 200']);
  t.equal(lastOf(got, 'order').order.state, 2, 'the order as the history has it (ORDER_STATE_CANCELED)');
  await step('pending placed', () => acc.place(201), ['order opened 201']);
  await step('pending filled', () => acc.fill(201, 104, 1_700_000_004_000), ['deal 104', 'order filled 201', 'position opened 201']);
  await step('two deals in one millisecond', () => {
    acc.open(105, 1_700_000_005_000);
    acc.open(106, 1_700_000_005_000);
  }, ['deal 105', 'deal 106', 'position opened 105', 'position opened 106']);
  t.ok(got.filter((e) => e.kind === 'account').length > 0, 'the balance moved: account events');
  t.equal(got.filter((e) => e.kind === 'account').at(-1)?.json.includes('"balance":10012'), true, 'the last account event has the balance after the closes');
  sub.close();
});

t.test('account figures at most every accountMs, and only when they change', async (t) => {
  const acc = new ScriptedAccount(sim);
  let clock = 1_000_000;
  const feed = new AccountFeed(acc.terminal, { tradeMs: 10, accountMs: 1_000, now: () => clock });
  t.teardown(() => feed.stop());
  const got: AccountEvent[] = [];
  const sub = await feed.subscribe((events) => got.push(...events));
  const reads = acc.calls.get('accountInfo') ?? 0;
  acc.equity = 10_050;
  let polls = acc.polls;
  await until(() => acc.polls >= polls + 3, 'three polls');
  t.equal(acc.calls.get('accountInfo'), reads, 'not read again before accountMs has passed');
  t.equal(got.length, 0);
  clock += 1_000;
  await until(() => got.length === 1, 'the account event');
  t.match(got[0], { kind: 'account', account: { equity: 10_050, balance: 10_000, time_msc: 1_001_000 } });
  clock += 1_000;
  polls = acc.polls;
  await until(() => acc.polls >= polls + 3, 'three polls');
  t.equal(got.length, 1, 'unchanged figures: no event');
  sub.close();
});

t.test('one poll for every listener; a failed poll loses no change; polling stops with the last listener', async (t) => {
  const acc = new ScriptedAccount(sim);
  const errors: unknown[] = [];
  let fail = false;
  const real = acc.terminal;
  const terminal = new Proxy(real, {
    get: (target, key) => (key === 'ordersGet' && fail ? () => Promise.reject(new Error('terminal away')) : (Reflect.get(target, key) as unknown)),
  });
  const feed = new AccountFeed(terminal, { tradeMs: 10, accountMs: 1_000, onError: (e) => errors.push(e) });
  t.teardown(() => feed.stop());
  const a: AccountEvent[] = [];
  const b: AccountEvent[] = [];
  const subs = await Promise.all([feed.subscribe((e) => a.push(...e)), feed.subscribe((e) => b.push(...e))]);
  const polls = acc.polls;
  const baselineDeals = acc.calls.get('historyDealsGet') ?? 0;
  await until(() => acc.polls >= polls + 5, 'five polls');
  const perPoll = ((acc.calls.get('historyDealsGet') ?? 0) - baselineDeals) / (acc.polls - polls);
  t.ok(perPoll <= 1.25, `one deal read per poll for two listeners (${perPoll})`);
  fail = true;
  acc.open(300, Date.now()); // (an account without deals: the feed counts from about now)
  await until(() => errors.length >= 2, 'two failed polls');
  t.same(a, [], 'nothing half-read is published');
  fail = false;
  await until(() => a.length >= 2, 'the change after the terminal is back');
  t.same(a.map(brief), ['deal 300', 'position opened 300']);
  t.same(b.map(brief), a.map(brief), 'both listeners get the same events');
  t.equal(a[0], b[0], '...the same objects, encoded once');
  for (const s of subs) s.close();
  const after = acc.polls;
  await new Promise((r) => setTimeout(r, 50));
  t.ok(acc.polls <= after + 1, 'no polling once nobody listens');
  t.equal(feed.listening, 0);
});

t.test('dealsBetween: every deal between two positions, once, in few reads even from long ago', async (t) => {
  const acc = new ScriptedAccount(sim);
  const day = 86_400_000;
  const t0 = Date.UTC(2024, 0, 1);
  for (let i = 0; i < 30; i++) acc.addDeal(deal(1000 + i, t0 + i * day + (i % 3) * 1000));
  acc.addDeal(deal(2000, t0 + 29 * day + 2000)); // another in the last deal's millisecond... and after it
  const all = (await acc.terminal.historyDealsGet({})).sort((a, b) => a.time_msc - b.time_msc || a.ticket - b.ticket);
  const read = async (from: { time_msc: number; ticket: number }, to: { time_msc: number; ticket: number }): Promise<number[]> => {
    const out: number[] = [];
    for await (const batch of dealsBetween(acc.terminal, from, to)) out.push(...batch.map((d) => d.ticket));
    return out;
  };
  const last = all.at(-1) as { time_msc: number; ticket: number };
  t.same(await read({ time_msc: all[4]?.time_msc as number, ticket: all[4]?.ticket as number }, last), all.slice(5).map((d) => d.ticket), 'after the 5th, up to the last');
  t.same(await read({ time_msc: all[4]?.time_msc as number, ticket: all[4]?.ticket as number }, { time_msc: all[9]?.time_msc as number, ticket: all[9]?.ticket as number }), all.slice(5, 10).map((d) => d.ticket), 'up to a position, inclusive');
  const calls = acc.calls.get('historyDealsGet') ?? 0;
  t.same(await read({ time_msc: 0, ticket: 0 }, last), all.map((d) => d.ticket), 'from 1970: all of them');
  const used = (acc.calls.get('historyDealsGet') ?? 0) - calls;
  t.ok(used < 40, `from 1970 in ${used} reads (empty windows grow)`);
});
