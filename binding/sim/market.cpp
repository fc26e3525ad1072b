// Market: the catalogue subset of the config, the live quote, symbol_info's live fields, the book,
// and the argument checks of the series requests (the generation itself is in price_path.h,
// history.cpp and series_cursors.cpp).
#include "market.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "../terminal/constants.h"
#include "../terminal/errors.h"
#include "history.h"
#include "server_clock.h"
#include "series_cursors.h"
#include "timeframe.h"

namespace tradeapi::sim {

using detail::floor_div;
using detail::kMinuteMs;

struct Market::Cache {
  detail::History history;
  struct Oldest {
    int64_t newest_open = INT64_MIN;  // the newest bar's open when computed
    int64_t oldest_open = 0;
  };
  std::map<std::pair<size_t, int64_t>, Oldest> oldest;  // by (slot, timeframe)
};

namespace {

std::vector<SymbolSpec> select_symbols(const SimConfig& config) {
  std::vector<SymbolSpec> all = symbol_catalogue();
  if (config.symbols.empty()) return all;
  std::set<std::string> wanted(config.symbols.begin(), config.symbols.end());
  std::vector<SymbolSpec> out;
  for (SymbolSpec& s : all) {
    if (wanted.erase(s.info.name) > 0) out.push_back(std::move(s));  // keep the server order
  }
  if (!wanted.empty()) throw TerminalError::invalid_params("Unknown symbol in config.symbols: " + *wanted.begin());
  return out;
}

Tick to_tick(int64_t msc, int64_t bid, int64_t ask, int64_t last, uint32_t volume, uint32_t flags, double scale) {
  Tick t;
  t.time = floor_div(msc, 1000);
  t.time_msc = msc;
  t.bid = static_cast<double>(bid) / scale;
  t.ask = static_cast<double>(ask) / scale;
  t.last = static_cast<double>(last) / scale;
  t.volume = volume;
  t.volume_real = static_cast<double>(volume);
  t.flags = flags;
  return t;
}

// Keeps the last tick at or before a time.
struct LastTickSink {
  int64_t until_ms;
  bool found = false;
  int64_t msc = 0, bid = 0, ask = 0, last = 0;
  uint32_t volume = 0, flags = 0;
  void tick(int64_t t, int64_t b, int64_t a, int64_t l, uint32_t v, uint32_t f) {
    if (t > until_ms) return;
    found = true;
    msc = t; bid = b; ask = a; last = l; volume = v; flags = f;
  }
};

uint32_t copy_ticks_mask(int64_t flags) {
  namespace m = tradeapi::mt5;
  if (flags == m::COPY_TICKS_ALL) return 0;
  if (flags == m::COPY_TICKS_INFO) return static_cast<uint32_t>(m::TICK_FLAG_BID | m::TICK_FLAG_ASK);
  if (flags == m::COPY_TICKS_TRADE) return static_cast<uint32_t>(m::TICK_FLAG_LAST | m::TICK_FLAG_VOLUME);
  throw TerminalError::invalid_params();
}

// A symbol that never trades on an exchange (FX, metals, index CFDs) has no trade ticks: a
// COPY_TICKS_TRADE request would otherwise scan its whole history for none, holding the
// terminal's single worker for seconds (found by fuzzing).
bool has_no_matching_ticks(const SymbolSpec& s, int64_t flags) {
  return flags == tradeapi::mt5::COPY_TICKS_TRADE && !s.trade_ticks;
}

detail::Timeframe timeframe(int64_t constant) {
  detail::Timeframe tf;
  if (!detail::Timeframe::from_constant(constant, tf)) throw TerminalError::invalid_params();
  return tf;
}

double round_to(double v, double step) { return std::round(v / step) * step; }

}  // namespace

Market::Market(const SimConfig& config)
    : config_(config), opened_(std::chrono::steady_clock::now()), symbols_(select_symbols(config)) {
  for (size_t i = 1; i < config_.server_zone.size(); ++i) {
    if (config_.server_zone[i].utc_s <= config_.server_zone[i - 1].utc_s) {
      throw TerminalError::invalid_params("config.server_zone: transitions must be in increasing time order");
    }
  }
  if (!(config_.clock_rate > 0) || config_.clock_rate > 1e6) {
    throw TerminalError::invalid_params("config.clock_rate must be above 0 and at most 1000000");
  }
  if (!(config_.trades_per_hour >= 0) || config_.trades_per_hour > 3600) {
    throw TerminalError::invalid_params("config.trades_per_hour must be 0 to 3600");
  }
  start_utc_ms_ = config_.clock_start_ms;
  if (start_utc_ms_ == 0) {
    start_utc_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count();
  }
  clock_ = config_.server_zone.empty() ? std::make_shared<const detail::ServerClock>(config_.server_utc_offset_s)
                                       : std::make_shared<const detail::ServerClock>(config_.server_zone);
  std::vector<detail::PricePath> paths;
  paths.reserve(symbols_.size());
  for (size_t i = 0; i < symbols_.size(); ++i) {
    index_[symbols_[i].info.name] = i;
    paths.emplace_back(config_.seed, symbols_[i], clock_);
  }
  // History starts at the first whole minute at or after history_start.
  const int64_t first_ms = -floor_div(-config_.history_start * 1000, kMinuteMs) * kMinuteMs;
  cache_ = std::make_unique<Cache>(Cache{detail::History(std::move(paths), first_ms), {}});
}

Market::~Market() = default;

int64_t Market::now_ms() const {
  if (config_.now_ms != 0) return config_.now_ms;
  int64_t utc_ms = 0;
  if (config_.clock_start_ms != 0 || config_.clock_rate != 1.0) {
    // Steady, not system time: a test clock must not jump when the machine's clock is set.
    const auto running = std::chrono::steady_clock::now() - opened_;
    const double real_ms = static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(running).count()) / 1000.0;
    utc_ms = start_utc_ms_ + static_cast<int64_t>(real_ms * config_.clock_rate);
  } else {
    const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
    utc_ms = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count();
  }
  return utc_ms + clock_->offset_at_utc(floor_div(utc_ms, 1000)) * 1000;
}

