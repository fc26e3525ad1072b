#include "bridge_terminal.h"

#include <algorithm>
#include <random>
#include <utility>

#include "records_json.h"
#include "series_columns.h"
#include "series_layout.h"
#include "sha256.h"

namespace tradeapi::bridge {
namespace {

using nlohmann::json;

constexpr const char* kClientLabel = "tradeapi-bridge/1 client";
constexpr const char* kServerLabel = "tradeapi-bridge/1 server";

TerminalError unavailable(const std::string& why) { return TerminalError(ErrorKind::Unavailable, -10004, why); }
TerminalError timed_out(const std::string& why) { return TerminalError(ErrorKind::Timeout, -10005, why); }

struct WireError {
  std::string kind;
  int64_t code = -1;
  std::string message;
};

// What a member of an ERROR should have been and what it was, for a message that says so.
const char* json_type(const json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  return v.is_string() ? "a string" : v.is_array() ? "an array" : v.is_object() ? "an object"
       : v.is_boolean() ? "a boolean" : "null";
}

// {kind, code, message}; a member missing or of the wrong type makes the message say so (a bare
// "bridge: " told the operator nothing).
WireError parse_error(const std::string& payload) {
  json j = parse_json_object(payload, "ERROR");
  WireError e;
  std::string wrong;
  auto note = [&](const char* name, const char* expected) {
    if (!wrong.empty()) wrong += "; ";
    std::string was = j.contains(name) ? std::string(" is ") + json_type(j[name]) : std::string(" is missing");
    wrong += std::string(name) + was + ", expected " + expected;
  };
  if (j.contains("kind") && j["kind"].is_string()) e.kind = j["kind"].get<std::string>();
  else note("kind", "a string");
  if (j.contains("code") && j["code"].is_number_integer()) e.code = j["code"].get<int64_t>();
  else note("code", "an integer");
  if (j.contains("message") && j["message"].is_string()) e.message = j["message"].get<std::string>();
  else note("message", "a string");
  if (!wrong.empty()) {
    std::string said = e.message.empty() ? std::string() : " (message: " + e.message.substr(0, 200) + ")";
    e.message = "bridge sent a malformed ERROR" + std::string(e.kind.empty() ? "" : " " + e.kind) + ": " + wrong + said;
  }
  return e;
}

TerminalError to_terminal_error(const WireError& e) {
  ErrorKind kind = ErrorKind::CallFailed;
  if (e.kind == "invalid_params") kind = ErrorKind::InvalidParams;
  else if (e.kind == "not_found") kind = ErrorKind::NotFound;
  else if (e.kind == "not_subscribed") kind = ErrorKind::NotSubscribed;
  else if (e.kind == "not_selected") kind = ErrorKind::NotSelected;
  else if (e.kind == "unavailable" || e.kind == "auth_failed" || e.kind == "protocol") kind = ErrorKind::Unavailable;
  else if (e.kind == "timeout") kind = ErrorKind::Timeout;
  // call_failed, cancelled and unknown kinds: CallFailed.
  return TerminalError(kind, e.code, e.message.empty() ? std::string("bridge: ") + e.kind : e.message);
}

std::string random_bytes(size_t n) {
  static thread_local std::random_device rd;
  std::string out(n, '\0');
  for (size_t i = 0; i < n; i += 4) {
    uint32_t v = rd();
    for (size_t k = 0; k < 4 && i + k < n; ++k) out[i + k] = static_cast<char>(v >> (8 * k));
  }
  return out;
}

std::string mac_hex(const std::string& secret, const char* label, const std::string& ns, const std::string& nc) {
  return to_hex(hmac_sha256(secret, std::string(label) + ns + nc));
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

bool loopback_host(const std::string& host) {
  std::string h;
  for (char ch : host) h += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  return h == "localhost" || h == "::1" || h.rfind("127.", 0) == 0 || h.rfind("::ffff:127.", 0) == 0;
}

int default_io_timeout_ms(int64_t queue_timeout_ms) {
  if (queue_timeout_ms > kDefaultIoTimeoutMs * 3 / 2) return kDefaultIoTimeoutMs;
  return static_cast<int>(std::max<int64_t>(1, queue_timeout_ms * 2 / 3));
}

json parse_json_object(const std::string& payload, const char* frame) {
  // The callback sees each container as it opens, with the number of enclosing ones: throwing
  // there stops the parse before anything deeper is built (a check of the parsed value would come
  // too late: 16 MiB of "[[[[" is ~600 MB once built).
  auto bound = [frame](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw ProtocolError(std::string(frame) + " payload is nested more than " + std::to_string(kMaxJsonDepth) + " deep");
    return true;
  };
  json j = json::parse(payload, bound, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw ProtocolError(std::string(frame) + " payload is not a JSON object");
  return j;
}

TerminalError error_from_frame(const std::string& payload) { return to_terminal_error(parse_error(payload)); }

// ---- Connection -----------------------------------------------------------------------------

std::unique_ptr<Connection> Connection::open(const BridgeOptions& o, std::shared_ptr<Interrupter> interrupter) {
  auto c = std::make_unique<Connection>();
  const std::string where = o.host + ":" + std::to_string(o.port);
  try {
    c->socket_ = Socket::connect(o.host, o.port, o.connect_timeout_ms, o.handshake_timeout_ms);
  } catch (const SocketError& e) {
    throw unavailable(std::string("bridge unreachable: ") + e.what());
  }
  if (!interrupter->add(c->socket_.handle())) throw unavailable("bridge client closed");
  c->interrupter_ = std::move(interrupter);
  // One deadline for the whole handshake, as the bridge has (§4), and only small frames.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(o.handshake_timeout_ms);
  try {
    Frame hello = c->read(kMaxHandshakePayload, deadline);
    if (hello.header.type != FrameType::Hello) throw ProtocolError("expected HELLO");
    json h = parse_json_object(hello.payload, "HELLO");
    const bool current = h.contains("protocol") && h["protocol"] == kProtocolVersion;
    const bool legacy = h.contains("protocol") && h["protocol"] == kLegacyProtocol;
    if (!current && !legacy) {
      // Version skew (the bridge is upgraded on its host apart from the gateway): said here, at
      // the handshake, in words an operator can act on; /health reports `version_mismatch`. An
      // older bridge of protocol 1 is still served, with its uncompressed rows.
      std::string bridge;
      if (h.contains("bridge") && h["bridge"].is_string()) bridge = " (bridge " + h["bridge"].get<std::string>().substr(0, 64) + ")";
      std::string theirs = h.value("protocol", json()).dump().substr(0, 64);
      throw VersionSkew("bridge at " + where + " speaks protocol " + theirs + bridge + ", this gateway speaks protocol " +
                        std::to_string(kProtocolVersion) + " (and " + std::to_string(kLegacyProtocol) +
                        "): upgrade the older of the two");
    }
    std::string ns;
    if (!h.contains("nonce") || !h["nonce"].is_string() || !from_hex(h["nonce"].get<std::string>(), ns) || ns.size() != 32)
      throw ProtocolError("HELLO nonce is not 32 hex-encoded bytes");
    std::string nc = random_bytes(32);
    json auth{{"protocol", current ? kProtocolVersion : kLegacyProtocol},
              {"nonce", to_hex(nc.data(), nc.size())},
              {"mac", mac_hex(o.secret, kClientLabel, ns, nc)}};
    c->protocol_ = current ? kProtocolVersion : kLegacyProtocol;
    if (current) {
      // §4: the bridge offers, this side chooses; none is always there.
      bool offered = false;
      if (h.contains("compression") && h["compression"].is_array())
        for (const auto& name : h["compression"]) offered = offered || name == "zstd";
      const bool want = o.compression == Compression::Zstd ||
                        (o.compression == Compression::Auto && !loopback_host(o.host));
      c->zstd_ = want && offered;
      auth["compression"] = c->zstd_ ? "zstd" : "none";
    }
    c->write_json(FrameType::Auth, 0, auth);
    Frame reply = c->read(kMaxHandshakePayload, deadline);
    if (reply.header.type == FrameType::Error) {
      WireError e = parse_error(reply.payload);
      if (e.kind == "auth_failed")
        throw unavailable("bridge at " + where + " refused authentication: TRADEAPI_BRIDGE_SECRET differs from the bridge's");
      if (e.kind == "protocol")  // the bridge does not speak our version (§4)
        throw VersionSkew("bridge at " + where + " refused this gateway's protocol " + std::to_string(c->protocol_) +
                          ": " + e.message + "; upgrade the older of the two");
      throw unavailable("bridge at " + where + " refused the handshake: " + e.kind + " " + e.message);
    }
    if (reply.header.type != FrameType::AuthOk) throw ProtocolError("expected AUTH_OK");
    json ok = parse_json_object(reply.payload, "AUTH_OK");
    std::string expected = mac_hex(o.secret, kServerLabel, ns, nc);
    std::string got = ok.contains("mac") && ok["mac"].is_string() ? ok["mac"].get<std::string>() : std::string();
    std::transform(got.begin(), got.end(), got.begin(), [](char ch) { return static_cast<char>(std::tolower(static_cast<unsigned char>(ch))); });
    if (!equal_constant_time(got, expected))
      throw unavailable("bridge at " + where + " failed to prove the shared secret (not our bridge?); connection closed");
    c->socket_.set_io_timeout(o.io_timeout_ms);
    c->io_timeout_ms_ = o.io_timeout_ms;
  } catch (const SocketError& e) {
    throw unavailable("bridge handshake with " + where + " failed: " + e.what());
  } catch (const ProtocolError& e) {
    throw unavailable("bridge handshake with " + where + " failed: protocol error: " + e.what());
  }
  return c;
}

uint32_t Connection::next_request_id() {
  if (++last_id_ == 0) last_id_ = 1;
  return last_id_;
}

void Connection::write(FrameType type, uint32_t request_id, const void* payload, size_t n) {
  if (n > kMaxPayload) throw ProtocolError("request over 16 MiB");
  auto h = encode_header(type, request_id, static_cast<uint32_t>(n));
  if (n <= 4096) {  // one send for small frames
    std::string buf(reinterpret_cast<const char*>(h.data()), h.size());
    buf.append(static_cast<const char*>(payload), n);
    socket_.send_all(buf.data(), buf.size());
    return;
  }
  socket_.send_all(h.data(), h.size());
  socket_.send_all(payload, n);
}

void Connection::write_json(FrameType type, uint32_t request_id, const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  write(type, request_id, s.data(), s.size());
}

Frame Connection::read() {
  auto deadline = io_timeout_ms_ > 0 ? std::chrono::steady_clock::now() + std::chrono::milliseconds(io_timeout_ms_)
                                     : Socket::Deadline::max();
  return read(kMaxPayload, deadline);
}

Frame Connection::read(uint32_t max_length, Socket::Deadline deadline) {
  uint8_t h[kHeaderSize];
  if (!socket_.recv_exact(h, sizeof h, /*allow_eof=*/true, deadline)) throw SocketError("connection closed by the bridge");
  Frame f{decode_header(h), {}};
  if (f.header.length > max_length)
    throw ProtocolError(std::string(frame_type_name(f.header.type)) + " of " + std::to_string(f.header.length) +
                        " bytes before authentication (at most " + std::to_string(max_length) + ")");
  f.payload.resize(f.header.length);
  if (f.header.length > 0) socket_.recv_exact(f.payload.data(), f.payload.size(), false, deadline);
  return f;
}

void Connection::cancel_series(uint32_t id) {
  write(FrameType::SeriesCancel, id, "", 0);
  cancelling_ = id;
}

void Connection::finish_cancel() {
  // Bounded: after the cancel the bridge has at most the chunks of the credits already granted.
  while (cancelling_ != 0) {
    Frame f = read();
    if (f.header.type == FrameType::Pong) continue;
    if (f.header.request_id != cancelling_) throw ProtocolError("frame for another request while cancelling a series");
    switch (f.header.type) {
      case FrameType::SeriesHead:
      case FrameType::SeriesChunk:
        continue;
      case FrameType::SeriesEnd:  // crossed the cancel
      case FrameType::Error:      // cancelled (or the series failed meanwhile)
        cancelling_ = 0;
        return;
      default:
        throw ProtocolError(std::string("unexpected ") + frame_type_name(f.header.type) + " while cancelling a series");
    }
  }
}

// ---- ConnectionPool -------------------------------------------------------------------------

std::unique_ptr<Connection> ConnectionPool::acquire(bool& reused) {
  if (interrupter_->interrupted()) throw unavailable("bridge client closed");
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      reused = true;
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
    auto now = std::chrono::steady_clock::now();
    if (now < next_attempt_) {
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next_attempt_ - now).count();
      throw unavailable(last_failure_ + " (next attempt in " + std::to_string(ms) + " ms)");
    }
  }
  reused = false;
  try {
    auto c = Connection::open(options_, interrupter_);
    std::lock_guard<std::mutex> lock(mu_);
    delay_ms_ = 0;
    next_attempt_ = {};
    unreachable_since_ = 0;
    skew_ = false;
    return c;
  } catch (const VersionSkew& e) {
    failed(e.what());
    std::lock_guard<std::mutex> lock(mu_);
    skew_ = true;
    throw;
  } catch (const TerminalError& e) {
    failed(e.what());
    std::lock_guard<std::mutex> lock(mu_);
    skew_ = false;
    throw;
  }
}

void ConnectionPool::release(std::unique_ptr<Connection> c) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < options_.max_idle) idle_.push_back(std::move(c));
}

