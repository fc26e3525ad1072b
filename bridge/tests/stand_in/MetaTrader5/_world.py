"""World mode of the stand-in: every data function serves a world exported from another terminal
(test/helpers/sim-world.ts writes one from the simulated terminal) instead of the stand-in's own
generated market, so that the same request answered by that terminal and by a bridge over this
package can be compared field by field (test/bridge/contract.test.ts).

Turned on by ``_configure(world='/dir')`` or env ``MT5_STUB_WORLD=/dir``. The directory holds
``world.json`` (records as the package's named tuples hold them, plus the field list and storage kind
of each record, used to type every value exactly as the package would: a float field is a float
even when JSON wrote ``10000``) and ``.npy`` files of ticks and bars with the package's dtypes.

What is served, and from what:

* records: ``version``, ``terminal_info``, ``account_info``, ``symbols_total``/``symbols_get``
  (group filter)/``symbol_info``, ``symbol_info_tick``, ``market_book_get`` (one exported book per
  symbol), ``positions_*``/``orders_*``/``history_*`` with the package's filters;
* series, sliced from the exported arrays with the exporting terminal's rules (that terminal's
  clock is frozen at ``now_ms``): ``copy_ticks_from``/``copy_ticks_range`` from one tick window per
  symbol, ``copy_rates_from``/``copy_rates_from_pos``/``copy_rates_range`` from one bar window per
  (symbol, timeframe). A request that reaches before a window fails loudly,
  ``(-1, 'stand-in world: ...')``, rather than answering with rows silently missing; so does a
  timeframe that was not exported;
* ``order_calc_margin``, ``order_calc_profit``, ``order_check``: only the exact requests whose
  answers were exported; any other fails with ``(-1, 'stand-in world: no exported answer ...')``.

State keeps the package's rules: Market Watch (initially the exported ``select`` flags) changes with
``symbol_select``; ``symbol_info_tick`` and ``market_book_add`` need the symbol selected; depth
subscriptions are the package's own (``_S.books``, cleared with the connection); failures are
``None``/``False`` plus ``last_error()``, through the package's dispatch (``_api``), which also keeps
the connection checks and the ``_fail_next``/``_lose_terminal`` hooks working in world mode.
"""
import json
import os

import numpy as np

from . import _constants as C
from . import (_RECORD_FIELDS, _S, RATE_DTYPE, TICK_DTYPE, AccountInfo, BookInfo, OrderCheckResult, OrderSendResult,
               SymbolInfo, TerminalInfo, Tick, TradeDeal, TradeOrder, TradePosition, TradeRequest, _Fail, _filtered,
               _float, _group_match, _history, _int, _keywords, _positional, _request, _seconds, _str, _tick_filter)

FORMAT = 1

# The records world.json holds, by the package's type names (the same names as the gateway's).
_RECORD_TYPES = dict((t.__name__, t) for t in (AccountInfo, TerminalInfo, SymbolInfo, Tick, BookInfo, TradeOrder,
                                               TradePosition, TradeDeal, TradeRequest, OrderCheckResult))
_SELECT = frozenset(("select", "visible"))


def _fail_world(message):
    return _Fail(-1, "stand-in world: " + message)


