"""Type aliases for code that calls ``tradeapi_client.mt5`` (the module itself keeps exactly the
``MetaTrader5`` package's names)::

    from tradeapi_client.types import DateLike, Series

* ``DateLike``: a date argument: a ``datetime`` (naive: this process's local time) or integer seconds.
* ``Series``: what ``copy_rates_*``/``copy_ticks_*`` return: a numpy structured array with the real
  package's packed dtype (``RATE_DTYPE``/``TICK_DTYPE`` below), rows of ``numpy.void``.
"""
from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Union

import numpy as np

from ._series import RATE_DTYPE, TICK_DTYPE

if TYPE_CHECKING:
    import numpy.typing as npt

    Series = npt.NDArray[np.void]
else:
    Series = np.ndarray

DateLike = Union[datetime, int]

__all__ = ["DateLike", "Series", "RATE_DTYPE", "TICK_DTYPE"]