void ConnectionPool::failed(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  delay_ms_ = delay_ms_ == 0 ? options_.backoff_initial_ms : std::min(delay_ms_ * 2, options_.backoff_max_ms);
  next_attempt_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(delay_ms_);
  last_failure_ = why;
  if (unreachable_since_ == 0) unreachable_since_ = unix_now();
  idle_.clear();  // they reach the same bridge: presumably gone too
}

void ConnectionPool::interrupt() {
  interrupter_->interrupt();  // first: idle connections' destructors take the interrupter's lock
  std::vector<std::unique_ptr<Connection>> idle;
  {
    std::lock_guard<std::mutex> lock(mu_);
    idle.swap(idle_);
  }
}

void ConnectionPool::stalled(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stalled_since_ == 0) stalled_since_ = unix_now();
  stalled_why_ = why;
}

void ConnectionPool::answered() {
  std::lock_guard<std::mutex> lock(mu_);
  stalled_since_ = 0;
  stalled_why_.clear();
}

double ConnectionPool::stalled_since(std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  why = stalled_why_;
  return stalled_since_;
}

bool ConnectionPool::version_skew() {
  std::lock_guard<std::mutex> lock(mu_);
  return skew_;
}

double ConnectionPool::unreachable_since() {
  std::lock_guard<std::mutex> lock(mu_);
  return unreachable_since_;
}

