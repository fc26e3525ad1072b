"""The record types by name (declared in ``_recordtypes``), and ``from_json``: one record from a
gateway JSON object, each field coerced to its kind (a JSON ``1050`` for a float field becomes
``1050.0``), with the record's time fields passed through ``clock``."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Type

from ._fields import FIELDS
from ._recordtypes import (AccountInfo, BookInfo, OrderCheckResult, OrderSendResult, SymbolInfo, TerminalInfo, Tick,
                           TradeDeal, TradeOrder, TradePosition, TradeRequest, _Record)

__all__ = ["FIELDS", "RECORD_TYPES", "from_json", "TIME_FIELDS"]

# Fields in seconds (s) and milliseconds (ms) of server time, per record (the gateway's
# src/terminal/with-server-time.ts converts exactly these when TRADEAPI_SERVER_TZ is set).
TIME_FIELDS: Dict[str, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {
    "SymbolInfo": (("time", "start_time", "expiration_time"), ()),
    "Tick": (("time",), ("time_msc",)),
    "TradePosition": (("time", "time_update"), ("time_msc", "time_update_msc")),
    "TradeOrder": (("time_setup", "time_done", "time_expiration"), ("time_setup_msc", "time_done_msc")),
    "TradeDeal": (("time",), ("time_msc",)),
    "TradeRequest": (("expiration",), ()),
}


RECORD_TYPES: Dict[str, Type[_Record]] = {
    "AccountInfo": AccountInfo, "TerminalInfo": TerminalInfo, "SymbolInfo": SymbolInfo, "Tick": Tick,
    "BookInfo": BookInfo, "TradeOrder": TradeOrder, "TradePosition": TradePosition, "TradeDeal": TradeDeal,
    "TradeRequest": TradeRequest, "OrderCheckResult": OrderCheckResult, "OrderSendResult": OrderSendResult,
}
assert set(RECORD_TYPES) == set(FIELDS)


def _coerce(kind: str, value: Any) -> Any:
    if kind == "f":
        return float(value) if value is not None else 0.0
    if kind == "i":
        return int(value) if value is not None else 0
    if kind == "b":
        return bool(value)
    if kind == "s":
        return "" if value is None else str(value)
    raise AssertionError(kind)


def from_json(name: str, obj: Mapping[str, Any], clock: Optional[Callable[[int, int], int]] = None) -> _Record:
    """The record ``name`` from a JSON object; ``clock(seconds_or_ms, unit_ms)`` converts time fields."""
    fields = FIELDS[name]
    values: List[Any] = []
    for field, kind in fields:
        value = obj.get(field)
        if kind == "r":
            values.append(from_json("TradeRequest", value or {}, clock))
        else:
            values.append(_coerce(kind, value))
    if clock is not None and name in TIME_FIELDS:
        seconds, millis = TIME_FIELDS[name]
        index = dict((f, i) for i, (f, _) in enumerate(fields))
        for f in seconds:
            values[index[f]] = clock(values[index[f]], 1000)
        for f in millis:
            values[index[f]] = clock(values[index[f]], 1)
    return RECORD_TYPES[name](values)
