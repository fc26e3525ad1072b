// The bridge client against a fake bridge: a loopback TCP server on a thread that does the
// handshake of docs/bridge-protocol.md §4 with a known secret and then misbehaves on purpose. Each
// misbehaviour must surface as a clean TerminalError (never a crash, a hang, or a series that looks
// complete).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "bridge/bridge_terminal.h"
#include "bridge/frame.h"
#include "bridge/series_columns.h"
#include "bridge/sha256.h"
#include "bridge_chunk_fixture.h"
#include "loopback_socket.h"

using namespace tradeapi;
using namespace tradeapi::bridge;
using nlohmann::json;
using loopback::Sock;

namespace {

const std::string kSecret = "fake-bridge-secret-0123456789";

// One accepted connection, seen from the bridge's side. Every read waits at most a few seconds so
// that a test whose client misbehaves fails instead of hanging.
class Peer {
 public:
  explicit Peer(Sock fd) : fd_(fd) {}
  ~Peer() { close(); }

  void close() {
    if (fd_ != loopback::kNoSock) loopback::close_sock(fd_);
    fd_ = loopback::kNoSock;
  }

  void send_raw(const void* p, size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
      long long k = loopback::send_some(fd_, c, n);
      if (k <= 0) return;  // the client went away: nothing left to tell it
      c += k;
      n -= static_cast<size_t>(k);
    }
  }
  void send(FrameType t, uint32_t id, const std::string& payload) {
    auto h = encode_header(t, id, static_cast<uint32_t>(payload.size()));
    std::string buf(reinterpret_cast<const char*>(h.data()), h.size());
    send_raw((buf + payload).data(), buf.size() + payload.size());
  }
  void send_json(FrameType t, uint32_t id, const json& j) { send(t, id, j.dump()); }

  // false on EOF or after timeout_ms without a byte.
  bool recv_exact(void* p, size_t n, int timeout_ms = 5000) {
    char* c = static_cast<char*>(p);
    while (n > 0) {
      if (loopback::wait_readable(fd_, timeout_ms) <= 0) return false;
      long long k = loopback::recv_some(fd_, c, n);
      if (k <= 0) return false;
      c += k;
      n -= static_cast<size_t>(k);
    }
    return true;
  }
  // A frame from the client; false on EOF/timeout.
  bool read(FrameHeader& h, std::string& payload, int timeout_ms = 5000) {
    uint8_t b[kHeaderSize];
    if (!recv_exact(b, sizeof b, timeout_ms)) return false;
    h = decode_header(b);
    payload.assign(h.length, '\0');
    return h.length == 0 || recv_exact(payload.data(), payload.size(), timeout_ms);
  }
  // Reads until a REQUEST (skipping SERIES_NEXT and the like); its id, or 0 on EOF/timeout.
  uint32_t read_request(json* body = nullptr) {
    FrameHeader h{};
    std::string p;
    while (read(h, p)) {
      if (h.type == FrameType::Request) {
        if (body) *body = json::parse(p);
        return h.request_id;
      }
    }
    return 0;
  }
  // Waits until the client closes the connection (true) or timeout_ms passes (false), discarding
  // whatever it sends meanwhile.
  bool wait_closed(int timeout_ms = 5000) {
    if (fd_ == loopback::kNoSock) return true;
    char buf[256];
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      if (loopback::wait_readable(fd_, static_cast<int>(left.count())) <= 0) continue;
      if (loopback::recv_some(fd_, buf, sizeof buf) <= 0) return true;
    }
  }

  // §4 from the bridge's side. Returns false if the client's AUTH is not what the secret proves.
  // protocol 1: an older bridge (series as rows); 2 offers `offered` compression. The client's
  // AUTH is kept in auth.
  bool handshake(bool wrong_proof = false, int protocol = 1, json offered = json::array({"zstd", "none"})) {
    std::string ns(32, '\x5a');
    for (size_t i = 0; i < ns.size(); ++i) ns[i] = static_cast<char>(i * 7 + 1);
    json hello{{"protocol", protocol}, {"nonce", to_hex(ns.data(), ns.size())}, {"bridge", "fake"}};
    if (protocol >= 2) hello["compression"] = offered;
    send_json(FrameType::Hello, 0, hello);
    FrameHeader h{};
    std::string p;
    if (!read(h, p) || h.type != FrameType::Auth) return false;
    json a = json::parse(p);
    auth = a;
    if (a.value("protocol", 0) != protocol) return false;
    std::string nc;
    if (!from_hex(a.at("nonce").get<std::string>(), nc)) return false;
    std::string client_mac = to_hex(hmac_sha256(kSecret, "tradeapi-bridge/1 client" + ns + nc));
    if (a.at("mac").get<std::string>() != client_mac) return false;
    std::string server_mac = to_hex(hmac_sha256(wrong_proof ? kSecret + "x" : kSecret, "tradeapi-bridge/1 server" + ns + nc));
    send_json(FrameType::AuthOk, 0, {{"mac", server_mac}});
    return true;
  }

  json auth;

 private:
  Sock fd_;
};