class World(object):
    def __init__(self, directory):
        self.directory = directory
        with open(os.path.join(directory, "world.json"), "r") as f:
            doc = json.load(f)
        if doc.get("format") != FORMAT:
            raise ValueError("%s: world format %r, expected %d" % (directory, doc.get("format"), FORMAT))
        self.kinds = self._check_fields(doc["fields"])
        self.now_ms = int(doc["now_ms"])
        v = doc["version"]
        self.version = (int(v["terminal_version"]), int(v["build"]), str(v["build_date"]))
        self.terminal_info = self.record("TerminalInfo", doc["terminal_info"])
        self.maxbars = int(self.terminal_info.maxbars)
        self.account_info = self.record("AccountInfo", doc["account_info"])
        self.symbols = [self.record("SymbolInfo", s) for s in doc["symbols"]]
        self.by_name = dict((s.name, i) for i, s in enumerate(self.symbols))
        self.selected = set(s.name for s in self.symbols if s.select)
        self.ticks = dict((k, self.record("Tick", t)) for k, t in doc["ticks"].items())
        self.books = dict((k, tuple(self.record("BookInfo", b) for b in rows)) for k, rows in doc["books"].items())
        self.positions = tuple(self.record("TradePosition", p) for p in doc["positions"])
        self.orders = tuple(self.record("TradeOrder", o) for o in doc["orders"])
        self.history_orders = tuple(self.record("TradeOrder", o) for o in doc["history_orders"])
        self.history_deals = tuple(self.record("TradeDeal", d) for d in doc["history_deals"])
        self.tick_windows = dict((k, self._series(w, TICK_DTYPE, "time_msc")) for k, w in doc["tick_series"].items())
        self.rate_windows = dict(
            ((k, int(tf)), self._series(w, RATE_DTYPE, "time"))
            for k, per_tf in doc["rate_series"].items() for tf, w in per_tf.items())
        answers = doc.get("answers", {})
        self.margins = [(tuple(a["args"]), float(a["value"])) for a in answers.get("order_calc_margin", [])]
        self.profits = [(tuple(a["args"]), float(a["value"])) for a in answers.get("order_calc_profit", [])]
        self.checks = [(tuple(_request("order_check", (a["request"],), {})), self.record("OrderCheckResult", a["result"]))
                       for a in answers.get("order_check", [])]
        self.api = dict((name[4:], getattr(self, name)) for name in dir(self) if name.startswith("api_"))

    # ------------------------------------------------------------------ loading

    @staticmethod
    def _check_fields(fields):
        """The exported field lists must be the package's, name for name and in order."""
        kinds = {}
        for name in _RECORD_TYPES:
            exported = [f[0] for f in fields[name]]
            if exported != _RECORD_FIELDS[name].split():
                raise ValueError("world %s fields %s differ from the package's %s"
                                 % (name, exported, _RECORD_FIELDS[name].split()))
            kinds[name] = [tuple(f) for f in fields[name]]
        return kinds

    def record(self, name, values):
        """A package record from its JSON object, each value typed as the package types it."""
        return _RECORD_TYPES[name]([self._typed(name, field, kind, values[field]) for field, kind in self.kinds[name]])

    def _typed(self, name, field, kind, v):
        where = "%s.%s" % (name, field)
        if kind == "TradeRequest":
            return self.record("TradeRequest", v)
        if kind == "float64":
            if v is None:  # JSON's stand-in for a non-finite double
                return float("nan")
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ValueError("%s: %r is not a number" % (where, v))
            return float(v)
        if kind in ("int64", "uint64", "uint32"):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v:
                raise ValueError("%s: %r is not an integer" % (where, v))
            return int(v)
        if kind == "bool":
            if not isinstance(v, bool):
                raise ValueError("%s: %r is not a boolean" % (where, v))
            return v
        if kind == "string":
            if not isinstance(v, str):
                raise ValueError("%s: %r is not a string" % (where, v))
            return v
        raise ValueError("%s: unknown kind %r" % (where, kind))

    def _series(self, window, dtype, time_field):
        array = np.load(os.path.join(self.directory, window["file"]))
        if array.dtype != dtype:
            raise ValueError("%s: dtype %s is not the package's %s" % (window["file"], array.dtype, dtype))
        times = np.ascontiguousarray(array[time_field])
        if len(times) > 1 and np.any(times[1:] < times[:-1]):
            raise ValueError("%s: not in ascending time" % window["file"])
        # complete: the window starts at the start of history, so nothing lies before it.
        return {"from": int(window["from"]), "complete": bool(window.get("complete", False)), "array": array,
                "times": times}

    # ------------------------------------------------------------------ helpers

    def _symbol(self, name):
        i = self.by_name.get(_str(name))
        if i is None:
            raise _Fail(-4)
        return self.symbols[i]

    def _info(self, symbol):
        """symbol_info with select/visible as Market Watch has them now."""
        chosen = symbol.name in self.selected
        return SymbolInfo([chosen if f in _SELECT else v for f, v in zip(_RECORD_FIELDS["SymbolInfo"].split(), symbol)])

    def _rates(self, symbol, tf):
        self._symbol(symbol)
        tf = _int(tf)
        window = self.rate_windows.get((symbol, tf))
        if window is None:
            if tf not in _TIMEFRAMES:
                raise _Fail(-2)
            raise _fail_world("no %s bars of timeframe %d were exported" % (symbol, tf))
        return window

    def _now_s(self):
        return self.now_ms // 1000

    # ------------------------------------------------------------------ terminal, account, symbols

    def api_version(self):
        return self.version

    def api_terminal_info(self):
        return self.terminal_info

    def api_account_info(self):
        return self.account_info

    def api_symbols_total(self):
        return len(self.symbols)

    def api_symbols_get(self, *args, **kwargs):
        kw = _keywords("symbols_get", args, kwargs, ("group",))
        symbols = self.symbols
        if "group" in kw:
            chosen = _group_match([s.name for s in symbols], kw["group"])
            symbols = [s for s in symbols if s.name in chosen]
        return tuple(self._info(s) for s in symbols)

    def api_symbol_info(self, *args, **kwargs):
        (name,) = _positional("symbol_info", args, kwargs, (1,))
        return self._info(self._symbol(name))

    def api_symbol_info_tick(self, *args, **kwargs):
        (name,) = _positional("symbol_info_tick", args, kwargs, (1,))
        self._symbol(name)
        if name not in self.selected or name not in self.ticks:
            raise _Fail(-1)  # the package answers only for symbols in Market Watch
        return self.ticks[name]

    def api_symbol_select(self, *args, **kwargs):
        args = _positional("symbol_select", args, kwargs, (1, 2))
        name = args[0]
        self._symbol(name)
        enable = True if len(args) == 1 else args[1]
        if not isinstance(enable, (bool, int)):
            raise _Fail(-2, "Invalid arguments")
        if enable:
            self.selected.add(name)
        else:
            if any(p.symbol == name for p in self.positions) or any(o.symbol == name for o in self.orders):
                raise _Fail(-1)
            self.selected.discard(name)
            _S.books.discard(name)
        return True

    # ------------------------------------------------------------------ depth of market

    def api_market_book_add(self, *args, **kwargs):
        (name,) = _positional("market_book_add", args, kwargs, (1,))
        symbol = self._symbol(name)
        if name not in self.selected or symbol.ticks_bookdepth <= 0:
            raise _Fail(-1)
        _S.books.add(name)
        return True

    def api_market_book_release(self, *args, **kwargs):
        (name,) = _positional("market_book_release", args, kwargs, (1,))
        self._symbol(name)
        if name not in _S.books:
            raise _Fail(-1)
        _S.books.discard(name)
        return True

    def api_market_book_get(self, *args, **kwargs):
        (name,) = _positional("market_book_get", args, kwargs, (1,))
        self._symbol(name)
        if name not in _S.books:
            raise _Fail(-1)
        return self.books.get(name, ())

    # ------------------------------------------------------------------ bars

    def _bars_back(self, window, end_s, skip, count):
        """The count bars before the skip latest ones with open time <= end_s (the exporting
        terminal's walk back from the bar holding end_s)."""
        times = window["times"]
        hi = int(np.searchsorted(times, end_s, "right")) - skip
        lo = hi - count
        if lo < 0 and not window["complete"]:
            raise _fail_world("%d bars before %d reach before the exported window (%d)"
                              % (count + skip, end_s, window["from"]))
        return np.array(window["array"][max(lo, 0):max(hi, 0)])

    def api_copy_rates_from(self, *args, **kwargs):
        symbol, tf, date_from, count = _positional("copy_rates_from", args, kwargs, (4,))
        window = self._rates(symbol, tf)
        date_from, count = _seconds(date_from), _int(count)
        if count <= 0 or count >= self.maxbars:
            raise _Fail(-2)
        return self._bars_back(window, min(date_from, self._now_s()), 0, count)

    def api_copy_rates_from_pos(self, *args, **kwargs):
        symbol, tf, start, count = _positional("copy_rates_from_pos", args, kwargs, (4,))
        window = self._rates(symbol, tf)
        start, count = _int(start), _int(count)
        if start < 0 or count <= 0 or count >= self.maxbars:
            raise _Fail(-2)
        return self._bars_back(window, self._now_s(), start, count)

    def api_copy_rates_range(self, *args, **kwargs):
        symbol, tf, date_from, date_to = _positional("copy_rates_range", args, kwargs, (4,))
        window = self._rates(symbol, tf)
        lo, hi = _seconds(date_from), _seconds(date_to)
        if lo > hi:
            raise _Fail(-2)
        if lo < window["from"] and not window["complete"]:
            raise _fail_world("bars from %d: before the exported window (%d)" % (lo, window["from"]))
        times = window["times"]
        a, b = int(np.searchsorted(times, lo, "left")), int(np.searchsorted(times, hi, "right"))
        if b - a >= self.maxbars:
            raise _Fail(-2)
        return np.array(window["array"][a:b])

    # ------------------------------------------------------------------ ticks

    def _ticks(self, symbol, flags):
        self._symbol(symbol)
        flags = _int(flags)
        if flags not in (C.COPY_TICKS_ALL, C.COPY_TICKS_INFO, C.COPY_TICKS_TRADE):
            raise _Fail(-2)
        window = self.tick_windows.get(symbol)
        if window is None:
            raise _fail_world("no %s ticks were exported" % symbol)
        return window, flags

    @staticmethod
    def _check_from(window, from_msc):
        if from_msc < window["from"] and not window["complete"]:
            raise _fail_world("ticks from %d: before the exported window (%d)" % (from_msc, window["from"]))

    def api_copy_ticks_from(self, *args, **kwargs):
        symbol, date_from, count, flags = _positional("copy_ticks_from", args, kwargs, (4,))
        window, flags = self._ticks(symbol, flags)
        from_msc, count = _seconds(date_from) * 1000, _int(count)
        if count <= 0:
            raise _Fail(-2)
        self._check_from(window, from_msc)
        a = int(np.searchsorted(window["times"], from_msc, "left"))
        rows = window["array"][a:]
        if flags != C.COPY_TICKS_ALL:
            rows = _tick_filter(rows, flags)
        return np.array(rows[:count])

    def api_copy_ticks_range(self, *args, **kwargs):
        symbol, date_from, date_to, flags = _positional("copy_ticks_range", args, kwargs, (4,))
        window, flags = self._ticks(symbol, flags)
        lo, hi = _seconds(date_from) * 1000, _seconds(date_to) * 1000
        if lo > hi:
            raise _Fail(-2)
        self._check_from(window, lo)
        times = window["times"]
        rows = window["array"][int(np.searchsorted(times, lo, "left")):int(np.searchsorted(times, hi, "right"))]
        return np.array(_tick_filter(rows, flags))

    # ------------------------------------------------------------------ calculations

    def _answer(self, name, table, key):
        for args, value in table:
            if args == key:
                return value
        raise _fail_world("no exported answer for %s%r" % (name, key))

    def api_order_calc_margin(self, *args, **kwargs):
        action, symbol, volume, price = _positional("order_calc_margin", args, kwargs, (4,))
        key = (_int(action), _str(symbol), _float(volume), _float(price))
        self._symbol(symbol)
        return self._answer("order_calc_margin", self.margins, key)

    def api_order_calc_profit(self, *args, **kwargs):
        action, symbol, volume, p_open, p_close = _positional("order_calc_profit", args, kwargs, (5,))
        key = (_int(action), _str(symbol), _float(volume), _float(p_open), _float(p_close))
        self._symbol(symbol)
        return self._answer("order_calc_profit", self.profits, key)

    def api_order_check(self, *args, **kwargs):
        req = tuple(_request("order_check", args, kwargs))
        return self._answer("order_check", self.checks, req)

    def api_order_send(self, *args, **kwargs):
        req = _request("order_send", args, kwargs)
        tick = self.ticks.get(req.symbol)
        bid, ask = (tick.bid, tick.ask) if tick is not None else (0.0, 0.0)
        return OrderSendResult((C.TRADE_RETCODE_CLIENT_DISABLES_AT, 0, 0, 0.0, 0.0, bid, ask,
                                "AutoTrading disabled by client", 0, 0, req))

    # ------------------------------------------------------------------ orders, positions, history

    def api_orders_total(self):
        return len(self.orders)

    def api_orders_get(self, *args, **kwargs):
        return _filtered(self.orders, _keywords("orders_get", args, kwargs, ("symbol", "ticket", "group")), "ticket")

    def api_positions_total(self):
        return len(self.positions)

    def api_positions_get(self, *args, **kwargs):
        return _filtered(self.positions, _keywords("positions_get", args, kwargs, ("symbol", "ticket", "group")),
                         "ticket")

    def api_history_orders_total(self, *args, **kwargs):
        lo, hi = _positional("history_orders_total", args, kwargs, (2,))
        lo, hi = _seconds(lo), _seconds(hi)
        return sum(1 for o in self.history_orders if lo <= o.time_setup <= hi)

    def api_history_orders_get(self, *args, **kwargs):
        return _history("history_orders_get", args, kwargs, self.history_orders, "time_setup", "ticket")

    def api_history_deals_total(self, *args, **kwargs):
        lo, hi = _positional("history_deals_total", args, kwargs, (2,))
        lo, hi = _seconds(lo), _seconds(hi)
        return sum(1 for d in self.history_deals if lo <= d.time <= hi)

    def api_history_deals_get(self, *args, **kwargs):
        # ticket= selects the deals of an ORDER ticket (DEAL_ORDER), as the package does
        return _history("history_deals_get", args, kwargs, self.history_deals, "time", "order")


_TIMEFRAMES = frozenset(getattr(C, n) for n in C.NAMES if n.startswith("TIMEFRAME_"))


def load(directory):
    """The world in `directory`, or None for '' / None."""
    return World(directory) if directory else None