const SymbolSpec* Market::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &symbols_[it->second];
}

// The slot of a spec in symbols_ (specs handed out by find()/symbols(), or copies of them).
static size_t slot_of(const Market& market, const SymbolSpec& s) {
  const std::vector<SymbolSpec>& all = market.symbols();
  if (!all.empty() && &s >= all.data() && &s < all.data() + all.size()) return static_cast<size_t>(&s - all.data());
  const SymbolSpec* found = market.find(s.info.name);
  if (found == nullptr) throw TerminalError::not_found();
  return static_cast<size_t>(found - all.data());
}

bool Market::is_open(const SymbolSpec& s, int64_t time_msc) const {
  return cache_->history.path(slot_of(*this, s)).open(floor_div(time_msc, kMinuteMs));
}

Tick Market::tick_at(const SymbolSpec& s, int64_t time_msc) const {
  const detail::History& h = cache_->history;
  const size_t slot = slot_of(*this, s);
  const detail::PricePath& path = h.path(slot);
  const int64_t until = std::min(time_msc, now_ms());  // never a tick from the future
  // Walk back minute by minute to the last one with a tick (markets close for at most a weekend).
  for (int64_t minute = floor_div(until, kMinuteMs); minute * kMinuteMs >= h.first_ms(); --minute) {
    if (!h.minute_exists(slot, minute, until)) continue;
    LastTickSink sink{until};
    double a0, a1;
    path.minute_anchors(minute, a0, a1);
    path.emit(minute, a0, a1, sink);
    if (sink.found) return to_tick(sink.msc, sink.bid, sink.ask, sink.last, sink.volume, sink.flags, path.scale());
  }
  throw TerminalError::not_found();
}

Tick Market::live_tick(const SymbolSpec& s) const {
  auto fixed = config_.fixed_quotes.find(s.info.name);
  if (fixed == config_.fixed_quotes.end()) return tick_at(s, now_ms());
  Tick t;
  t.time_msc = now_ms();
  t.time = floor_div(t.time_msc, 1000);
  t.bid = fixed->second.bid;
  t.ask = fixed->second.ask;
  t.flags = static_cast<uint32_t>(mt5::TICK_FLAG_BID | mt5::TICK_FLAG_ASK);
  return t;
}