// Serves each accepted connection with `script` on its own thread, one connection at a time.
class FakeBridge {
 public:
  using Script = std::function<void(Peer&, int /*connection index*/)>;

  explicit FakeBridge(Script script) : script_(std::move(script)) {
    loopback::init();
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const char*>(&one), sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_fd_, 8) != 0)
      throw std::runtime_error("fake bridge cannot listen");
    loopback::AddrLen len = sizeof a;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeBridge() {
    stop_ = true;
    thread_.join();
    loopback::close_sock(listen_fd_);
  }

  uint16_t port() const { return port_; }
  int connections() const { return accepted_; }

  BridgeOptions options(int io_timeout_ms = 5000) const {
    BridgeOptions o;
    o.port = port_;
    o.secret = kSecret;
    o.connect_timeout_ms = 2000;
    o.handshake_timeout_ms = 5000;
    o.io_timeout_ms = io_timeout_ms;
    o.backoff_initial_ms = 1;
    o.backoff_max_ms = 1;
    return o;
  }

 private:
  void serve() {
    while (!stop_) {
      if (loopback::wait_readable(listen_fd_, 50) <= 0) continue;
      Sock fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd == loopback::kNoSock) continue;
      Peer peer(fd);
      script_(peer, accepted_++);
    }
  }

  Script script_;
  Sock listen_fd_ = loopback::kNoSock;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

json tick_dtype() {
  return json::parse(R"({"itemsize": 60, "fields": [
    {"name": "time", "type": "<i8", "offset": 0}, {"name": "bid", "type": "<f8", "offset": 8},
    {"name": "ask", "type": "<f8", "offset": 16}, {"name": "last", "type": "<f8", "offset": 24},
    {"name": "volume", "type": "<u8", "offset": 32}, {"name": "time_msc", "type": "<i8", "offset": 40},
    {"name": "flags", "type": "<u4", "offset": 48}, {"name": "volume_real", "type": "<f8", "offset": 52}]})");
}

// n packed tick rows, time = first..first+n-1.
std::string tick_rows(size_t n, int64_t first = 1704189600) {
  std::string rows(n * 60, '\0');
  for (size_t i = 0; i < n; ++i) {
    int64_t t = first + static_cast<int64_t>(i);
    int64_t msc = t * 1000;
    double bid = 1.1;
    std::memcpy(&rows[i * 60], &t, 8);
    std::memcpy(&rows[i * 60 + 8], &bid, 8);
    std::memcpy(&rows[i * 60 + 40], &msc, 8);
  }
  return rows;
}

void send_head(Peer& p, uint32_t id) { p.send_json(FrameType::SeriesHead, id, {{"dtype", tick_dtype()}}); }

// Drains a cursor; returns the rows seen before it ended or threw, and the error if it threw.
struct Drained {
  size_t rows = 0;
  bool completed = false;
  std::optional<TerminalError> error;
};
Drained drain(TickCursor& c) {
  Drained d;
  TickColumns out;
  try {
    while (c.next(1000, out)) d.rows += out.rows();
    d.completed = true;
  } catch (const TerminalError& e) {
    d.error = e;
  }
  return d;
}

std::unique_ptr<TickCursor> open_ticks(BridgeTerminal& t) { return t.copy_ticks_range("EURUSD", 0, 1000, 0); }

#define EXPECT_KIND(stmt, k)                                  \
  do {                                                        \
    try {                                                     \
      stmt;                                                   \
      ADD_FAILURE() << #stmt " did not throw";                \
    } catch (const TerminalError& e) {                        \
      EXPECT_EQ(e.kind(), k) << e.what();                     \
    }                                                         \
  } while (0)

}  // namespace

// The fake itself: a well-behaved exchange (RESULT, then a complete series on the same connection).
TEST(FakeBridge, WellBehavedSeriesCompletes) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    uint32_t id = p.read_request();
    p.send_json(FrameType::Result, id, {{"value", 7}});
    id = p.read_request();
    send_head(p, id);
    p.send(FrameType::SeriesChunk, id, tick_rows(3));
    p.send(FrameType::SeriesChunk, id, tick_rows(2, 1704189603));
    p.send_json(FrameType::SeriesEnd, id, {{"rows", 5}});
    p.wait_closed();
  });
  BridgeTerminal t(fb.options());
  EXPECT_EQ(t.symbols_total(), 7);
  auto c = open_ticks(t);
  Drained d = drain(*c);
  EXPECT_TRUE(d.completed);
  EXPECT_EQ(d.rows, 5u);
  EXPECT_EQ(fb.connections(), 1);  // the connection was reused
}

