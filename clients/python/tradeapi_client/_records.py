"""The record types, shaped like the real package's: ``PyStructSequence`` tuples with attribute
access, indexing, tuple equality, ``_asdict()`` (a dict in field order), ``n_fields`` and
``__match_args__`` — and, like the real ones, no ``_fields``/``_replace``/``_make``.

``from_json`` builds one from a gateway JSON object, each field coerced to its kind (a JSON ``1050``
for a float field becomes ``1050.0``), with the record's time fields passed through ``clock``."""
import operator

from ._fields import FIELDS

__all__ = ["FIELDS", "RECORD_TYPES", "from_json", "TIME_FIELDS"]

_DOCS = {
    "AccountInfo": "This is a structure for storing account information",
    "TerminalInfo": "This is a structure for storing terminal information",
    "SymbolInfo": "This is a structure for storing symbol information",
    "Tick": "This is a structure for storing latest symbol prices",
    "BookInfo": "This is a structure for storing Depth of Market information",
    "TradeOrder": "Trade order structure",
    "TradePosition": "Trade position structure",
    "TradeDeal": "Trade deal structure",
    "TradeRequest": "Trade request structure",
    "OrderCheckResult": "order_check result structure",
    "OrderSendResult": "order_send result structure",
}

# Fields in seconds (s) and milliseconds (ms) of server time, per record (the gateway's
# src/terminal/with-server-time.ts converts exactly these when TRADEAPI_SERVER_TZ is set).
TIME_FIELDS = {
    "SymbolInfo": (("time", "start_time", "expiration_time"), ()),
    "Tick": (("time",), ("time_msc",)),
    "TradePosition": (("time", "time_update"), ("time_msc", "time_update_msc")),
    "TradeOrder": (("time_setup", "time_done", "time_expiration"), ("time_setup_msc", "time_done_msc")),
    "TradeDeal": (("time",), ("time_msc",)),
    "TradeRequest": (("expiration",), ()),
}


def _record_type(name, fields, doc):
    names = tuple(f for f, _ in fields)
    n = len(names)

    def __new__(cls, sequence, dict=None):
        values = tuple(sequence)
        if len(values) != n:
            raise TypeError("%s() takes a %d-sequence (%d-sequence given)" % (name, n, len(values)))
        return tuple.__new__(cls, values)

    def __repr__(self):
        return "%s(%s)" % (name, ", ".join("%s=%r" % pair for pair in zip(names, self)))

    def _asdict(self):
        """Convert named tuple object to dictionary"""
        return dict(zip(names, self))

    def __reduce__(self):
        return (type(self), (tuple(self),))

    namespace = {
        "__slots__": (), "__doc__": doc, "__new__": __new__, "__repr__": __repr__,
        "_asdict": _asdict, "__reduce__": __reduce__, "n_fields": n, "n_sequence_fields": n,
        "n_unnamed_fields": 0, "__match_args__": names, "__module__": "tradeapi_client.mt5",
    }
    for i, field in enumerate(names):
        namespace[field] = property(operator.itemgetter(i))
    return type(name, (tuple,), namespace)


RECORD_TYPES = dict((name, _record_type(name, fields, _DOCS[name])) for name, fields in FIELDS.items())


def _coerce(kind, value):
    if kind == "f":
        return float(value) if value is not None else 0.0
    if kind == "i":
        return int(value) if value is not None else 0
    if kind == "b":
        return bool(value)
    if kind == "s":
        return "" if value is None else str(value)
    raise AssertionError(kind)


def from_json(name, obj, clock=None):
    """The record ``name`` from a JSON object; ``clock(seconds_or_ms, unit_ms)`` converts time fields."""
    fields = FIELDS[name]
    values = []
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
