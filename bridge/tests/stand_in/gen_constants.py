"""Regenerate MetaTrader5/_constants.py from the real MetaTrader5 wheel.

The real package is a Windows-only extension, but its wheel is an ordinary zip and its
``MetaTrader5/__init__.py`` holds every constant as a plain assignment before
``from ._core import *``. This script reads those assignments (with ``ast``, evaluating only
integer literals and ``|``/unary minus, never importing or executing the file) and writes them
in source order.

Get the wheel once (it is never needed at test time):

    pip download --no-deps --platform win_amd64 --only-binary=:all: --python-version 3.11 \
        MetaTrader5 -d /tmp/mt5wheel
    python3 bridge/tests/stand_in/gen_constants.py /tmp/mt5wheel/metatrader5-*.whl
"""

import ast
import hashlib
import os
import sys
import zipfile


def _value(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _value(node.left) | _value(node.right)
    raise ValueError("unexpected constant expression: " + ast.dump(node))


def constants(source):
    """(name, value) pairs of the module-level integer constants, in source order."""
    out = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom):
            break  # ``from ._core import *``: the constants end here
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name.startswith("__"):
                continue
            out.append((name, _value(node.value)))
    return out


def main(wheel, target=None):
    with open(wheel, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with zipfile.ZipFile(wheel) as z:
        source = z.read("MetaTrader5/__init__.py").decode("utf-8")
    version = ast.literal_eval(next(
        n.value for n in ast.parse(source).body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "__version__"))
    pairs = constants(source)
    target = target or os.path.join(os.path.dirname(os.path.abspath(__file__)), "MetaTrader5", "_constants.py")
    lines = [
        '"""Every constant of the real MetaTrader5 package, with its real name and value. GENERATED: do not edit.',
        "",
        "Source: the official wheel %s (MetaTrader5 %s, sha256 %s)," % (os.path.basename(wheel), version, digest),
        "file MetaTrader5/__init__.py, read by bridge/tests/stand_in/gen_constants.py, in the wheel's order.",
        '"""',
        "",
        "PACKAGE_VERSION = %r" % version,
        "",
    ]
    lines += ["%s = %d" % pair for pair in pairs]
    lines += ["", "# every generated name, in source order", "NAMES = (" ]
    lines += ["    %r," % name for name, _ in pairs]
    lines += [")", ""]
    with open(target, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines))
    print("%s: %d constants from MetaTrader5 %s" % (target, len(pairs), version))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
