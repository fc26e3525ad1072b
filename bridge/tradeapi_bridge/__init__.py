"""tradeapi_bridge: a small process beside a MetaTrader 5 terminal that serves the official
``MetaTrader5`` package to tradeapi's addon over the protocol in docs/bridge-protocol.md."""

__version__ = "0.2.0"
# 2: series chunks as columns, prices as integer points, negotiated compression (docs/bridge-protocol.md).
PROTOCOL_VERSION = 2