Market::QuoteRange Market::quote_range(const SymbolSpec& s, int64_t first_minute, int64_t end_minute,
                                       int64_t until_ms) const {
  detail::History& h = cache_->history;
  const size_t slot = slot_of(*this, s);
  const detail::BarAgg bar = h.aggregate(slot, first_minute * 60, end_minute * 60, std::min(until_ms, now_ms()));
  QuoteRange r;
  if (bar.empty()) return r;
  const double scale = h.path(slot).scale();
  r.any = true;
  r.bid_high = static_cast<double>(bar.high) / scale;
  r.bid_low = static_cast<double>(bar.low) / scale;
  r.ask_high = static_cast<double>(bar.ask_high) / scale;
  r.ask_low = static_cast<double>(bar.ask_low) / scale;
  r.has_last = bar.last_high != detail::BarAgg::kNone;
  if (r.has_last) {
    r.last_high = static_cast<double>(bar.last_high) / scale;
    r.last_low = static_cast<double>(bar.last_low) / scale;
  }
  return r;
}

namespace {
// The first tick in (after, until] that a predicate accepts (the rest of the minute is ignored).
struct FirstTickSink {
  int64_t after_ms, until_ms;
  double scale;
  const std::function<bool(const Tick&)>& accept;
  std::optional<Tick> found;
  void tick(int64_t t, int64_t b, int64_t a, int64_t l, uint32_t v, uint32_t f) {
    if (found || t <= after_ms || t > until_ms) return;
    const Tick candidate = to_tick(t, b, a, l, v, f, scale);
    if (accept(candidate)) found = candidate;
  }
};
}  // namespace

std::optional<Tick> Market::first_tick_where(const SymbolSpec& s, int64_t minute, int64_t after_ms, int64_t until_ms,
                                             const std::function<bool(const Tick&)>& fn) const {
  const detail::History& h = cache_->history;
  const size_t slot = slot_of(*this, s);
  const int64_t until = std::min(until_ms, now_ms());
  if (!h.minute_exists(slot, minute, until)) return std::nullopt;
  const detail::PricePath& path = h.path(slot);
  FirstTickSink sink{after_ms, until, path.scale(), fn, std::nullopt};
  double a0, a1;
  path.minute_anchors(minute, a0, a1);
  path.emit(minute, a0, a1, sink);
  return sink.found;
}

