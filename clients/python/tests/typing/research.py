"""A typical research script, numpy only: test_typing.py proves it passes mypy --strict (and that
the types are live: typing/wrong.py must fail). Run it against a gateway as it is."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

import tradeapi_client.mt5 as mt5
from tradeapi_client.types import Series


def log_returns(rates: Series) -> npt.NDArray[np.float64]:
    close: npt.NDArray[np.float64] = rates["close"].astype(np.float64)
    return np.diff(np.log(close))


def spread_stats(ticks: Series) -> Tuple[float, float]:
    spread = ticks["ask"] - ticks["bid"]
    return float(np.mean(spread)), float(np.percentile(spread, 95))


def pnl_by_symbol(deals: Tuple[mt5.TradeDeal, ...]) -> Dict[str, float]:
    out: Dict[str, float] = {}
    for d in deals:
        out[d.symbol] = out.get(d.symbol, 0.0) + d.profit + d.commission + d.swap + d.fee
    return out


def main(symbol: str = "EURUSD") -> int:
    if not mt5.initialize(timeout=30000):
        code, text = mt5.last_error()
        print("initialize failed: %d %s" % (code, text))
        return 1
    try:
        end = datetime.now(timezone.utc)
        start = end - timedelta(days=3)
        rates: Optional[Series] = mt5.copy_rates_range(symbol, mt5.TIMEFRAME_H1, start, end)
        if rates is None:
            print("copy_rates_range:", mt5.last_error())
            return 1
        r = log_returns(rates)
        print("%d bars, %d returns, volatility %.6f" % (len(rates), len(r), float(np.std(r)) if len(r) else 0.0))
        first: float = float(rates["open"][0]) if len(rates) else 0.0
        print("first open", first, "times", rates["time"][:1].astype("datetime64[s]"))

        ticks = mt5.copy_ticks_range(symbol, int(start.timestamp()), end, mt5.COPY_TICKS_ALL)
        if ticks is not None and len(ticks):
            mean, p95 = spread_stats(ticks)
            print("ticks %d, spread mean %.6f p95 %.6f" % (len(ticks), mean, p95))

        positions = mt5.positions_get(symbol=symbol)
        open_volume: float = sum(p.volume for p in positions or ())
        by_ticket: List[int] = [p.ticket for p in positions or ()]
        print("open volume", open_volume, by_ticket)

        deals = mt5.history_deals_get(start, end, group="*")
        if deals is None:
            print("history_deals_get:", mt5.last_error())
        else:
            for name, pnl in sorted(pnl_by_symbol(deals).items()):
                print("%s %.2f" % (name, pnl))
            if deals:
                print(deals[0]._asdict()["ticket"], mt5.history_deals_get(position=deals[0].position_id))
        tick = mt5.symbol_info_tick(symbol)
        if tick is not None:
            print("bid %.5f ask %.5f at %d" % (tick.bid, tick.ask, tick.time_msc))
    finally:
        mt5.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
