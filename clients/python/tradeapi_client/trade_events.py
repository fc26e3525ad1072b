"""The account's life as events (GET /events?kinds=deal,order,position,account): every new deal,
every pending order and position opened, modified, filled/closed or cancelled, and the account's
money when it changes — instead of polling ``positions_get``/``history_deals_get`` and diffing.

``stream_trade_events()`` yields typed named tuples; it reconnects by itself and resumes after the
last deal seen (the gateway sends every deal missed from the deal history, none twice, also across
a gateway restart). After every (re)connection the state kinds come first as snapshots (the full
current positions, orders, account), then changes: ``TradeState`` keeps a live copy from them::

    from tradeapi_client import stream_trade_events, TradeState

    state = TradeState()
    for event in stream_trade_events():
        state.apply(event)
        print(event, len(state.positions), state.account)
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Tuple, Union, cast

from ._events import _Stream
from ._records import from_json
from ._recordtypes import TradeDeal, TradeOrder, TradePosition

KINDS = ("deal", "order", "position", "account")


class AccountFigures(NamedTuple):
    """The account's money as account_info gives it; ``time_msc``: when the gateway read it (UTC ms)."""
    balance: float
    credit: float
    profit: float
    equity: float
    margin: float
    margin_free: float
    margin_level: float
    time_msc: int


class DealEvent(NamedTuple):
    """A new deal, as history_deals_get records it; ``event_id`` names it (pass as ``since=`` to resume after it)."""
    deal: TradeDeal
    event_id: str


class OrderEvent(NamedTuple):
    """A pending order ``opened``, ``modified``, ``filled`` or ``cancelled``, as it is after the change."""
    change: str
    order: TradeOrder


class PositionEvent(NamedTuple):
    """A position ``opened``, ``modified`` (SL/TP, volume, price) or ``closed`` (then: as last seen)."""
    change: str
    position: TradePosition


class AccountEvent(NamedTuple):
    """The account's money changed (at most every TRADEAPI_EVENTS_ACCOUNT_MS)."""
    account: AccountFigures


class OrdersSnapshot(NamedTuple):
    """Every pending order now (first, and after every reconnect)."""
    orders: Tuple[TradeOrder, ...]


class PositionsSnapshot(NamedTuple):
    """Every open position now (first, and after every reconnect)."""
    positions: Tuple[TradePosition, ...]


class AccountSnapshot(NamedTuple):
    """The account's money now (first, and after every reconnect)."""
    account: AccountFigures


TradeEvent = Union[DealEvent, OrderEvent, PositionEvent, AccountEvent, OrdersSnapshot, PositionsSnapshot, AccountSnapshot]


def _figures(data: Dict[str, Any]) -> AccountFigures:
    def f(name: str) -> float:
        return float(data.get(name) or 0.0)
    return AccountFigures(f("balance"), f("credit"), f("profit"), f("equity"), f("margin"), f("margin_free"), f("margin_level"),
                          int(data.get("time_msc") or 0))


class TradeEventStream(_Stream[TradeEvent]):
    """Yields the account's events (see the module's docstring); ``.gaps`` lists what a slow reader missed."""

    gaps: List[Dict[str, Any]]

    def __init__(self, kinds: Union[str, Iterable[str]] = KINDS, **kw: Any) -> None:
        names = [k for k in kinds.split(",") if k] if isinstance(kinds, str) else list(kinds)
        unknown = [k for k in names if k not in KINDS]
        if unknown or not names:
            raise ValueError("kinds must be some of %s; got %r" % (", ".join(KINDS), unknown or names))
        _Stream.__init__(self, (), ",".join(names), **kw)
        self.gaps = []

    def __enter__(self) -> TradeEventStream:
        return self

    def __iter__(self) -> TradeEventStream:
        return self

    def __next__(self) -> TradeEvent:
        out = self.clock.out
        while True:
            name, data = self._next_event()
            if name == "deal":
                return DealEvent(cast(TradeDeal, from_json("TradeDeal", data, out)), self.last_event_id or "")
            if name == "order":
                return OrderEvent(str(data["change"]), cast(TradeOrder, from_json("TradeOrder", data["order"], out)))
            if name == "position":
                return PositionEvent(str(data["change"]), cast(TradePosition, from_json("TradePosition", data["position"], out)))
            if name == "account":
                return AccountEvent(_figures(data))
            if name == "snapshot":
                kind = data.get("kind")
                if kind == "order":
                    return OrdersSnapshot(tuple(cast(TradeOrder, from_json("TradeOrder", o, out)) for o in data["orders"]))
                if kind == "position":
                    return PositionsSnapshot(tuple(cast(TradePosition, from_json("TradePosition", p, out)) for p in data["positions"]))
                if kind == "account":
                    return AccountSnapshot(_figures(data["account"]))
            elif name == "gap":
                self.gaps.append(data)


def stream_trade_events(kinds: Union[str, Iterable[str]] = KINDS, since: Optional[str] = None, url: Optional[str] = None,
                        key: Optional[str] = None, reconnect: bool = True) -> TradeEventStream:
    """The account's events: ``for event in stream_trade_events(kinds="deal,position"): ...``.

    ``kinds``: some of deal, order, position, account (default: all). ``since``: a ``DealEvent``'s
    ``event_id`` (or the stream's ``.last_event_id``) from an earlier run: the deals after it come
    first, from history. Uses the connection of ``mt5.initialize()`` (its URL, key and clock)
    unless ``url`` is given; ``close()`` or ``with`` ends it."""
    return TradeEventStream(kinds, url=url, key=key, last_event_id=since, reconnect=reconnect)


class TradeState(object):
    """The account as snapshot + changes: ``positions`` and ``orders`` by ticket, ``account``, and the
    ``deals`` seen (the last ``keep_deals``). ``apply()`` each event of a ``stream_trade_events``."""

    def __init__(self, keep_deals: int = 1000) -> None:
        self.positions: Dict[int, TradePosition] = {}
        self.orders: Dict[int, TradeOrder] = {}
        self.account: Optional[AccountFigures] = None
        self.deals: List[TradeDeal] = []
        self.keep_deals = keep_deals

    def apply(self, event: TradeEvent) -> None:
        if isinstance(event, PositionsSnapshot):
            self.positions = dict((p.ticket, p) for p in event.positions)
        elif isinstance(event, OrdersSnapshot):
            self.orders = dict((o.ticket, o) for o in event.orders)
        elif isinstance(event, (AccountSnapshot, AccountEvent)):
            self.account = event.account
        elif isinstance(event, PositionEvent):
            if event.change == "closed":
                self.positions.pop(event.position.ticket, None)
            else:
                self.positions[event.position.ticket] = event.position
        elif isinstance(event, OrderEvent):
            if event.change in ("filled", "cancelled"):
                self.orders.pop(event.order.ticket, None)
            else:
                self.orders[event.order.ticket] = event.order
        elif isinstance(event, DealEvent):
            self.deals.append(event.deal)
            del self.deals[:-self.keep_deals]


__all__ = ["stream_trade_events", "TradeEventStream", "TradeState", "TradeEvent", "AccountFigures", "DealEvent",
           "OrderEvent", "PositionEvent", "AccountEvent", "OrdersSnapshot", "PositionsSnapshot", "AccountSnapshot"]