SymbolInfo Market::symbol_info(const SymbolSpec& s) const {
  SymbolInfo info = s.info;
  const size_t slot = slot_of(*this, s);
  detail::History& h = cache_->history;
  const double scale = h.path(slot).scale();
  const Tick tick = live_tick(s);
  const int64_t now = now_ms();
  info.bid = tick.bid;
  info.ask = tick.ask;
  info.last = tick.last;
  info.time = tick.time;
  info.volume = static_cast<int64_t>(tick.volume);
  info.volume_real = tick.volume_real;
  info.spread = static_cast<int64_t>(std::llround((tick.ask - tick.bid) * scale));

  // Day statistics: the server day of the last quote (the last trading day while closed).
  const int64_t day_start = floor_div(tick.time, detail::kDayS) * detail::kDayS;
  const detail::BarAgg day = h.aggregate(slot, day_start, day_start + detail::kDayS, now);
  if (!day.empty()) {
    info.bidhigh = std::max(static_cast<double>(day.high) / scale, info.bid);
    info.bidlow = std::min(static_cast<double>(day.low) / scale, info.bid);
    info.askhigh = std::max(static_cast<double>(day.ask_high) / scale, info.ask);
    info.asklow = std::min(static_cast<double>(day.ask_low) / scale, info.ask);
    if (day.last_high != detail::BarAgg::kNone) {
      info.lasthigh = static_cast<double>(day.last_high) / scale;
      info.lastlow = static_cast<double>(day.last_low) / scale;
    }
    // Exchange instruments (chart by LAST) open and close at trade prices.
    const bool by_last = s.info.chart_mode == 1 && day.last_open != detail::BarAgg::kNone;
    info.session_open = static_cast<double>(by_last ? day.last_open : day.open) / scale;
  }
  // Previous close: the close of the last earlier day with ticks (skips weekends).
  for (int64_t d = day_start - detail::kDayS; d >= day_start - 8 * detail::kDayS; d -= detail::kDayS) {
    if (!h.period_exists(slot, d, d + detail::kDayS, now)) continue;
    const detail::BarAgg prev = h.aggregate(slot, d, d + detail::kDayS, now);
    const bool by_last = s.info.chart_mode == 1 && prev.last_close != detail::BarAgg::kNone;
    info.session_close = static_cast<double>(by_last ? prev.last_close : prev.close) / scale;
    break;
  }
  if (info.session_close > 0) info.price_change = round_to((info.bid - info.session_close) / info.session_close * 100.0, 0.0001);
  info.price_volatility = 0;

  // Tick value in the deposit currency through the live conversion rate (mt5-reference §6.3):
  // conservative sides, i.e. a profit converts at the less favourable rate, and so does a loss.
  const double raw = info.trade_tick_size * info.trade_contract_size;
  const std::string& ccy = info.currency_profit;
  const std::string& dep = config_.currency;
  if (ccy == dep) {
    info.trade_tick_value = info.trade_tick_value_profit = info.trade_tick_value_loss = raw;
  } else {
    for (const SymbolSpec& fx : symbols_) {
      if (fx.info.trade_calc_mode != mt5::SYMBOL_CALC_MODE_FOREX) continue;
      const bool direct = fx.info.currency_base == ccy && fx.info.currency_profit == dep;    // CCY/DEP
      const bool inverse = fx.info.currency_base == dep && fx.info.currency_profit == ccy;   // DEP/CCY
      if (!direct && !inverse) continue;
      const Tick q = (&fx == &s) ? tick : live_tick(fx);
      if (q.bid <= 0 || q.ask <= 0) break;
      info.trade_tick_value_profit = direct ? raw * q.bid : raw / q.ask;
      info.trade_tick_value_loss = direct ? raw * q.ask : raw / q.bid;
      info.trade_tick_value = info.trade_tick_value_profit;
      break;
    }
  }
  return info;
}

std::vector<BookInfo> Market::book(const SymbolSpec& s) const {
  std::vector<BookInfo> out;
  const int64_t depth = s.info.ticks_bookdepth;
  if (depth <= 0) return out;
  const Tick tick = live_tick(s);
  const double scale = cache_->history.path(slot_of(*this, s)).scale();
  const int64_t bid = std::llround(tick.bid * scale), ask = std::llround(tick.ask * scale);
  // Deterministic per (seed, symbol, second): the book changes once a second like a snapshot feed.
  const uint64_t key = detail::hash3(config_.seed, detail::hash_string(s.info.name), static_cast<uint64_t>(tick.time));
  // Lots for OTC symbols (fractional, e.g. 1.5), shares for stock CFDs.
  const double unit = s.session == SessionKind::Stock ? 100.0 : 1.0;
  auto level_volume = [&](int64_t side, int64_t k) {
    const uint64_t r = detail::mix64(key + static_cast<uint64_t>(side * 1000 + k) * 0x9E3779B97F4A7C15ull);
    // Deeper levels hold more; one decimal, at least 1.
    const double v = std::round((1.0 + 0.6 * static_cast<double>(k)) * (1.0 + 9.0 * detail::unit(r)) * unit * 10.0) / 10.0;
    return std::max(v, 1.0);
  };
  std::vector<int64_t> sell_px(static_cast<size_t>(depth)), buy_px(static_cast<size_t>(depth));
  int64_t up = ask, down = bid;
  for (int64_t k = 0; k < depth; ++k) {
    const uint64_t r = detail::mix64(key ^ static_cast<uint64_t>(k + 77));
    if (k > 0) {
      up += 1 + static_cast<int64_t>(r % 3);             // gaps of 1-3 points between levels
      down -= 1 + static_cast<int64_t>((r >> 8) % 3);
    }
    sell_px[static_cast<size_t>(k)] = up;
    buy_px[static_cast<size_t>(k)] = down;
  }
  // Whole book by price descending: sells (type 1) from the farthest down to the ask, then buys.
  for (int64_t k = depth - 1; k >= 0; --k) {
    const double v = level_volume(1, k);
    out.push_back(BookInfo{mt5::BOOK_TYPE_SELL, static_cast<double>(sell_px[static_cast<size_t>(k)]) / scale,
                           static_cast<int64_t>(v), v});
  }
  for (int64_t k = 0; k < depth; ++k) {
    const double v = level_volume(2, k);
    out.push_back(BookInfo{mt5::BOOK_TYPE_BUY, static_cast<double>(buy_px[static_cast<size_t>(k)]) / scale,
                           static_cast<int64_t>(v), v});
  }
  return out;
}

