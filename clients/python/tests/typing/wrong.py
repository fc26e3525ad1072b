"""Each marked line is a mistake mypy --strict must report: proof that the client's types are
checked (not Any). test_typing.py compares the lines reported with the lines marked."""
from __future__ import annotations

import tradeapi_client.mt5 as mt5

mt5.symbol_info_tick(42)  # error: a symbol is a str
mt5.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_H1, 0)  # error: four arguments
tick = mt5.symbol_info_tick("EURUSD")
print(tick.bid)  # error: None when the call failed
rates = mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_H1, 0, 10)
if rates is not None and tick is not None:
    label: str = tick.ask  # error: a float
mt5.positions_get(symbol="EURUSD", ticket=1)  # error: one filter at a time
mt5.history_deals_get(0, 10, ticket=5)  # error: dates or ticket=, not both
mt5.symbol_info_tick(symbol="EURUSD")  # error: positional only
code: str = mt5.last_error()[0]  # error: the code is an int
mt5.TIMEFRAME_H1 = 5  # error: constants are Final

from tradeapi_client import aio  # noqa: E402


async def wrong_async() -> None:
    aio.symbol_info_tick(symbol="EURUSD")  # error: positional only (and not awaited)
    t = aio.symbol_info_tick("EURUSD")
    print(t.bid)  # error: a coroutine, not a Tick: await it
    a = await aio.copy_rates_from("EURUSD", mt5.TIMEFRAME_H1, 0, 10)
    print(a.dtype)  # error: None when the call failed
    code: str = aio.last_error()[0]  # error: the code is an int