// ---- Series ---------------------------------------------------------------------------------

namespace {

// Chunks come as columns (protocol 2: ColumnChunk, decoded straight into the columns) or, from an
// older bridge, as the package's rows (protocol 1: Transposer). next() fills `out` up to max_rows
// across chunks, so that the consumer gets the chunk size it asked for whatever the bridge sends.
template <typename Columns>
class BridgeCursor : public SeriesCursor<Columns> {
 public:
  BridgeCursor(std::shared_ptr<ConnectionPool> pool, std::unique_ptr<Connection> conn, uint32_t id,
               const RowLayout& layout, std::string op)
      : pool_(std::move(pool)), conn_(std::move(conn)), id_(id), columns_(conn_->protocol() >= kProtocolVersion),
        op_(std::move(op)) {
    if (columns_) dec_.emplace(layout);
    else tr_.emplace(layout);
  }

  ~BridgeCursor() override {
    // Abandoned mid-series: SERIES_CANCEL, and the connection goes back to the pool; the next call
    // that takes it drains the rest (on the worker: this may run on the JS thread). If even the
    // cancel cannot be sent, closing is the cancel (the bridge drops what it was doing, §9).
    if (!conn_) return;
    try {
      conn_->cancel_series(id_);
      pool_->release(std::move(conn_));
    } catch (...) {
      if (conn_) conn_->close();
    }
  }

