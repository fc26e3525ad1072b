// The broker's server clock: a real terminal stamps every time as the server's wall clock written
// as if it were UTC (mt5-reference §3.3). The market itself (prices, sessions) runs on true UTC;
// this maps between the two, minute by minute, for the price paths and the live clock.
//
// A zone is a list of transitions (from this UTC second on, server = UTC + offset), as the gateway
// resolves TRADEAPI_SIM_SERVER_TZ through the runtime's time-zone database; one entry is a fixed
// offset. When clocks go back, an hour of server time happens twice: a server minute in it is the
// EARLIER UTC minute (the one before the change), so the repeated hour's second pass has no
// ticks -- the same reading the gateway's TRADEAPI_SERVER_TZ conversion makes. When clocks go
// forward, the skipped server hour never happens: it has no UTC minute and no ticks.
#pragma once
#include <cstdint>
#include <vector>

#include "config.h"
#include "sim_time.h"

namespace tradeapi::sim::detail {

class ServerClock {
 public:
  static constexpr int64_t kNoMinute = INT64_MIN;

  explicit ServerClock(int64_t fixed_offset_s = 0) : fixed_(true), fixed_offset_s_(fixed_offset_s) {}
  // transitions sorted by utc_s (checked by the caller); the first one's offset also applies before it.
  explicit ServerClock(const std::vector<ZoneTransition>& transitions);

  // Server minus UTC, seconds, at a UTC instant.
  int64_t offset_at_utc(int64_t utc_s) const;
  // The UTC minute a server minute stands for, or kNoMinute for a minute the server clock skips.
  int64_t utc_minute(int64_t server_minute) const {
    if (fixed_) return server_minute - floor_div(fixed_offset_s_, 60);
    return utc_minute_zoned(server_minute);
  }

 private:
  int64_t utc_minute_zoned(int64_t server_minute) const;

  bool fixed_;
  int64_t fixed_offset_s_;
  // Per transition: its UTC minute, its offset in minutes, and the server minute it starts at.
  struct Span {
    int64_t utc_minute, offset_min, server_minute;
  };
  std::vector<Span> spans_;
};

}  // namespace tradeapi::sim::detail