TEST(FakeBridge, ReplyWithAnotherRequestIdIsAnError) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    uint32_t id = p.read_request();
    p.send_json(FrameType::Result, id + 1, {{"value", 7}});
    p.wait_closed();
  });
  BridgeTerminal t(fb.options());
  EXPECT_KIND(t.symbols_total(), ErrorKind::Unavailable);
}

TEST(FakeBridge, ChunkWithAnotherRequestIdFailsTheSeries) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    uint32_t id = p.read_request();
    send_head(p, id);
    p.send(FrameType::SeriesChunk, id, tick_rows(2));
    p.send(FrameType::SeriesChunk, id + 5, tick_rows(2));
    p.send_json(FrameType::SeriesEnd, id, {{"rows", 4}});
    p.wait_closed();
  });
  BridgeTerminal t(fb.options());
  auto c = open_ticks(t);
  Drained d = drain(*c);
  EXPECT_FALSE(d.completed);
  ASSERT_TRUE(d.error);
  EXPECT_EQ(d.error->kind(), ErrorKind::Unavailable);
  EXPECT_EQ(d.rows, 2u);
}

TEST(FakeBridge, SeriesEndWithTheWrongRowCountFailsTheSeries) {
  for (int claimed : {4, 6, -1}) {
    FakeBridge fb([claimed](Peer& p, int) {
      if (!p.handshake()) return;
      uint32_t id = p.read_request();
      send_head(p, id);
      p.send(FrameType::SeriesChunk, id, tick_rows(3));
      p.send(FrameType::SeriesChunk, id, tick_rows(2, 1704189603));
      p.send_json(FrameType::SeriesEnd, id, {{"rows", claimed}});
      p.wait_closed();
    });
    BridgeTerminal t(fb.options());
    auto c = open_ticks(t);
    Drained d = drain(*c);
    EXPECT_FALSE(d.completed) << claimed;
    ASSERT_TRUE(d.error) << claimed;
    EXPECT_EQ(d.error->kind(), ErrorKind::CallFailed) << d.error->what();
    // A cursor that failed keeps failing: it never turns into a clean end.
    TickColumns out;
    EXPECT_THROW(c->next(10, out), TerminalError);
  }
}

TEST(FakeBridge, ChunkThatIsNotWholeRowsFailsTheSeries) {
  for (size_t bytes : {size_t{61}, size_t{59}, size_t{0}}) {
    FakeBridge fb([bytes](Peer& p, int) {
      if (!p.handshake()) return;
      uint32_t id = p.read_request();
      send_head(p, id);
      p.send(FrameType::SeriesChunk, id, std::string(bytes, '\1'));
      p.send_json(FrameType::SeriesEnd, id, {{"rows", 1}});
      p.wait_closed();
    });
    BridgeTerminal t(fb.options());
    auto c = open_ticks(t);
    Drained d = drain(*c);
    EXPECT_FALSE(d.completed) << bytes;
    ASSERT_TRUE(d.error) << bytes;
    EXPECT_EQ(d.error->kind(), ErrorKind::Unavailable) << d.error->what();
    EXPECT_EQ(d.rows, 0u);
  }
}

TEST(FakeBridge, GarbageOrOversizedHeaderAfterAuthIsAnError) {
  auto oversized = encode_header(FrameType::Result, 1, 16);
  store_u32le(&oversized[12], kMaxPayload + 1);
  const std::string bad[] = {
      std::string(16, '\xff'),                                                     // garbage
      std::string("XB\1\x11\0\0\0\0\1\0\0\0\2\0\0\0", 16),                          // wrong magic
      std::string(reinterpret_cast<const char*>(oversized.data()), oversized.size()),  // > 16 MiB
      std::string("TB\1\x11\0\0", 6),                                              // cut inside the header
  };
  for (const auto& header : bad) {
    FakeBridge fb([header](Peer& p, int) {
      if (!p.handshake()) return;
      uint32_t id = p.read_request();
      std::string h = header;
      if (h.size() == 16 && h[0] == 'T') store_u32le(reinterpret_cast<uint8_t*>(&h[8]), id);
      p.send_raw(h.data(), h.size());
      if (h.size() < 16) p.close();
      p.wait_closed();
    });
    BridgeTerminal t(fb.options());
    EXPECT_KIND(t.symbols_total(), ErrorKind::Unavailable);
  }
}

