// Named C++ access to the constants table (constants.def) for the terminal implementations.
#pragma once
#include <cstdint>

namespace tradeapi::mt5 {
#define TRADEAPI_CONSTANT(family, name, value) inline constexpr int64_t name = value;
#include "constants.def"
#undef TRADEAPI_CONSTANT
}  // namespace tradeapi::mt5