std::unique_ptr<TickCursor> Market::ticks_range(const SymbolSpec& s, int64_t from_msc, int64_t to_msc,
                                                int64_t flags) const {
  const uint32_t mask = copy_ticks_mask(flags);
  if (from_msc > to_msc) throw TerminalError::invalid_params();
  const detail::History& h = cache_->history;
  const int64_t lo = std::max(from_msc, h.first_ms());
  const int64_t hi = std::min(to_msc, now_ms());
  const uint64_t limit = has_no_matching_ticks(s, flags) ? 0 : UINT64_MAX;
  return detail::make_tick_cursor(h.path(slot_of(*this, s)), lo, hi, limit, mask);
}

std::unique_ptr<TickCursor> Market::ticks_from(const SymbolSpec& s, int64_t from_msc, int64_t count,
                                               int64_t flags) const {
  const uint32_t mask = copy_ticks_mask(flags);
  if (count <= 0) throw TerminalError::invalid_params();
  const detail::History& h = cache_->history;
  const int64_t lo = std::max(from_msc, h.first_ms());
  const uint64_t limit = has_no_matching_ticks(s, flags) ? 0 : static_cast<uint64_t>(count);
  return detail::make_tick_cursor(h.path(slot_of(*this, s)), lo, now_ms(), limit, mask);
}

namespace {
// The first bar open at or after history start: bars stamped before history_start do not exist.
int64_t first_bar_open(const detail::Timeframe& tf, int64_t first_s) {
  const int64_t open = tf.open_of(first_s);
  return open < first_s ? tf.next_open(open) : open;
}

// Walks existing bars back from the bar containing `from_s`: skips `skip` of them, then collects
// up to `count`. Returns false when none is left; otherwise the oldest/newest opens collected.
bool walk_back(detail::History& h, size_t slot, const detail::Timeframe& tf, int64_t from_s, int64_t skip,
               int64_t count, int64_t now_ms, int64_t& oldest, int64_t& newest) {
  const int64_t floor_open = first_bar_open(tf, floor_div(h.first_ms(), 1000));
  int64_t found = 0;
  for (int64_t open = tf.open_of(from_s); open >= floor_open && found < count; open = tf.prev_open(open)) {
    if (!h.period_exists(slot, open, tf.next_open(open), now_ms)) continue;
    if (skip > 0) {
      --skip;
      continue;
    }
    if (found++ == 0) newest = open;
    oldest = open;
  }
  return found > 0;
}
}  // namespace

int64_t Market::oldest_bar_open(size_t slot, int64_t timeframe_value, int64_t now_ms) const {
  const detail::Timeframe tf = timeframe(timeframe_value);
  detail::History& h = cache_->history;
  const int64_t floor_open = first_bar_open(tf, floor_div(h.first_ms(), 1000));
  const int64_t now_s = floor_div(now_ms, 1000);
  // Fewer periods than maxbars since the first bar: the cap cannot bite.
  if ((now_s - floor_open) / tf.min_seconds() + 1 < config_.maxbars) return floor_open;
  Cache::Oldest& entry = cache_->oldest[{slot, timeframe_value}];
  const int64_t newest = tf.open_of(now_s);
  if (entry.newest_open != newest) {
    int64_t oldest = floor_open, unused = 0;
    // The bar at position maxbars - 1 (0 = the forming bar) is the oldest one a chart holds.
    if (!walk_back(h, slot, tf, now_s, config_.maxbars - 1, 1, now_ms, oldest, unused)) oldest = floor_open;
    entry = Cache::Oldest{newest, oldest};
  }
  return entry.oldest_open;
}

