"""Series compression (docs/bridge-protocol.md §4, §7): what the bridge offers at the handshake
and the compressor of a connection. zstd comes from the pinned `zstandard` package, imported only
here; without it the bridge offers (and sends) uncompressed chunks."""
try:
    import zstandard
except ImportError:  # pragma: no cover - the package is a dependency; a bare install still serves
    zstandard = None

DEFAULT_ZSTD_LEVEL = 1
MIN_ZSTD_LEVEL, MAX_ZSTD_LEVEL = -7, 22
NONE, ZSTD = "none", "zstd"


def parse(setting):
    """'auto' | 'none' | 'zstd' | 'zstd:LEVEL' -> (mode, level); ValueError says what is wrong."""
    text = (setting or "auto").strip().lower()
    if text in ("auto", NONE):
        return text, DEFAULT_ZSTD_LEVEL
    name, sep, level = text.partition(":")
    if name != ZSTD:
        raise ValueError("expected auto, zstd, zstd:LEVEL or none")
    value = DEFAULT_ZSTD_LEVEL
    if sep:
        try:
            value = int(level)
        except ValueError:
            raise ValueError("zstd level %r is not an integer" % level)
        if not MIN_ZSTD_LEVEL <= value <= MAX_ZSTD_LEVEL:
            raise ValueError("zstd level must be %d..%d" % (MIN_ZSTD_LEVEL, MAX_ZSTD_LEVEL))
    if zstandard is None:
        raise ValueError("the zstandard package is not installed in this Python (pip install zstandard==0.25.0)")
    return ZSTD, value


def offered(mode, level):
    """The HELLO's `compression` list: zstd first when it may be used, none always."""
    if mode == NONE or zstandard is None:
        return [NONE]
    return [ZSTD, NONE]


def compressor(name, level):
    """bytes -> bytes for a connection that chose `name`; None for none. One per connection: a
    zstandard compressor is not to be shared between threads."""
    if name != ZSTD:
        return None
    return zstandard.ZstdCompressor(level=level).compress


def decompressor():
    """(data, body_length) -> bytes, for the reference client; None without the package."""
    if zstandard is None:
        return None
    d = zstandard.ZstdDecompressor()
    return lambda data, n: d.decompress(data, max_output_size=n)
