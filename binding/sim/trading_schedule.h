// The simulated account's trading schedule: what an expert advisor on the account does after the
// generated history (opens, partial and full closes, SL/TP modifications, pending orders placed
// and cancelled, a close-by of a hedged pair). Action times and choices are hashes of (seed, slot),
// decisions read the account at that instant, so two terminals with the same config and clock
// trade alike. config.trades_per_hour actions per hour on average (0 = off).
#pragma once
#include <cstdint>
#include <optional>

#include "config.h"

namespace tradeapi::sim {

class Ledger;
class Market;

namespace schedule {

// The first action time strictly after after_msc; nothing when the schedule is off.
std::optional<int64_t> next_action(const SimConfig& config, int64_t after_msc);
// Performs the action due at msc (a time next_action returned).
void act(Ledger& ledger, const Market& market, int64_t msc);

}  // namespace schedule
}  // namespace tradeapi::sim