  bool next(size_t max_rows, Columns& out) override {
    clear_columns(out);
    if (error_) throw *error_;
    if (max_rows == 0) max_rows = 1;
    while (out.rows() < max_rows) {
      const size_t left = columns_ ? chunk_.left() : rows_left();
      if (left > 0) {
        size_t n = std::min(max_rows - out.rows(), left);
        if (columns_) {
          try {
            dec_->append(chunk_, n, out);
          } catch (const ProtocolError& e) {
            fail(unavailable("bridge protocol error during " + where() + ": " + e.what()), false);
          }
        } else {
          tr_->append(reinterpret_cast<const uint8_t*>(raw_.data()) + pos_ * tr_->itemsize(), n, out);
          pos_ += n;
        }
        continue;
      }
      if (done_) break;
      if (out.rows() == 0) {
        read_frame();
        continue;
      }
      // Rows in hand: more only if the next frame is already here (a bridge ahead of us, the usual
      // case of a bulk pull), never by waiting for it: a slow terminal's rows go out as they come.
      // A failure of that frame must not take the rows with it: they are returned, and the
      // failure (kept in error_) is thrown by the next call.
      if (!conn_ || !conn_->frame_waiting()) break;
      try {
        read_frame();
      } catch (const TerminalError&) {
        return true;
      }
    }
    return out.rows() > 0;
  }

 private:
  size_t rows_left() const { return raw_rows_ - pos_; }

  [[noreturn]] void fail(TerminalError e, bool connection_lost) {
    if (conn_) conn_->close();
    conn_.reset();
    if (connection_lost) pool_->failed(e.what());
    raw_.clear();
    raw_rows_ = pos_ = 0;
    chunk_ = ColumnChunk();
    done_ = true;
    error_ = e;
    throw e;
  }

  std::string where() const { return op_ + " after " + std::to_string(received_) + " rows"; }

