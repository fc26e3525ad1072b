"""tradeapi-client: Python for a tradeapi gateway.

* ``import tradeapi_client.mt5 as mt5`` — a drop-in for ``import MetaTrader5 as mt5``.
* ``stream_ticks(symbols)`` / ``stream_book(symbols)`` — live events, resumed after a reconnect.
* ``to_pandas(result)`` — a DataFrame with UTC ``datetime64[ns]`` time columns (needs pandas).
"""
from ._events import stream_book, stream_ticks
from ._pandas import to_pandas

__version__ = "0.1.0"
__all__ = ["stream_ticks", "stream_book", "to_pandas", "__version__"]