TEST(FakeBridge, GarbageHeaderMidSeriesFailsTheSeries) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    uint32_t id = p.read_request();
    send_head(p, id);
    p.send(FrameType::SeriesChunk, id, tick_rows(1));
    std::string junk(16, '\x42');
    p.send_raw(junk.data(), junk.size());
    p.wait_closed();
  });
  BridgeTerminal t(fb.options());
  auto c = open_ticks(t);
  Drained d = drain(*c);
  EXPECT_FALSE(d.completed);
  ASSERT_TRUE(d.error);
  EXPECT_EQ(d.error->kind(), ErrorKind::Unavailable);
}

TEST(FakeBridge, PeerClosingMidSeriesFailsTheCursor) {
  for (bool inside_frame : {false, true}) {
    FakeBridge fb([inside_frame](Peer& p, int) {
      if (!p.handshake()) return;
      uint32_t id = p.read_request();
      send_head(p, id);
      p.send(FrameType::SeriesChunk, id, tick_rows(2));
      if (inside_frame) {  // a header announcing 2 rows, then only half of them
        auto h = encode_header(FrameType::SeriesChunk, id, 120);
        p.send_raw(h.data(), h.size());
        std::string half = tick_rows(1);
        p.send_raw(half.data(), half.size());
      }
      p.close();
    });
    BridgeTerminal t(fb.options());
    auto c = open_ticks(t);
    Drained d = drain(*c);
    EXPECT_FALSE(d.completed) << inside_frame;
    ASSERT_TRUE(d.error) << inside_frame;
    EXPECT_EQ(d.error->kind(), ErrorKind::Unavailable) << d.error->what();
    EXPECT_EQ(d.rows, 2u);
  }
}

TEST(FakeBridge, ImpostorWithTheWrongProofIsRefused) {
  std::atomic<bool> closed{false};
  FakeBridge fb([&closed](Peer& p, int) {
    if (!p.handshake(/*wrong_proof=*/true)) return;
    // The client must close without sending a REQUEST to an impostor.
    FrameHeader h{};
    std::string payload;
    if (!p.read(h, payload, 5000)) closed = true;
  });
  BridgeTerminal t(fb.options());
  try {
    t.symbols_total();
    ADD_FAILURE() << "talked to an impostor";
  } catch (const TerminalError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
    EXPECT_NE(std::string(e.what()).find("prove"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find(kSecret), std::string::npos);
  }
  for (int i = 0; i < 200 && !closed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(closed) << "the client sent a frame after a wrong AUTH_OK or did not close";
}

TEST(FakeBridge, SilentPeerTimesOut) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    p.read_request();
    p.wait_closed(10000);  // says nothing until the client gives up
  });
  BridgeTerminal t(fb.options(/*io_timeout_ms=*/200));
  auto start = std::chrono::steady_clock::now();
  EXPECT_KIND(t.symbols_total(), ErrorKind::Timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(FakeBridge, PeerSilentMidSeriesTimesOut) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    uint32_t id = p.read_request();
    send_head(p, id);
    p.send(FrameType::SeriesChunk, id, tick_rows(2));
    p.wait_closed(10000);
  });
  BridgeTerminal t(fb.options(/*io_timeout_ms=*/200));
  auto c = open_ticks(t);
  auto start = std::chrono::steady_clock::now();
  Drained d = drain(*c);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_FALSE(d.completed);
  ASSERT_TRUE(d.error);
  EXPECT_EQ(d.error->kind(), ErrorKind::Timeout) << d.error->what();
  EXPECT_EQ(d.rows, 2u);
}

namespace {

// The bridge's side of an abandoned series: HEAD and two chunks (the window), then it waits for
// SERIES_CANCEL (skipping SERIES_NEXT), sends one more chunk that crossed the cancel and `last`.
// Returns whether the cancel came, with the series' id.
bool serve_cancelled_series(Peer& p, const std::function<void(uint32_t)>& last) {
  uint32_t id = p.read_request();
  send_head(p, id);
  p.send(FrameType::SeriesChunk, id, tick_rows(3));
  p.send(FrameType::SeriesChunk, id, tick_rows(3, 1704189603));
  FrameHeader h{};
  std::string payload;
  while (p.read(h, payload)) {
    if (h.type == FrameType::SeriesNext) continue;
    if (h.type != FrameType::SeriesCancel || h.request_id != id || !payload.empty()) return false;
    p.send(FrameType::SeriesChunk, id, tick_rows(1, 1704189606));
    last(id);
    return true;
  }
  return false;
}

}  // namespace

