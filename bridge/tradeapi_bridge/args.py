"""Request argument validation: every bad input becomes an invalid_params error naming the
argument, never an exception that escapes the connection."""
from . import errors

INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1


def _check(name, value, kind):
    if kind == "str":
        if not isinstance(value, str):
            raise errors.invalid_params("args.%s: expected a string" % name)
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise errors.invalid_params("args.%s: expected true or false" % name)
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise errors.invalid_params("args.%s: expected an integer" % name)
        if not INT64_MIN <= value <= INT64_MAX:
            raise errors.invalid_params("args.%s: out of the 64-bit integer range" % name)
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise errors.invalid_params("args.%s: expected a number" % name)
        return float(value)
    if kind == "object":
        if not isinstance(value, dict):
            raise errors.invalid_params("args.%s: expected an object" % name)
        return value
    raise AssertionError(kind)


def validate(op: str, raw, spec: dict) -> dict:
    """spec: name -> (kind, required). Returns the checked args (optional ones absent or given)."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise errors.invalid_params("%s: args must be an object" % op)
    unknown = sorted(set(raw) - set(spec))
    if unknown:
        raise errors.invalid_params("%s: unknown argument(s) %s; accepted: %s"
                                    % (op, ", ".join(unknown), ", ".join(sorted(spec)) or "none"))
    out = {}
    for name, (kind, required) in spec.items():
        if name not in raw or raw[name] is None:
            if required:
                raise errors.invalid_params("%s: args.%s is required" % (op, name))
            continue
        out[name] = _check(name, raw[name], kind)
    return out
