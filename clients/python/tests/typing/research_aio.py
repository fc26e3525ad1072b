"""The asyncio form of a research pull: every symbol's ticks at once (tradeapi_client.aio), checked
by test_typing.py under mypy --strict as research.py is. Run it against a gateway as it is."""
from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Dict, List, Optional, Tuple

import numpy as np

import tradeapi_client.mt5 as mt5
from tradeapi_client import aio
from tradeapi_client.types import Series


async def ticks_of(symbol: str, start: datetime, end: datetime) -> Tuple[str, Optional[Series], Tuple[int, str]]:
    ticks = await aio.copy_ticks_range(symbol, start, end, mt5.COPY_TICKS_ALL)
    return symbol, ticks, aio.last_error()  # this task's own error, whatever the others did


async def main() -> int:
    if not await aio.initialize(timeout=30000):
        print("initialize failed:", aio.last_error())
        return 1
    try:
        symbols = await aio.symbols_get(group="*USD*")
        if symbols is None:
            print("symbols_get:", aio.last_error())
            return 1
        end = datetime.now(timezone.utc)
        start = end - timedelta(days=1)
        pulled = await asyncio.gather(*(ticks_of(s.name, start, end) for s in symbols))
        spreads: Dict[str, float] = {}
        failed: List[str] = []
        for name, ticks, (code, text) in pulled:
            if ticks is None:
                failed.append("%s: %d %s" % (name, code, text))
            elif len(ticks):
                spreads[name] = float(np.mean(ticks["ask"] - ticks["bid"]))
        for name, spread in sorted(spreads.items()):
            print("%s mean spread %.6f" % (name, spread))
        print("failed:", failed)
        tick: Optional[mt5.Tick] = await aio.symbol_info_tick("EURUSD")
        if tick is not None:
            print("bid %.5f ask %.5f" % (tick.bid, tick.ask))
        try:
            await asyncio.wait_for(aio.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_M1, 0, 1000), 5.0)
        except asyncio.TimeoutError:
            print("cancelled after 5 s")
    finally:
        await aio.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
