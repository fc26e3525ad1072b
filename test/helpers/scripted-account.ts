// An account whose positions, orders, deals and money a test scripts: the real simulated terminal
// for everything else (faulty-terminal.ts), with positions_get, orders_get, history_deals_get,
// history_orders_get and account_info answered from this state. Each mutation is what MetaTrader
// does to the account (a market deal opens a position, a pending order is placed, modified, filled
// or cancelled, a position's SL/TP are modified, it is partly or wholly closed by a deal).
import type { AccountInfo, TradeDeal, TradeOrder, TradePosition } from '../../src/terminal/records.js';
import type { HistoryFilter, Terminal } from '../../src/terminal/terminal.js';
import { constants } from '../../src/terminal/constants.js';
import { faultyTerminal } from './faulty-terminal.js';

const C = (family: Parameters<typeof constants>[0], name: string): number => constants(family).get(name) as number;

export function position(ticket: number, over: Partial<TradePosition> = {}): TradePosition {
  return {
    ticket, time: 1_700_000_000, time_msc: 1_700_000_000_000, time_update: 1_700_000_000, time_update_msc: 1_700_000_000_000,
    type: C('POSITION_TYPE', 'POSITION_TYPE_BUY'), magic: 0, identifier: ticket, reason: 0, volume: 1, price_open: 1.1, sl: 0, tp: 0,
    price_current: 1.1, swap: 0, profit: 0, symbol: 'EURUSD', comment: '', external_id: '', ...over,
  };
}

export function order(ticket: number, over: Partial<TradeOrder> = {}): TradeOrder {
  return {
    ticket, time_setup: 1_700_000_000, time_setup_msc: 1_700_000_000_000, time_done: 0, time_done_msc: 0, time_expiration: 0,
    type: C('ORDER_TYPE', 'ORDER_TYPE_BUY_LIMIT'), type_time: 0, type_filling: 0, state: C('ORDER_STATE', 'ORDER_STATE_PLACED'), magic: 0,
    position_id: 0, position_by_id: 0, reason: 0, volume_initial: 1, volume_current: 1, price_open: 1.05, sl: 0, tp: 0,
    price_current: 1.1, price_stoplimit: 0, symbol: 'EURUSD', comment: '', external_id: '', ...over,
  };
}

export function deal(ticket: number, timeMsc: number, over: Partial<TradeDeal> = {}): TradeDeal {
  return {
    ticket, order: ticket, time: Math.floor(timeMsc / 1000), time_msc: timeMsc, type: 0, entry: 0, magic: 0, position_id: ticket, reason: 0,
    volume: 1, price: 1.1, commission: 0, swap: 0, profit: 0, fee: 0, symbol: 'EURUSD', comment: '', external_id: '', ...over,
  };
}

export class ScriptedAccount {
  readonly positions = new Map<number, TradePosition>();
  readonly orders = new Map<number, TradeOrder>();
  readonly deals: TradeDeal[] = [];
  readonly historyOrders = new Map<number, TradeOrder>();
  balance = 10_000;
  equity = 10_000;
  margin = 0;
  /** Terminal calls by operation (tests wait for polls, and check that clients share them). */
  readonly calls = new Map<string, number>();
  readonly terminal: Terminal;

  constructor(real: Terminal) {
    const count = (name: string): void => void this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
    this.terminal = faultyTerminal(real, {
      positionsGet: () => (count('positionsGet'), Promise.resolve([...this.positions.values()].map((p) => ({ ...p })))),
      ordersGet: () => (count('ordersGet'), Promise.resolve([...this.orders.values()].map((o) => ({ ...o })))),
      historyDealsGet: (f: HistoryFilter) => {
        count('historyDealsGet');
        return Promise.resolve(this.deals.filter((d) => (f.date_from === undefined || d.time >= f.date_from) && (f.date_to === undefined || d.time <= f.date_to)).map((d) => ({ ...d })));
      },
      historyOrdersGet: (f: HistoryFilter) => (count('historyOrdersGet'), Promise.resolve([...this.historyOrders.values()].filter((o) => f.ticket === undefined || o.ticket === f.ticket))),
      accountInfo: async () => {
        count('accountInfo');
        const info: AccountInfo = await real.accountInfo();
        return { ...info, balance: this.balance, equity: this.equity, margin: this.margin, margin_free: this.equity - this.margin, profit: this.equity - this.balance, margin_level: this.margin > 0 ? (this.equity / this.margin) * 100 : 0 };
      },
    });
  }

  /** Polls of positions_get so far. */
  get polls(): number {
    return this.calls.get('positionsGet') ?? 0;
  }

  addDeal(d: TradeDeal): TradeDeal {
    this.deals.push(d);
    this.balance += d.profit + d.commission + d.swap + d.fee;
    return d;
  }

  /** A market buy: its deal and the position it opens. */
  open(ticket: number, timeMsc: number, over: Partial<TradePosition> = {}): void {
    this.addDeal(deal(ticket, timeMsc, { entry: C('DEAL_ENTRY', 'DEAL_ENTRY_IN'), position_id: ticket, volume: over.volume ?? 1 }));
    this.positions.set(ticket, position(ticket, { time_msc: timeMsc, time: Math.floor(timeMsc / 1000), ...over }));
  }

  modifyPosition(ticket: number, over: Partial<TradePosition>): void {
    const p = this.positions.get(ticket) as TradePosition;
    this.positions.set(ticket, { ...p, ...over });
  }

  /** Closes `volume` of a position (all of it by default) by a deal `dealTicket` with `profit`. */
  close(ticket: number, dealTicket: number, timeMsc: number, profit: number, volume?: number): void {
    const p = this.positions.get(ticket) as TradePosition;
    const v = volume ?? p.volume;
    this.addDeal(deal(dealTicket, timeMsc, { entry: C('DEAL_ENTRY', 'DEAL_ENTRY_OUT'), type: 1, position_id: ticket, volume: v, profit }));
    if (v >= p.volume) this.positions.delete(ticket);
    else this.positions.set(ticket, { ...p, volume: Math.round((p.volume - v) * 100) / 100 });
  }

  place(ticket: number, over: Partial<TradeOrder> = {}): void {
    this.orders.set(ticket, order(ticket, over));
  }

  modifyOrder(ticket: number, over: Partial<TradeOrder>): void {
    const o = this.orders.get(ticket) as TradeOrder;
    this.orders.set(ticket, { ...o, ...over });
  }

  cancel(ticket: number): void {
    const o = this.orders.get(ticket) as TradeOrder;
    this.orders.delete(ticket);
    this.historyOrders.set(ticket, { ...o, state: C('ORDER_STATE', 'ORDER_STATE_CANCELED') });
  }

  /** A pending order filled: its deal, the position it opens (ticket = the order's), the order into history. */
  fill(ticket: number, dealTicket: number, timeMsc: number): void {
    const o = this.orders.get(ticket) as TradeOrder;
    this.orders.delete(ticket);
    this.historyOrders.set(ticket, { ...o, state: C('ORDER_STATE', 'ORDER_STATE_FILLED'), volume_current: 0 });
    this.addDeal(deal(dealTicket, timeMsc, { order: ticket, entry: C('DEAL_ENTRY', 'DEAL_ENTRY_IN'), position_id: ticket, price: o.price_open }));
    this.positions.set(ticket, position(ticket, { time_msc: timeMsc, price_open: o.price_open }));
  }
}
