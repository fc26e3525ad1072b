// The Terminal served by a bridge (docs/bridge-protocol.md): each operation is one REQUEST on an
// authenticated connection; series stream as SERIES_HEAD/CHUNK/END into columns.
//
// Connections: idle authenticated connections wait in a pool; a call takes one (or connects and
// authenticates a new one), an open series keeps its connection until SERIES_END. An abandoned
// series sends SERIES_CANCEL and returns its connection to the pool; the call that next takes it
// first discards the series' remaining frames up to the bridge's ERROR `cancelled` (or an END that
// crossed the cancel), on the worker, never in the cursor's destructor. A lost or refused
// connection is ErrorKind::Unavailable (the HTTP layer answers 503 + Retry-After); after a failure
// the next connection attempt waits out a backoff (doubling up to backoff_max_ms), and calls in
// between fail at once. A read-only call whose pooled connection turns out dead is re-sent once on
// a fresh connection; symbol_select and market_book_add/release never are.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frame.h"
#include "interrupter.h"
#include "socket.h"
#include "terminal/terminal.h"

namespace tradeapi::bridge {

// Timeouts. The addon's worker answers a caller `timeout` once its job has waited queueTimeoutMs
// (kDefaultQueueTimeoutMs: binding/napi/addon.cpp, callTimeoutMs in src/terminal/index.ts). The
// client's own I/O timeout must be shorter: with I/O 40 s > queue 30 s a hung bridge got the caller
// `timeout` at 30 s while the worker stayed blocked in recv until 40 s, and every call queued
// behind it timed out as well. At I/O 20 s the worker gives up on the hung bridge (closing that
// connection) 10 s before the caller's deadline and takes the next job. The cost: a terminal call
// that takes 20..30 s on the bridge (its --call-timeout is 30 s) now ends as a client `timeout`;
// the caller's own 30 s would not have waited for it much longer anyway.
constexpr int kDefaultQueueTimeoutMs = 30000;
constexpr int kDefaultIoTimeoutMs = 20000;
static_assert(kDefaultIoTimeoutMs < kDefaultQueueTimeoutMs, "a hung bridge must free the worker before callers time out");

// Calls that may wait in the addon's queue for a bridge terminal (Worker's max_waiting): enough for
// any burst a healthy bridge absorbs within the queue timeout; past it a stuck terminal costs each
// further request an immediate 503 instead of memory.
constexpr int64_t kDefaultQueueLimit = 1024;

// The I/O timeout when none is configured: the default, or two thirds of a queue timeout too short
// for it (at least 1 ms), so that it stays below any queue timeout over 1 ms.
int default_io_timeout_ms(int64_t queue_timeout_ms);

// Series compression to ask a protocol-2 bridge for (TRADEAPI_BRIDGE_COMPRESSION): Auto is none
// for a bridge on a loopback address (both ends share the CPU; the bytes cost nothing) and zstd
// otherwise; zstd falls back to none when the bridge does not offer it.
enum class Compression { Auto, Zstd, None };

// What Auto means for a bridge at `host`.
bool loopback_host(const std::string& host);

struct BridgeOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 18812;
  std::string secret;                // TRADEAPI_BRIDGE_SECRET, never logged or sent
  int connect_timeout_ms = 3000;
  int handshake_timeout_ms = 10000;  // the bridge's own limit (§4)
  int io_timeout_ms = kDefaultIoTimeoutMs;  // one reply frame; below the queue timeout (above)
  int backoff_initial_ms = 100;
  int backoff_max_ms = 1000;
  size_t max_idle = 4;
  Compression compression = Compression::Auto;
};

// The bridge and this client speak different protocol versions (§4): Unavailable, and /health
// says `version_mismatch` rather than `unreachable`.
class VersionSkew : public TerminalError {
 public:
  explicit VersionSkew(const std::string& why) : TerminalError(ErrorKind::Unavailable, -10004, why) {}
};

struct Frame {
  FrameHeader header;
  std::string payload;
};