std::unique_ptr<RateCursor> Market::rates_range(const SymbolSpec& s, int64_t timeframe_value, int64_t from_s,
                                                int64_t to_s) const {
  const detail::Timeframe tf = timeframe(timeframe_value);
  if (from_s > to_s) throw TerminalError::invalid_params();
  detail::History& h = cache_->history;
  const size_t slot = slot_of(*this, s);
  const int64_t now = now_ms();
  int64_t first = tf.open_of(from_s);
  if (first < from_s) first = tf.next_open(first);  // bars with open time >= date_from
  first = std::max(first, first_bar_open(tf, floor_div(h.first_ms(), 1000)));
  const int64_t last = tf.open_of(std::min(to_s, floor_div(now, 1000)));
  // A range that holds maxbars bars or more fails as a whole (mt5-reference §3.1). Counting is only
  // needed when even one bar per minute could reach the limit.
  if (first <= last && (last - first) / 60 + 1 >= config_.maxbars) {
    int64_t bars = 0;
    for (int64_t open = first; open <= last && bars < config_.maxbars; open = tf.next_open(open)) {
      bars += h.period_exists(slot, open, tf.next_open(open), now) ? 1 : 0;
    }
    if (bars >= config_.maxbars) throw TerminalError::invalid_params();
  }
  // A range entirely outside the served history (before its oldest bar, or after now) fails
  // (mt5-reference §3.1) with "no history"; one that overlaps it yields the bars inside.
  const int64_t oldest = oldest_bar_open(slot, timeframe_value, now);
  if (to_s < oldest || from_s > floor_div(now, 1000)) throw TerminalError::not_found();
  first = std::max(first, oldest);
  return detail::make_rate_cursor(h, slot, tf, first, last, now, s.trade_ticks, s.info.chart_mode == 1);
}

std::unique_ptr<RateCursor> Market::rates_from(const SymbolSpec& s, int64_t timeframe_value, int64_t date_from_s,
                                               int64_t count) const {
  const detail::Timeframe tf = timeframe(timeframe_value);
  if (count <= 0 || count >= config_.maxbars) throw TerminalError::invalid_params();
  detail::History& h = cache_->history;
  const size_t slot = slot_of(*this, s);
  const int64_t now = now_ms();
  // No served bar at or before date_from: empty (the gateway's "early dates" contract; unlike a
  // range, MT5's behaviour here is not documented). Bars older than the served ones are cut off.
  const int64_t reachable = oldest_bar_open(slot, timeframe_value, now);
  int64_t oldest = 0, newest = -1;
  if (date_from_s < reachable ||
      !walk_back(h, slot, tf, std::min(date_from_s, floor_div(now, 1000)), 0, count, now, oldest, newest)) {
    oldest = 0;
    newest = -1;
  }
  oldest = std::max(oldest, std::min(reachable, newest));
  return detail::make_rate_cursor(h, slot, tf, oldest, newest, now, s.trade_ticks, s.info.chart_mode == 1);
}

std::unique_ptr<RateCursor> Market::rates_from_pos(const SymbolSpec& s, int64_t timeframe_value, int64_t start_pos,
                                                   int64_t count) const {
  const detail::Timeframe tf = timeframe(timeframe_value);
  if (start_pos < 0 || count <= 0 || count >= config_.maxbars) throw TerminalError::invalid_params();
  detail::History& h = cache_->history;
  const size_t slot = slot_of(*this, s);
  const int64_t now = now_ms();
  // Positions from maxbars on are not on the chart: outside the history (see rates_range).
  if (start_pos >= config_.maxbars) throw TerminalError::not_found();
  int64_t oldest = 0, newest = -1;
  if (!walk_back(h, slot, tf, floor_div(now, 1000), start_pos, count, now, oldest, newest)) {
    throw TerminalError::not_found();
  }
  oldest = std::max(oldest, oldest_bar_open(slot, timeframe_value, now));
  return detail::make_rate_cursor(h, slot, tf, oldest, newest, now, s.trade_ticks, s.info.chart_mode == 1);
}

}  // namespace tradeapi::sim
