// When each kind of market trades, in the exchange's own clock: New York for FX, metals, US index
// futures and US shares, Frankfurt and London for the European index CFDs. Everything takes a TRUE
// UTC instant (the server clock is applied elsewhere, server_clock.h), so that a broker's choice of
// server time zone moves the stamps, never the market.
//
// Time zones here are rules, not a database: US daylight saving (second Sunday of March 02:00 local
// to the first Sunday of November 02:00, the rule since 2007) and the EU's (last Sunday of March to
// the last Sunday of October, 01:00 UTC, since 1996), applied to every year. The simulator's
// history starts in 2020, well inside both.
#pragma once
#include <cstdint>

#include "market.h"

namespace tradeapi::sim::detail {

// Local time minus UTC, seconds, at a UTC instant.
int64_t new_york_offset_s(int64_t utc_s);
int64_t london_offset_s(int64_t utc_s);
int64_t frankfurt_offset_s(int64_t utc_s);

// The NYSE's day (day number since 1970-01-01): a full session, closed all day (a US exchange
// holiday, with the exchange's Saturday/Sunday observance, or a special closure), or closing early
// at 13:00 New York (3 July, the day after Thanksgiving, 24 December, when they are trading days).
enum class NyseDay : uint8_t { Open, Closed, EarlyClose };
NyseDay nyse_day(int64_t day);

// Whether a market of this kind trades at a UTC instant (to the second).
//   Forex:   Sunday 17:00 to Friday 17:00 New York, i.e. Monday 00:00 to Friday 24:00 on the
//            "New York + 7 h" clock most FX brokers keep; closed on the trading days of
//            25 December and 1 January.
//   Metal, IndexUS: as Forex, less the CME's daily break 17:00-18:00 New York.
//   IndexDE: Monday-Friday 01:15-22:00 Frankfurt (Eurex), not 25 December / 1 January.
//   IndexUK: Monday-Friday 01:00-21:00 London (ICE), not 25 December / 1 January.
//   Stock:   the NYSE's cash session, 09:30-16:00 New York (13:00 on early closes), not on US
//            exchange holidays.
//   Crypto:  always.
bool session_open(SessionKind kind, int64_t utc_s);

}  // namespace tradeapi::sim::detail