TEST(FakeBridge, AbandonedCursorCancelsAndKeepsTheConnection) {
  for (bool end_crossed : {false, true}) {
    std::atomic<bool> cancelled{false};
    FakeBridge fb([&cancelled, end_crossed](Peer& p, int) {
      if (!p.handshake()) return;
      cancelled = serve_cancelled_series(p, [&](uint32_t id) {
        if (end_crossed) p.send_json(FrameType::SeriesEnd, id, {{"rows", 7}});
        else p.send_json(FrameType::Error, id, {{"kind", "cancelled"}, {"code", -1}, {"message", "cancelled"}});
      });
      uint32_t id = p.read_request();  // the next call, on the same connection
      p.send_json(FrameType::Result, id, {{"value", 42}});
      p.wait_closed();
    });
    BridgeTerminal t(fb.options());
    {
      auto c = open_ticks(t);
      TickColumns out;
      ASSERT_TRUE(c->next(2, out));
      EXPECT_EQ(out.rows(), 2u);
    }  // abandoned after 2 of 7 rows
    EXPECT_EQ(t.symbols_total(), 42) << end_crossed;
    EXPECT_TRUE(cancelled) << end_crossed;
    EXPECT_EQ(fb.connections(), 1) << end_crossed;
  }
}

TEST(FakeBridge, CancelAnsweredByACloseFallsBackToAFreshConnection) {
  FakeBridge fb([](Peer& p, int n) {
    if (!p.handshake()) return;
    if (n == 0) {
      serve_cancelled_series(p, [](uint32_t) {});
      p.close();  // instead of ERROR cancelled
      return;
    }
    uint32_t id = p.read_request();
    p.send_json(FrameType::Result, id, {{"value", 5}});
    p.wait_closed();
  });
  BridgeTerminal t(fb.options());
  {
    auto c = open_ticks(t);
    TickColumns out;
    ASSERT_TRUE(c->next(1000, out));
  }
  EXPECT_EQ(t.symbols_total(), 5);
  EXPECT_EQ(fb.connections(), 2);
}

TEST(FakeBridge, CancelThatIsNeverAnsweredTimesOut) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    serve_cancelled_series(p, [](uint32_t) {});
    p.wait_closed(10000);  // never confirms the cancel
  });
  BridgeTerminal t(fb.options(/*io_timeout_ms=*/200));
  {
    auto c = open_ticks(t);
    TickColumns out;
    ASSERT_TRUE(c->next(1000, out));
  }
  auto start = std::chrono::steady_clock::now();
  EXPECT_KIND(t.symbols_total(), ErrorKind::Timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

// ---- Bounds on what the client parses and how long a frame may take (issue 22 items 10, 2) ----

namespace {

std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// The message of the TerminalError `stmt` throws ("" if it throws none).
template <typename F>
std::string error_of(F&& f, ErrorKind* kind = nullptr) {
  try {
    f();
  } catch (const TerminalError& e) {
    if (kind) *kind = e.kind();
    return e.what();
  }
  return "";
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

// An impostor's HELLO declaring 16 MiB: refused from its header (the client reserves nothing and
// waits for none of it), as the bridge refuses a large AUTH.
TEST(FakeBridgeBounds, OversizedHelloIsRefusedFromItsHeader) {
  FakeBridge fb([](Peer& p, int) {
    auto h = encode_header(FrameType::Hello, 0, kMaxPayload);
    p.send_raw(h.data(), h.size());
    p.send_raw("[[[[[[[[", 8);
    p.wait_closed(3000);
  });
  BridgeTerminal t(fb.options());
  auto start = std::chrono::steady_clock::now();
  ErrorKind kind{};
  std::string why = error_of([&] { t.symbols_total(); }, &kind);
  EXPECT_EQ(kind, ErrorKind::Unavailable) << why;
  EXPECT_NE(why.find("4096"), std::string::npos) << why;
  EXPECT_LT(seconds_since(start), 1.0) << why;
}

// A small HELLO nested deeper than any handshake needs: refused without building it.
TEST(FakeBridgeBounds, DeeplyNestedHelloIsRefused) {
  FakeBridge fb([](Peer& p, int) {
    p.send(FrameType::Hello, 0, "{\"protocol\":1,\"nonce\":" + nested_arrays(2000) + "}");
    p.wait_closed(3000);
  });
  BridgeTerminal t(fb.options());
  ErrorKind kind{};
  std::string why = error_of([&] { t.symbols_total(); }, &kind);
  EXPECT_EQ(kind, ErrorKind::Unavailable) << why;
  EXPECT_NE(why.find("nested"), std::string::npos) << why;
}

// After authentication: a RESULT nested 100 000 deep is a protocol error, not a value to build.
TEST(FakeBridgeBounds, DeeplyNestedResultIsAProtocolError) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    uint32_t id = p.read_request();
    p.send(FrameType::Result, id, "{\"value\":" + nested_arrays(100000) + "}");
    p.wait_closed(3000);
  });
  BridgeTerminal t(fb.options());
  ErrorKind kind{};
  std::string why = error_of([&] { t.symbols_total(); }, &kind);
  EXPECT_EQ(kind, ErrorKind::Unavailable) << why;
  EXPECT_NE(why.find("nested"), std::string::npos) << why;
}

