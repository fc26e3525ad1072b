"""tradeapi-client: Python for a tradeapi gateway.

* ``import tradeapi_client.mt5 as mt5`` — a drop-in for ``import MetaTrader5 as mt5``.
* ``from tradeapi_client import aio`` — the same functions as coroutines (``asyncio.gather`` them).
* ``stream_ticks(symbols)`` / ``stream_book(symbols)`` — live events, resumed after a reconnect.
* ``replay(symbols, start, speed=0, end=None)`` — ticks from history that run on into live.
* ``stream_bars(symbols, "5s")`` — live bars of any period, each as ``quant.bars`` returns it later.
* ``stream_trade_events(kinds, since)`` / ``TradeState`` — the account's deals, orders, positions
  and money as events (snapshot + changes), resumed after a reconnect (``tradeapi_client.trade_events``).
* ``from tradeapi_client import quant`` — ``quant.bars(symbol, "90s", …)`` bars of any period built
  from ticks (of several symbols: ``quant.bars([...], "90s", …)``, one merged pull), ``quant.ticks([...], …)``
  many symbols' ticks in one merged pull.
* ``to_pandas(result)`` — a DataFrame with UTC ``datetime64[ns]`` time columns (needs pandas).
* ``to_polars(result)`` — a polars DataFrame with UTC ``Datetime('ms')`` time columns (needs polars).
"""
from ._events import stream_book, stream_ticks
from ._pandas import to_pandas
from ._polars import to_polars
from .live_bars import stream_bars
from .replay import replay
from .trade_events import TradeState, stream_trade_events

__version__ = "0.1.0"
__all__ = ["stream_ticks", "stream_book", "stream_bars", "replay", "stream_trade_events", "TradeState", "to_pandas", "to_polars", "__version__"]
