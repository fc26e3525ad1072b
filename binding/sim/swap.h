// Swaps (overnight financing) of the simulated broker (mt5-reference §5: swap_mode, swap_long,
// swap_short, swap_rollover3days): charged at every daily rollover, at server midnight, to the
// positions open at that instant. A pure function of the market's price path, so that the generated
// history and the live view agree.
#pragma once
#include <cstdint>

#include "market.h"

namespace tradeapi::sim::swap {

// How many days the rollover at server-clock midnight `midnight_msc` charges: the rollover that
// ends day D belongs to D; Monday to Friday charge one day, except that the symbol's
// swap_rollover3days charges three (it carries the weekend), and Saturday and Sunday charge none.
int64_t rollover_days(const SymbolInfo& info, int64_t midnight_msc);

// The swap one rollover charges a position, in the deposit currency, whole cents (negative = paid
// by the trader). swap_long applies to buys and swap_short to sells, in the unit of swap_mode:
// POINTS (a price move of that many points), CURRENCY_SYMBOL / CURRENCY_MARGIN / CURRENCY_DEPOSIT
// (money per lot), INTEREST_CURRENT / INTEREST_OPEN (annual percent of the position's value at the
// rollover's / the open price, 360-day year). DISABLED and the REOPEN modes charge nothing (the
// simulator does not reopen positions). Conversion uses the quotes at the rollover. Throws
// TerminalError when the path has no price then.
int64_t charge_cents(const Market& market, const SymbolSpec& s, bool buy, double volume, double price_open,
                     int64_t midnight_msc);

// Swap accrued, in whole cents, by the rollovers at midnights in (from_msc, until_msc]: a position
// opened at from_msc and closed (or valued) at until_msc.
int64_t accrued_cents(const Market& market, const SymbolSpec& s, bool buy, double volume, double price_open,
                      int64_t from_msc, int64_t until_msc);

}  // namespace tradeapi::sim::swap