// Records nest a few levels (order_check's request inside its result): well inside the bound.
TEST(FakeBridgeBounds, OrdinaryNestingIsAccepted) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    uint32_t id = p.read_request();
    p.send(FrameType::Result, id, "{\"value\":[[[[[[[[1]]]]]]]]}");
    id = p.read_request();
    p.send_json(FrameType::Result, id, {{"value", 3}});
    p.wait_closed();
  });
  BridgeTerminal t(fb.options());
  ErrorKind kind{};
  std::string why = error_of([&] { t.symbols_total(); }, &kind);
  EXPECT_EQ(kind, ErrorKind::CallFailed) << why;  // an array, not an integer: the record's fault
  EXPECT_EQ(t.symbols_total(), 3);
}

// An ERROR whose members have the wrong types says so instead of "bridge: ".
TEST(FakeBridgeBounds, MalformedErrorFrameSaysWhatWasWrong) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    uint32_t id = p.read_request();
    p.send_json(FrameType::Error, id, {{"kind", 5}, {"code", "x"}, {"message", json::array({"a"})}});
    p.wait_closed();
  });
  BridgeTerminal t(fb.options());
  std::string why = error_of([&] { t.symbols_total(); });
  EXPECT_NE(why.find("malformed ERROR"), std::string::npos) << why;
  EXPECT_NE(why.find("kind"), std::string::npos) << why;
  EXPECT_NE(why.find("code"), std::string::npos) << why;
  EXPECT_NE(why.find("message"), std::string::npos) << why;
}

// A reply begun and then trickled (a byte every 100 ms) times out as a whole frame: the I/O
// timeout bounds the frame, not each recv().
TEST(FakeBridgeBounds, TrickledReplyTimesOutAsAWholeFrame) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    uint32_t id = p.read_request();
    std::string body = "{\"value\":7}" + std::string(89, ' ');
    auto h = encode_header(FrameType::Result, id, static_cast<uint32_t>(body.size()));
    p.send_raw(h.data(), h.size());
    for (char ch : body) {
      p.send_raw(&ch, 1);
      if (p.wait_closed(100)) return;
    }
    p.wait_closed();
  });
  BridgeTerminal t(fb.options(/*io_timeout_ms=*/400));
  auto start = std::chrono::steady_clock::now();
  ErrorKind kind{};
  std::string why = error_of([&] { t.symbols_total(); }, &kind);
  EXPECT_EQ(kind, ErrorKind::Timeout) << why;
  EXPECT_LT(seconds_since(start), 2.0) << why;
}

// The same before authentication: the handshake has one deadline, however its bytes are spread.
TEST(FakeBridgeBounds, TrickledHelloTimesOutAsAWhole) {
  FakeBridge fb([](Peer& p, int) {
    std::string body = "{\"protocol\":1,\"nonce\":\"" + std::string(64, 'a') + "\"}";
    auto h = encode_header(FrameType::Hello, 0, static_cast<uint32_t>(body.size()));
    p.send_raw(h.data(), h.size());
    for (char ch : body) {
      p.send_raw(&ch, 1);
      if (p.wait_closed(100)) return;
    }
    p.wait_closed();
  });
  BridgeOptions o = fb.options();
  o.handshake_timeout_ms = 400;
  BridgeTerminal t(o);
  auto start = std::chrono::steady_clock::now();
  ErrorKind kind{};
  std::string why = error_of([&] { t.symbols_total(); }, &kind);
  EXPECT_EQ(kind, ErrorKind::Unavailable) << why;
  EXPECT_LT(seconds_since(start), 2.0) << why;
}