  void read_frame() {
    Frame f;
    try {
      f = conn_->read();
      if (f.header.request_id != id_) throw ProtocolError("frame for another request");
    } catch (const SocketTimeout& e) {
      pool_->stalled("bridge series " + where() + ": " + e.what());
      fail(timed_out("bridge series " + where() + ": " + e.what()), false);
    } catch (const SocketError& e) {
      fail(unavailable("bridge connection lost during " + where() + ": " + e.what()), true);
    } catch (const ProtocolError& e) {
      fail(unavailable("bridge protocol error during " + where() + ": " + e.what()), false);
    }
    switch (f.header.type) {
      case FrameType::SeriesChunk: {
        if (columns_) {
          try {
            chunk_.reset(dec_->layout(), std::move(f.payload), zstd_);
          } catch (const ProtocolError& e) {
            fail(unavailable("bridge protocol error during " + where() + ": " + e.what()), false);
          }
          received_ += chunk_.rows();
        } else {
          if (f.payload.empty() || f.payload.size() % tr_->itemsize() != 0)
            fail(unavailable("bridge protocol error during " + where() + ": chunk is not whole rows"), false);
          raw_ = std::move(f.payload);
          raw_rows_ = raw_.size() / tr_->itemsize();
          pos_ = 0;
          received_ += raw_rows_;
        }
        uint8_t credit[4];
        store_u32le(credit, 1);
        try {
          conn_->write(FrameType::SeriesNext, id_, credit, sizeof credit);
        } catch (const SocketError& e) {
          fail(unavailable("bridge connection lost during " + where() + ": " + e.what()), true);
        }
        return;
      }
      case FrameType::SeriesEnd: {
        int64_t rows = -1;
        try {
          json j = parse_json_object(f.payload, "SERIES_END");
          if (j.contains("rows") && j["rows"].is_number_integer()) rows = j["rows"].get<int64_t>();
        } catch (const ProtocolError&) {
        }
        if (rows < 0 || static_cast<uint64_t>(rows) != received_)
          fail(TerminalError(ErrorKind::CallFailed, -1,
                             "bridge series " + where() + " ended claiming " + std::to_string(rows) + " rows"),
               false);
        done_ = true;
        pool_->release(std::move(conn_));
        return;
      }
      case FrameType::Error: {
        TerminalError e = TerminalError(ErrorKind::CallFailed, -1, "");
        try {
          e = error_from_frame(f.payload);
        } catch (const ProtocolError& pe) {
          fail(unavailable(std::string("bridge protocol error: ") + pe.what()), false);
        }
        pool_->release(std::move(conn_));  // an ERROR never closes the connection (§6)
        fail(e, false);
      }
      case FrameType::Pong:
        return;
      default:
        fail(unavailable(std::string("bridge protocol error during ") + where() + ": unexpected " +
                         frame_type_name(f.header.type)),
             false);
    }
  }

  std::shared_ptr<ConnectionPool> pool_;
  std::unique_ptr<Connection> conn_;
  uint32_t id_;
  bool columns_;
  std::optional<ColumnDecoder<Columns>> dec_;  // protocol 2
  std::optional<Transposer<Columns>> tr_;      // protocol 1
  std::string op_;
  ColumnChunk chunk_;
  ZstdDecoder zstd_;
  std::string raw_;  // protocol 1: the chunk's rows
  size_t raw_rows_ = 0, pos_ = 0;
  uint64_t received_ = 0;
  bool done_ = false;
  std::optional<TerminalError> error_;
};

// Sends one REQUEST and reads the first reply frame. A pooled connection that proves dead before
// any reply is replaced once by a fresh one when retry_safe; for other ops a pooled connection is
// first checked with PING, so a REQUEST is only ever sent once.
std::pair<std::unique_ptr<Connection>, Frame> exchange(ConnectionPool& pool, const json& request, const char* op,
                                                       bool retry_safe) {
  // bridge_status never waits for the terminal: its answer says nothing about stuck calls.
  const bool status_op = std::string(op) == "bridge_status";
  for (int attempt = 0;; ++attempt) {
    bool reused = false;
    auto c = pool.acquire(reused);
    bool sent = false;
    if (c->cancelling()) {
      try {
        c->finish_cancel();
      } catch (const SocketTimeout&) {  // a hung bridge: waiting on a fresh connection would not help
        c->close();
        std::string why = std::string("bridge did not finish a cancelled series in time (before ") + op + ")";
        pool.stalled(why);
        throw timed_out(why);
      } catch (const std::exception&) {  // SocketError, ProtocolError: that connection is done
        c->close();
        --attempt;  // not the request's fault: the pool has fewer idle connections now
        continue;
      }
    }
    try {
      if (reused && !retry_safe) {
        uint32_t pid = c->next_request_id();
        c->write(FrameType::Ping, pid, "p", 1);
        Frame pong = c->read();
        if (pong.header.type != FrameType::Pong || pong.header.request_id != pid) throw ProtocolError("expected PONG");
      }
      uint32_t id = c->next_request_id();
      sent = true;
      c->write_json(FrameType::Request, id, request);
      Frame f = c->read();
      if (f.header.request_id != id) throw ProtocolError("reply carries another request id");
      if (!status_op) pool.answered();
      return {std::move(c), std::move(f)};
    } catch (const SocketTimeout& e) {
      c->close();
      std::string why = std::string("bridge did not answer ") + op + " in time";
      if (!status_op) pool.stalled(why);
      throw timed_out(why);
    } catch (const SocketError& e) {
      c->close();
      if (reused && attempt == 0 && (retry_safe || !sent)) continue;
      pool.failed(std::string("bridge connection lost: ") + e.what());
      throw unavailable(std::string("bridge connection lost: ") + e.what());
    } catch (const ProtocolError& e) {
      c->close();
      throw unavailable(std::string("bridge protocol error: ") + e.what());
    }
  }
}

}  // namespace

// ---- BridgeTerminal -------------------------------------------------------------------------

