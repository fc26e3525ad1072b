// Reads the simulated terminal's config object from JS (all members optional; see SimConfig).
#pragma once
#include <napi.h>

#include "sim/config.h"

namespace tradeapi::napi {
sim::SimConfig SimConfigFromJs(const Napi::Object& o);
}
