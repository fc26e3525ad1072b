"""tradeapi_bridge: a small process beside a MetaTrader 5 terminal that serves the official
``MetaTrader5`` package to tradeapi's addon over the protocol in docs/bridge-protocol.md."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