BridgeTerminal::BridgeTerminal(BridgeOptions options)
    : pool_(std::make_shared<ConnectionPool>(std::move(options))) {}

template <typename F>
auto BridgeTerminal::guarded(F&& f) -> decltype(f()) {
  try {
    auto r = f();
    last_error_ = LastError{};
    return r;
  } catch (const TerminalError& e) {
    last_error_ = LastError{e.code(), e.what()};
    throw;
  }
}

// REQUEST's timeout_ms (§5): the bridge gives up on the terminal call a little before this client
// stops reading, so a slow call ends as ERROR `timeout` on a connection that stays usable, and a
// call still queued on the bridge when its time is up is never run for nobody.
static int64_t request_timeout_ms(const BridgeOptions& o) { return std::max(1, o.io_timeout_ms * 3 / 4); }

json BridgeTerminal::call(const char* op, json args, bool retry_safe) {
  json request{{"op", op}, {"timeout_ms", request_timeout_ms(pool_->options())}};
  if (!args.is_null()) request["args"] = std::move(args);
  auto [conn, f] = exchange(*pool_, request, op, retry_safe);
  try {
    switch (f.header.type) {
      case FrameType::Result: {
        json j = parse_json_object(f.payload, "RESULT");
        if (!j.contains("value")) throw ProtocolError("RESULT without value");
        pool_->release(std::move(conn));
        return std::move(j["value"]);
      }
      case FrameType::Error: {
        TerminalError e = error_from_frame(f.payload);
        pool_->release(std::move(conn));
        throw e;
      }
      default:
        throw ProtocolError(std::string("unexpected ") + frame_type_name(f.header.type) + " for " + op);
    }
  } catch (const ProtocolError& e) {
    if (conn) conn->close();
    throw unavailable(std::string("bridge protocol error: ") + e.what());
  }
}

// Chunk credits granted up front (§7): a compact chunk is tens of KB, so a few in flight keep a link
// with some latency busy (100 Mbit/s x 20 ms holds ~250 KB). What they can hold is bounded: at most
// 8 chunks of at most 1 MiB of rows each (the bridge's --chunk-bytes) wait in the sockets' buffers.
constexpr int kSeriesWindow = 8;

template <typename Columns>
std::unique_ptr<SeriesCursor<Columns>> BridgeTerminal::series(const char* op, json args) {
  json request{{"op", op}, {"args", std::move(args)}, {"window", kSeriesWindow}, {"timeout_ms", request_timeout_ms(pool_->options())}};
  auto [conn, f] = exchange(*pool_, request, op, true);
  try {
    switch (f.header.type) {
      case FrameType::SeriesHead: {
        json j = parse_json_object(f.payload, "SERIES_HEAD");
        if (!j.contains("dtype")) throw ProtocolError("SERIES_HEAD without dtype");
        RowLayout layout = parse_dtype(j["dtype"]);
        uint32_t id = f.header.request_id;
        return std::make_unique<BridgeCursor<Columns>>(pool_, std::move(conn), id, layout, op);
      }
      case FrameType::Error: {
        TerminalError e = error_from_frame(f.payload);
        pool_->release(std::move(conn));
        throw e;
      }
      default:
        throw ProtocolError(std::string("unexpected ") + frame_type_name(f.header.type) + " for " + op);
    }
  } catch (const ProtocolError& e) {
    if (conn) conn->close();
    throw unavailable(std::string("bridge protocol error: ") + e.what());
  }
}

namespace {

template <typename R>
R record(const json& v) {
  R r;
  FromJson(v, r);
  return r;
}

template <typename R>
std::vector<R> records(const json& v, const char* what) {
  if (!v.is_array()) throw TerminalError(ErrorKind::CallFailed, -1, std::string("bridge answer: ") + what + " is not an array");
  std::vector<R> out;
  out.reserve(v.size());
  for (const auto& item : v) out.push_back(record<R>(item));
  return out;
}

int64_t integer(const json& v, const char* op) {
  if (!v.is_number_integer()) throw TerminalError(ErrorKind::CallFailed, -1, std::string("bridge answer to ") + op + " is not an integer");
  return v.get<int64_t>();
}

double number(const json& v, const char* op) {
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v.is_number()) throw TerminalError(ErrorKind::CallFailed, -1, std::string("bridge answer to ") + op + " is not a number");
  return v.get<double>();
}

bool boolean(const json& v, const char* op) {
  if (!v.is_boolean()) throw TerminalError(ErrorKind::CallFailed, -1, std::string("bridge answer to ") + op + " is not a boolean");
  return v.get<bool>();
}

json trade_filter_args(const TradeFilter& f) {
  json a = json::object();
  if (f.symbol) a["symbol"] = *f.symbol;
  if (f.group) a["group"] = *f.group;
  if (f.ticket) a["ticket"] = *f.ticket;
  return a;
}

