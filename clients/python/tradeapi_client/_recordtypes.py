"""The record types, as typed classes: what each call returns, field by field.

Shaped like the real package's ``PyStructSequence`` tuples: attribute access (read-only), indexing,
tuple equality, ``_asdict()``, ``n_fields``, ``__match_args__`` — and, like the real ones, no
``_fields``/``_replace``/``_make``. Each class's annotations are its fields in order; ``_Record``
turns them into properties and checks them against ``_fields.FIELDS`` (names, order, kinds)."""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, ClassVar, Dict, Iterable, Optional, Tuple, Type, TypeVar

from ._fields import FIELDS

_R = TypeVar("_R", bound="_Record")
_KINDS = {"int": "i", "float": "f", "bool": "b", "str": "s", "TradeRequest": "r"}

if TYPE_CHECKING:
    _Base = Tuple[Any, ...]
else:
    _Base = tuple


class _Record(_Base):
    """A record: a tuple with named, typed, read-only fields."""
    __slots__ = ()
    n_fields: ClassVar[int]
    n_sequence_fields: ClassVar[int]
    n_unnamed_fields: ClassVar[int] = 0
    __match_args__: ClassVar[Tuple[str, ...]] = ()

    def __new__(cls: Type[_R], sequence: Iterable[Any], dict: Optional[Dict[str, Any]] = None) -> _R:
        values = tuple(sequence)
        if len(values) != cls.n_fields:
            raise TypeError("%s() takes a %d-sequence (%d-sequence given)" % (cls.__name__, cls.n_fields, len(values)))
        return tuple.__new__(cls, values)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = tuple((f, _KINDS[str(t)]) for f, t in cls.__dict__.get("__annotations__", {}).items())
        if fields != FIELDS[cls.__name__]:
            raise AssertionError("%s: its annotations are not _fields.FIELDS" % cls.__name__)
        names = tuple(f for f, _ in fields)
        for i, name in enumerate(names):
            setattr(cls, name, property(operator.itemgetter(i)))
        cls.n_fields = cls.n_sequence_fields = len(names)
        setattr(cls, "__match_args__", names)
        cls.__module__ = "tradeapi_client.mt5"

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%r" % pair for pair in zip(self.__match_args__, self)))

    def _asdict(self) -> Dict[str, Any]:
        """Convert named tuple object to dictionary"""
        return dict(zip(self.__match_args__, self))

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (tuple(self),))


class AccountInfo(_Record):
    """The gateway's account (account_info())."""
    __slots__ = ()
    login: int
    trade_mode: int
    leverage: int
    limit_orders: int
    margin_so_mode: int
    trade_allowed: bool
    trade_expert: bool
    margin_mode: int
    currency_digits: int
    fifo_close: bool
    balance: float
    credit: float
    profit: float
    equity: float
    margin: float
    margin_free: float
    margin_level: float
    margin_so_call: float
    margin_so_so: float
    margin_initial: float
    margin_maintenance: float
    assets: float
    liabilities: float
    commission_blocked: float
    name: str
    server: str
    currency: str
    company: str


class TerminalInfo(_Record):
    """The terminal behind the gateway (terminal_info())."""
    __slots__ = ()
    community_account: bool
    community_connection: bool
    connected: bool
    dlls_allowed: bool
    trade_allowed: bool
    tradeapi_disabled: bool
    email_enabled: bool
    ftp_enabled: bool
    notifications_enabled: bool
    mqid: bool
    build: int
    maxbars: int
    codepage: int
    ping_last: int
    community_balance: float
    retransmission: float
    company: str
    name: str
    language: str
    path: str
    data_path: str
    commondata_path: str