// One authenticated connection.
class Connection {
 public:
  // Connects and runs the handshake; throws TerminalError (Unavailable) with a reason that never
  // contains the secret.
  // Its socket is registered with `interrupter` while open.
  static std::unique_ptr<Connection> open(const BridgeOptions& options, std::shared_ptr<Interrupter> interrupter);
  ~Connection() { close(); }

  uint32_t next_request_id();
  // What the handshake settled: the protocol (2, or 1 with an older bridge) and, with 2, whether
  // series chunks may be zstd-compressed.
  int protocol() const { return protocol_; }
  bool zstd() const { return zstd_; }
  void write(FrameType type, uint32_t request_id, const void* payload, size_t n);
  void write_json(FrameType type, uint32_t request_id, const nlohmann::json& j);
  // One whole frame within the I/O timeout, however its bytes are spread (SocketTimeout past
  // it); throws SocketError / ProtocolError.
  Frame read();
  // Whether the next frame has begun to arrive (read() would not wait for its first byte).
  bool frame_waiting() const { return socket_.readable_now(); }
  void close() {
    if (interrupter_ && socket_.is_open()) interrupter_->remove(socket_.handle());
    socket_.close();
  }

  // Sends SERIES_CANCEL for series `id` (§7); finish_cancel() later reads the rest of it.
  void cancel_series(uint32_t id);
  bool cancelling() const { return cancelling_ != 0; }
  // Discards the cancelled series' frames up to its ERROR (cancelled) or END; throws SocketError /
  // ProtocolError when the connection is not usable afterwards.
  void finish_cancel();

 private:
  // A frame of at most max_length bytes, complete by deadline.
  Frame read(uint32_t max_length, Socket::Deadline deadline);

  std::shared_ptr<Interrupter> interrupter_;
  Socket socket_;
  int io_timeout_ms_ = 0;  // per frame after the handshake; 0 = none
  uint32_t last_id_ = 0;
  uint32_t cancelling_ = 0;
  int protocol_ = kProtocolVersion;
  bool zstd_ = false;
};

// Connections shared by the terminal and its open cursors.
class ConnectionPool {
 public:
  explicit ConnectionPool(BridgeOptions options)
      : options_(std::move(options)), interrupter_(std::make_shared<Interrupter>()) {}
  // An idle connection (reused = true) or a new one; throws Unavailable during backoff or when
  // the bridge cannot be reached/authenticated.
  std::unique_ptr<Connection> acquire(bool& reused);
  void release(std::unique_ptr<Connection> c);
  // Notes a lost connection: the next connect waits out the backoff.
  void failed(const std::string& why);
  // When the bridge became unreachable (Unix seconds), 0 while it is reachable.
  double unreachable_since();
  // Whether the last connection attempt failed on a protocol version mismatch.
  bool version_skew();
  const BridgeOptions& options() const { return options_; }

  // Closing the terminal: every connection is shut down (blocked calls fail at once) and no new
  // one is opened.
  void interrupt();

  // A bridge that authenticates and answers bridge_status but lets terminal calls time out is
  // not "ok" (/health, §9): stalled() notes a call's reply that missed its deadline, answered()
  // a call's complete reply. stalled_since() is when the first missed reply since the last
  // answer happened (Unix seconds, 0 = none), `why` its reason.
  void stalled(const std::string& why);
  void answered();
  double stalled_since(std::string& why);

 private:
  BridgeOptions options_;
  std::shared_ptr<Interrupter> interrupter_;
  double stalled_since_ = 0;
  std::string stalled_why_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::chrono::steady_clock::time_point next_attempt_{};
  int delay_ms_ = 0;
  std::string last_failure_;
  bool skew_ = false;
  double unreachable_since_ = 0;  // first failure since the last successful connect (system clock)
};