json history_filter_args(const HistoryFilter& f) {
  json a = json::object();
  if (f.date_from) a["date_from"] = *f.date_from;
  if (f.date_to) a["date_to"] = *f.date_to;
  if (f.ticket) a["ticket"] = *f.ticket;
  if (f.position) a["position"] = *f.position;
  if (f.group) a["group"] = *f.group;
  if (f.symbol) a["symbol"] = *f.symbol;
  return a;
}

}  // namespace

Version BridgeTerminal::version() {
  return guarded([&] {
    json v = call("version", nullptr);
    if (!v.is_array() || v.size() != 3 || !v[0].is_number_integer() || !v[1].is_number_integer() || !v[2].is_string())
      throw TerminalError(ErrorKind::CallFailed, -1, "bridge answer to version is not [int, int, str]");
    return Version{v[0].get<int64_t>(), v[1].get<int64_t>(), v[2].get<std::string>()};
  });
}

BridgeStatus BridgeTerminal::bridge_status() {
  BridgeStatus st;
  json v;
  try {
    v = call("bridge_status", nullptr);
  } catch (const TerminalError& e) {
    // Unreachable, refused, lost, or hung (bridge_status never waits for the terminal, so a
    // timeout means the bridge itself does not answer).
    if (e.kind() != ErrorKind::Unavailable && e.kind() != ErrorKind::Timeout) throw;
    st.reachable = false;
    st.version_mismatch = pool_->version_skew();
    st.since = pool_->unreachable_since();
    st.error = LastError{e.code(), e.what()};
    return st;
  }
  if (!v.is_object() || !v.contains("terminal_connected") || !v["terminal_connected"].is_boolean())
    throw TerminalError(ErrorKind::CallFailed, -1, "bridge answer to bridge_status is not a status object");
  st.reachable = true;
  st.terminal_connected = v["terminal_connected"].get<bool>();
  std::string why;
  if (double stalled = pool_->stalled_since(why); stalled != 0) {
    // The bridge answers this op but its calls time out: say so rather than "ok".
    st.answering = false;
    st.since = stalled;
    st.error = LastError{-10005, why};
    if (v.contains("reconnects") && v["reconnects"].is_number_integer()) st.reconnects = v["reconnects"].get<int64_t>();
    return st;
  }
  if (v.contains("since") && v["since"].is_number()) st.since = v["since"].get<double>();
  if (v.contains("reconnects") && v["reconnects"].is_number_integer()) st.reconnects = v["reconnects"].get<int64_t>();
  if (v.contains("last_error") && v["last_error"].is_object()) {
    const json& le = v["last_error"];
    LastError e{-1, ""};
    if (le.contains("code") && le["code"].is_number_integer()) e.code = le["code"].get<int64_t>();
    if (le.contains("message") && le["message"].is_string()) e.description = le["message"].get<std::string>();
    st.error = e;
  }
  return st;
}

// The client's own last error (§8: the bridge's last_error is any client's).
LastError BridgeTerminal::last_error() { return last_error_; }

TerminalInfo BridgeTerminal::terminal_info() {
  return guarded([&] { return record<TerminalInfo>(call("terminal_info", nullptr)); });
}
AccountInfo BridgeTerminal::account_info() {
  return guarded([&] { return record<AccountInfo>(call("account_info", nullptr)); });
}
int64_t BridgeTerminal::symbols_total() {
  return guarded([&] { return integer(call("symbols_total", nullptr), "symbols_total"); });
}
std::vector<SymbolInfo> BridgeTerminal::symbols_get(const std::optional<std::string>& group) {
  return guarded([&] {
    json a = json::object();
    if (group) a["group"] = *group;
    return records<SymbolInfo>(call("symbols_get", a), "symbols_get");
  });
}
SymbolInfo BridgeTerminal::symbol_info(const std::string& symbol) {
  return guarded([&] { return record<SymbolInfo>(call("symbol_info", json{{"symbol", symbol}})); });
}
Tick BridgeTerminal::symbol_info_tick(const std::string& symbol) {
  return guarded([&] { return record<Tick>(call("symbol_info_tick", json{{"symbol", symbol}})); });
}
bool BridgeTerminal::symbol_select(const std::string& symbol, bool enable) {
  return guarded([&] {
    return boolean(call("symbol_select", json{{"symbol", symbol}, {"enable", enable}}, false), "symbol_select");
  });
}
bool BridgeTerminal::market_book_add(const std::string& symbol) {
  return guarded([&] { return boolean(call("market_book_add", json{{"symbol", symbol}}, false), "market_book_add"); });
}
std::vector<BookInfo> BridgeTerminal::market_book_get(const std::string& symbol) {
  return guarded([&] { return records<BookInfo>(call("market_book_get", json{{"symbol", symbol}}), "market_book_get"); });
}
bool BridgeTerminal::market_book_release(const std::string& symbol) {
  return guarded([&] {
    return boolean(call("market_book_release", json{{"symbol", symbol}}, false), "market_book_release");
  });
}