class SymbolInfo(_Record):
    """One symbol's properties (symbol_info(), symbols_get())."""
    __slots__ = ()
    custom: bool
    chart_mode: int
    select: bool
    visible: bool
    session_deals: int
    session_buy_orders: int
    session_sell_orders: int
    volume: int
    volumehigh: int
    volumelow: int
    time: int
    digits: int
    spread: int
    spread_float: bool
    ticks_bookdepth: int
    trade_calc_mode: int
    trade_mode: int
    start_time: int
    expiration_time: int
    trade_stops_level: int
    trade_freeze_level: int
    trade_exemode: int
    swap_mode: int
    swap_rollover3days: int
    margin_hedged_use_leg: bool
    expiration_mode: int
    filling_mode: int
    order_mode: int
    order_gtc_mode: int
    option_mode: int
    option_right: int
    bid: float
    bidhigh: float
    bidlow: float
    ask: float
    askhigh: float
    asklow: float
    last: float
    lasthigh: float
    lastlow: float
    volume_real: float
    volumehigh_real: float
    volumelow_real: float
    option_strike: float
    point: float
    trade_tick_value: float
    trade_tick_value_profit: float
    trade_tick_value_loss: float
    trade_tick_size: float
    trade_contract_size: float
    trade_accrued_interest: float
    trade_face_value: float
    trade_liquidity_rate: float
    volume_min: float
    volume_max: float
    volume_step: float
    volume_limit: float
    swap_long: float
    swap_short: float
    margin_initial: float
    margin_maintenance: float
    session_volume: float
    session_turnover: float
    session_interest: float
    session_buy_orders_volume: float
    session_sell_orders_volume: float
    session_open: float
    session_close: float
    session_aw: float
    session_price_settlement: float
    session_price_limit_min: float
    session_price_limit_max: float
    margin_hedged: float
    price_change: float
    price_volatility: float
    price_theoretical: float
    price_greeks_delta: float
    price_greeks_theta: float
    price_greeks_gamma: float
    price_greeks_vega: float
    price_greeks_rho: float
    price_greeks_omega: float
    price_sensitivity: float
    basis: str
    category: str
    currency_base: str
    currency_profit: str
    currency_margin: str
    bank: str
    description: str
    exchange: str
    formula: str
    isin: str
    name: str
    page: str
    path: str


class Tick(_Record):
    """A symbol's latest prices (symbol_info_tick(); each event of tradeapi_client.stream_ticks)."""
    __slots__ = ()
    time: int
    bid: float
    ask: float
    last: float
    volume: int
    time_msc: int
    flags: int
    volume_real: float


class BookInfo(_Record):
    """One level of a symbol's depth of market (market_book_get(), tradeapi_client.stream_book)."""
    __slots__ = ()
    type: int
    price: float
    volume: int
    volume_dbl: float


class TradeOrder(_Record):
    """A pending order (orders_get()) or one from history (history_orders_get())."""
    __slots__ = ()
    ticket: int
    time_setup: int
    time_setup_msc: int
    time_done: int
    time_done_msc: int
    time_expiration: int
    type: int
    type_time: int
    type_filling: int
    state: int
    magic: int
    position_id: int
    position_by_id: int
    reason: int
    volume_initial: float
    volume_current: float
    price_open: float
    sl: float
    tp: float
    price_current: float
    price_stoplimit: float
    symbol: str
    comment: str
    external_id: str


class TradePosition(_Record):
    """An open position (positions_get())."""
    __slots__ = ()
    ticket: int
    time: int
    time_msc: int
    time_update: int
    time_update_msc: int
    type: int
    magic: int
    identifier: int
    reason: int
    volume: float
    price_open: float
    sl: float
    tp: float
    price_current: float
    swap: float
    profit: float
    symbol: str
    comment: str
    external_id: str


class TradeDeal(_Record):
    """A deal from history (history_deals_get())."""
    __slots__ = ()
    ticket: int
    order: int
    time: int
    time_msc: int
    type: int
    entry: int
    magic: int
    position_id: int
    reason: int
    volume: float
    price: float
    commission: float
    swap: float
    profit: float
    fee: float
    symbol: str
    comment: str
    external_id: str


class TradeRequest(_Record):
    """The request an OrderCheckResult or OrderSendResult answers."""
    __slots__ = ()
    action: int
    magic: int
    order: int
    symbol: str
    volume: float
    price: float
    stoplimit: float
    sl: float
    tp: float
    deviation: int
    type: int
    type_filling: int
    type_time: int
    expiration: int
    comment: str
    position: int
    position_by: int


class OrderCheckResult(_Record):
    """order_check()'s answer: margin and funds after the request, as the terminal computed them."""
    __slots__ = ()
    retcode: int
    balance: float
    equity: float
    profit: float
    margin: float
    margin_free: float
    margin_level: float
    comment: str
    request: TradeRequest


class OrderSendResult(_Record):
    """The real package's order_send() answer; never returned here (the gateway sends no orders)."""
    __slots__ = ()
    retcode: int
    deal: int
    order: int
    volume: float
    price: float
    bid: float
    ask: float
    comment: str
    request_id: int
    retcode_external: int
    request: TradeRequest