// What /health reports about a bridge: can we reach it, and is its terminal connected (the
// bridge's `bridge_status` op, §8). When unreachable, `since` is when the client first failed to
// reach it and `error` says why (never the secret).
struct BridgeStatus {
  bool reachable = false;
  bool terminal_connected = false;
  double since = 0;  // Unix seconds; 0 = unknown
  std::optional<LastError> error;
  int64_t reconnects = 0;
  // Reachable but letting calls time out (see ConnectionPool::stalled): since/error say when and why.
  bool answering = true;
  // Unreachable because the bridge speaks another protocol version (error says which).
  bool version_mismatch = false;
};

// Parses a JSON object payload nested at most kMaxJsonDepth deep; anything else is a ProtocolError.
nlohmann::json parse_json_object(const std::string& payload, const char* frame);
// {kind, code, message} of an ERROR frame as the addon's error.
TerminalError error_from_frame(const std::string& payload);

class BridgeTerminal : public Terminal {
 public:
  explicit BridgeTerminal(BridgeOptions options);

  Version version() override;
  LastError last_error() override;
  TerminalInfo terminal_info() override;
  AccountInfo account_info() override;
  int64_t symbols_total() override;
  std::vector<SymbolInfo> symbols_get(const std::optional<std::string>& group) override;
  SymbolInfo symbol_info(const std::string& symbol) override;
  Tick symbol_info_tick(const std::string& symbol) override;
  bool symbol_select(const std::string& symbol, bool enable) override;
  bool market_book_add(const std::string& symbol) override;
  std::vector<BookInfo> market_book_get(const std::string& symbol) override;
  bool market_book_release(const std::string& symbol) override;
  std::unique_ptr<RateCursor> copy_rates_from(const std::string& symbol, int64_t timeframe, int64_t date_from,
                                              int64_t count) override;
  std::unique_ptr<RateCursor> copy_rates_from_pos(const std::string& symbol, int64_t timeframe, int64_t start_pos,
                                                  int64_t count) override;
  std::unique_ptr<RateCursor> copy_rates_range(const std::string& symbol, int64_t timeframe, int64_t date_from,
                                               int64_t date_to) override;
  std::unique_ptr<TickCursor> copy_ticks_from(const std::string& symbol, int64_t date_from_msc, int64_t count,
                                              int64_t flags) override;
  std::unique_ptr<TickCursor> copy_ticks_range(const std::string& symbol, int64_t date_from_msc,
                                               int64_t date_to_msc, int64_t flags) override;
  double order_calc_margin(int64_t action, const std::string& symbol, double volume, double price) override;
  double order_calc_profit(int64_t action, const std::string& symbol, double volume, double price_open,
                           double price_close) override;
  OrderCheckResult order_check(const TradeRequest& request) override;
  int64_t positions_total() override;
  std::vector<TradePosition> positions_get(const TradeFilter& filter) override;
  int64_t orders_total() override;
  std::vector<TradeOrder> orders_get(const TradeFilter& filter) override;
  int64_t history_orders_total(int64_t date_from, int64_t date_to) override;
  std::vector<TradeOrder> history_orders_get(const HistoryFilter& filter) override;
  int64_t history_deals_total(int64_t date_from, int64_t date_to) override;
  std::vector<TradeDeal> history_deals_get(const HistoryFilter& filter) override;

  // Thread-safe (uses the pool only, never last_error_): the addon runs it beside the worker, so
  // that /health answers while a slow terminal call holds the worker. Throws only for answers
  // that are neither a status nor "unreachable" (e.g. a bridge without the op).
  BridgeStatus bridge_status();

  void interrupt() override { pool_->interrupt(); }

 private:
  // One REQUEST -> RESULT value; ERROR -> TerminalError. `retry_safe`: may be re-sent once on a
  // fresh connection when a pooled one proves dead.
  nlohmann::json call(const char* op, nlohmann::json args, bool retry_safe = true);
  template <typename Columns>
  std::unique_ptr<SeriesCursor<Columns>> series(const char* op, nlohmann::json args);
  template <typename F>
  auto guarded(F&& f) -> decltype(f());

  std::shared_ptr<ConnectionPool> pool_;
  LastError last_error_;
};

}  // namespace tradeapi::bridge