std::unique_ptr<RateCursor> BridgeTerminal::copy_rates_from(const std::string& symbol, int64_t timeframe,
                                                            int64_t date_from, int64_t count) {
  return guarded([&] {
    return series<RateColumns>("copy_rates_from",
                               json{{"symbol", symbol}, {"timeframe", timeframe}, {"date_from", date_from}, {"count", count}});
  });
}
std::unique_ptr<RateCursor> BridgeTerminal::copy_rates_from_pos(const std::string& symbol, int64_t timeframe,
                                                                int64_t start_pos, int64_t count) {
  return guarded([&] {
    return series<RateColumns>("copy_rates_from_pos",
                               json{{"symbol", symbol}, {"timeframe", timeframe}, {"start_pos", start_pos}, {"count", count}});
  });
}
std::unique_ptr<RateCursor> BridgeTerminal::copy_rates_range(const std::string& symbol, int64_t timeframe,
                                                             int64_t date_from, int64_t date_to) {
  return guarded([&] {
    return series<RateColumns>("copy_rates_range",
                               json{{"symbol", symbol}, {"timeframe", timeframe}, {"date_from", date_from}, {"date_to", date_to}});
  });
}
std::unique_ptr<TickCursor> BridgeTerminal::copy_ticks_from(const std::string& symbol, int64_t date_from_msc,
                                                            int64_t count, int64_t flags) {
  return guarded([&] {
    return series<TickColumns>("copy_ticks_from",
                               json{{"symbol", symbol}, {"date_from_msc", date_from_msc}, {"count", count}, {"flags", flags}});
  });
}
std::unique_ptr<TickCursor> BridgeTerminal::copy_ticks_range(const std::string& symbol, int64_t date_from_msc,
                                                             int64_t date_to_msc, int64_t flags) {
  return guarded([&] {
    return series<TickColumns>(
        "copy_ticks_range",
        json{{"symbol", symbol}, {"date_from_msc", date_from_msc}, {"date_to_msc", date_to_msc}, {"flags", flags}});
  });
}

double BridgeTerminal::order_calc_margin(int64_t action, const std::string& symbol, double volume, double price) {
  return guarded([&] {
    return number(call("order_calc_margin", json{{"action", action}, {"symbol", symbol}, {"volume", volume}, {"price", price}}),
                  "order_calc_margin");
  });
}
double BridgeTerminal::order_calc_profit(int64_t action, const std::string& symbol, double volume, double price_open,
                                         double price_close) {
  return guarded([&] {
    return number(call("order_calc_profit", json{{"action", action},
                                                 {"symbol", symbol},
                                                 {"volume", volume},
                                                 {"price_open", price_open},
                                                 {"price_close", price_close}}),
                  "order_calc_profit");
  });
}
OrderCheckResult BridgeTerminal::order_check(const TradeRequest& request) {
  return guarded([&] { return record<OrderCheckResult>(call("order_check", json{{"request", ToJson(request)}})); });
}

int64_t BridgeTerminal::positions_total() {
  return guarded([&] { return integer(call("positions_total", nullptr), "positions_total"); });
}
std::vector<TradePosition> BridgeTerminal::positions_get(const TradeFilter& filter) {
  return guarded([&] { return records<TradePosition>(call("positions_get", trade_filter_args(filter)), "positions_get"); });
}
int64_t BridgeTerminal::orders_total() {
  return guarded([&] { return integer(call("orders_total", nullptr), "orders_total"); });
}
std::vector<TradeOrder> BridgeTerminal::orders_get(const TradeFilter& filter) {
  return guarded([&] { return records<TradeOrder>(call("orders_get", trade_filter_args(filter)), "orders_get"); });
}
int64_t BridgeTerminal::history_orders_total(int64_t date_from, int64_t date_to) {
  return guarded([&] {
    return integer(call("history_orders_total", json{{"date_from", date_from}, {"date_to", date_to}}), "history_orders_total");
  });
}
std::vector<TradeOrder> BridgeTerminal::history_orders_get(const HistoryFilter& filter) {
  return guarded([&] {
    return records<TradeOrder>(call("history_orders_get", history_filter_args(filter)), "history_orders_get");
  });
}
int64_t BridgeTerminal::history_deals_total(int64_t date_from, int64_t date_to) {
  return guarded([&] {
    return integer(call("history_deals_total", json{{"date_from", date_from}, {"date_to", date_to}}), "history_deals_total");
  });
}
std::vector<TradeDeal> BridgeTerminal::history_deals_get(const HistoryFilter& filter) {
  return guarded([&] {
    return records<TradeDeal>(call("history_deals_get", history_filter_args(filter)), "history_deals_get");
  });
}

}  // namespace tradeapi::bridge
