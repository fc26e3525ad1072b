"""Package records -> JSON values, keeping the package's field names and order (`_asdict()`: the
real records are struct sequences with no `_fields`). Records are small, so walking them in Python
is fine; series never come here."""
import math

import numpy as np


def to_json(value):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        # JSON has no NaN/Infinity; null says "no value" without breaking a strict parser.
        return value if math.isfinite(value) else None
    if hasattr(value, "_asdict"):  # a record (nested: OrderCheckResult.request); before tuple
        return {k: to_json(v) for k, v in value._asdict().items()}
    if isinstance(value, np.generic):
        return to_json(value.item())
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    raise TypeError("cannot send a %s as JSON" % type(value).__name__)