// Closing the terminal (interrupt(), from the JS thread) fails a call blocked on a silent bridge at
// once, and refuses later ones: shutdown never waits on the bridge.
TEST(FakeBridgeBounds, InterruptUnblocksACallInFlight) {
  FakeBridge fb([](Peer& p, int) {
    if (!p.handshake()) return;
    p.read_request();
    p.wait_closed(10000);
  });
  BridgeTerminal t(fb.options(/*io_timeout_ms=*/8000));
  std::string why;
  auto start = std::chrono::steady_clock::now();
  std::thread call([&] { why = error_of([&] { t.symbols_total(); }); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  t.interrupt();
  call.join();
  EXPECT_LT(seconds_since(start), 2.0) << why;
  EXPECT_FALSE(why.empty());
  EXPECT_NE(error_of([&] { t.symbols_total(); }).find("closed"), std::string::npos);
}

// Version skew is named at the handshake, with both versions and the bridge's own version string.
TEST(FakeBridgeBounds, ProtocolMismatchNamesBothVersions) {
  FakeBridge fb([](Peer& p, int) {
    p.send_json(FrameType::Hello, 0, {{"protocol", 3}, {"nonce", std::string(64, 'a')}, {"bridge", "0.9.0"}});
    p.wait_closed(3000);
  });
  BridgeTerminal t(fb.options());
  ErrorKind kind{};
  std::string why = error_of([&] { t.symbols_total(); }, &kind);
  EXPECT_EQ(kind, ErrorKind::Unavailable);
  EXPECT_NE(why.find("speaks protocol 3 (bridge 0.9.0), this gateway speaks protocol 2 (and 1): upgrade the older"),
            std::string::npos)
      << why;
  BridgeStatus st = t.bridge_status();
  EXPECT_FALSE(st.reachable);
  EXPECT_TRUE(st.version_mismatch);
}

// ---- protocol 2: series as columns, compression chosen at the handshake ----------------------

namespace {

std::string unbase64(const char* text) {
  static const std::string abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (const char* p = text; *p && *p != '='; ++p) {
    size_t v = abc.find(*p);
    if (v == std::string::npos) continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

const chunk_fixture::Case& fx_case() { return chunk_fixture::kCases[0]; }  // fx ticks, every flag kind

// What the client asks for, given what the bridge offers and its option.
std::string chosen(Compression option, const char* host, json offered) {
  std::string got;
  FakeBridge fb([&](Peer& p, int) {
    if (!p.handshake(false, 2, offered)) return;
    got = p.auth.value("compression", std::string("(missing)"));
    uint32_t id = p.read_request();
    p.send_json(FrameType::Result, id, {{"value", 1}});
    p.wait_closed();
  });
  BridgeOptions o = fb.options();
  o.host = host;
  o.compression = option;
  BridgeTerminal t(o);
  EXPECT_EQ(t.symbols_total(), 1);
  return got;
}

}  // namespace

TEST(FakeBridgeV2, CompressionIsChosenAtTheHandshake) {
  const json both = json::array({"zstd", "none"});
  EXPECT_EQ(chosen(Compression::Auto, "127.0.0.1", both), "none");  // loopback: the CPU is the link
  EXPECT_EQ(chosen(Compression::Zstd, "127.0.0.1", both), "zstd");
  EXPECT_EQ(chosen(Compression::None, "127.0.0.1", both), "none");
  EXPECT_EQ(chosen(Compression::Zstd, "127.0.0.1", json::array({"none"})), "none");  // not offered
  EXPECT_EQ(chosen(Compression::Zstd, "127.0.0.1", json()), "none");                  // no list at all
  EXPECT_TRUE(loopback_host("127.0.0.1"));
  EXPECT_TRUE(loopback_host("127.8.9.10"));
  EXPECT_TRUE(loopback_host("::1"));
  EXPECT_TRUE(loopback_host("[::1]"));
  EXPECT_TRUE(loopback_host("LocalHost"));
  EXPECT_FALSE(loopback_host("10.0.0.5"));
  EXPECT_FALSE(loopback_host("bridge.internal"));
  EXPECT_FALSE(loopback_host("1270.0.0.1"));
}

TEST(FakeBridgeV2, AnOlderBridgeIsAskedForProtocol1AndNoCompression) {
  json auth;
  FakeBridge fb([&](Peer& p, int) {
    if (!p.handshake(false, 1)) return;
    auth = p.auth;
    uint32_t id = p.read_request();
    send_head(p, id);
    p.send(FrameType::SeriesChunk, id, tick_rows(3));
    p.send_json(FrameType::SeriesEnd, id, {{"rows", 3}});
    p.wait_closed();
  });
  BridgeOptions o = fb.options();
  o.compression = Compression::Zstd;
  BridgeTerminal t(o);
  auto c = open_ticks(t);
  Drained d = drain(*c);
  EXPECT_TRUE(d.completed);
  EXPECT_EQ(d.rows, 3u);
  EXPECT_EQ(auth.value("protocol", 0), 1);
  EXPECT_FALSE(auth.contains("compression"));
}

// The fixture's chunks, as the Python bridge sent them, over the wire: the cursor gives back the
// package's rows, whatever size the consumer asks for, in chunks of exactly that size.
TEST(FakeBridgeV2, ColumnChunksBecomeThePackagesRows) {
  const auto& fx = fx_case();
  ASSERT_TRUE(fx.ticks);
  std::string rows = unbase64(fx.rows);
  const size_t n = rows.size() / 60;
  TickColumns want;
  Transposer<TickColumns>(parse_dtype(tick_dtype())).append(reinterpret_cast<const uint8_t*>(rows.data()), n, want);
  for (bool zstd : {false, true}) {
    for (size_t max_rows : {size_t{7}, size_t{50}, size_t{1000}}) {
      json window;
      FakeBridge fb([&](Peer& p, int) {
        if (!p.handshake(false, 2)) return;
        json body;
        uint32_t id = p.read_request(&body);
        window = body.value("window", json());
        // All of it in one write: every chunk is waiting when the cursor reads the first.
        std::string all;
        auto frame = [&](FrameType type, const std::string& payload) {
          auto h = encode_header(type, id, static_cast<uint32_t>(payload.size()));
          all.append(reinterpret_cast<const char*>(h.data()), h.size());
          all += payload;
        };
        frame(FrameType::SeriesHead, json{{"dtype", tick_dtype()}}.dump());
        for (const char* const* c = zstd ? fx.zstd : fx.plain; *c; ++c) frame(FrameType::SeriesChunk, unbase64(*c));
        frame(FrameType::SeriesEnd, json{{"rows", n}}.dump());
        p.send_raw(all.data(), all.size());
        p.wait_closed();
      });
      BridgeOptions o = fb.options();
      o.compression = zstd ? Compression::Zstd : Compression::None;
      BridgeTerminal t(o);
      auto c = open_ticks(t);
      TickColumns got, part;
      std::vector<size_t> sizes;
      while (c->next(max_rows, part)) {
        sizes.push_back(part.rows());
        for_each_column(got, [&](const char* name, auto& col) {
          for_each_column(part, [&](const char* other, auto& src) {
            if (std::strcmp(name, other) != 0) return;
            if constexpr (std::is_same_v<std::decay_t<decltype(col)>, std::decay_t<decltype(src)>>)
              col.insert(col.end(), src.begin(), src.end());
          });
        });
      }
      ASSERT_EQ(got.rows(), n) << zstd << " " << max_rows;
      EXPECT_EQ(std::memcmp(got.bid.data(), want.bid.data(), n * 8), 0);
      EXPECT_EQ(std::memcmp(got.ask.data(), want.ask.data(), n * 8), 0);
      EXPECT_EQ(got.time, want.time);
      EXPECT_EQ(got.time_msc, want.time_msc);
      EXPECT_EQ(got.flags, want.flags);
      for (size_t i = 0; i + 1 < sizes.size(); ++i) EXPECT_EQ(sizes[i], std::min(max_rows, n)) << "chunk " << i;
      EXPECT_EQ(window, 8);
    }
  }
}

// A chunk that does not decode fails the series as a protocol error (503), after the rows before it.
TEST(FakeBridgeV2, ABadChunkFailsTheSeriesAfterTheRowsBeforeIt) {
  const auto& fx = fx_case();
  FakeBridge fb([&](Peer& p, int) {
    if (!p.handshake(false, 2)) return;
    uint32_t id = p.read_request();
    send_head(p, id);
    std::string good = unbase64(fx.plain[0]);
    p.send(FrameType::SeriesChunk, id, good);
    std::string bad = good;
    bad[12 + 1] = 1;  // bid as DELTA: a float64 field
    p.send(FrameType::SeriesChunk, id, bad);
    p.send_json(FrameType::SeriesEnd, id, {{"rows", 2 * load_u32le(reinterpret_cast<const uint8_t*>(good.data()))}});
    p.wait_closed();
  });
  BridgeOptions o = fb.options();
  o.compression = Compression::None;
  BridgeTerminal t(o);
  auto c = open_ticks(t);
  Drained d = drain(*c);
  EXPECT_FALSE(d.completed);
  ASSERT_TRUE(d.error);
  EXPECT_EQ(d.error->kind(), ErrorKind::Unavailable);
  EXPECT_NE(std::string(d.error->what()).find("DELTA block for the float64 field bid"), std::string::npos) << d.error->what();
  EXPECT_GT(d.rows, 0u);
}
