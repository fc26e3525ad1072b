// Readers for one member of a bridge JSON record (used by the generated records_json.cpp).
// A missing member or one of the wrong type is a failed call (the bridge and records.h disagree);
// a null float is a non-finite value (§2: non-finite floats travel as null).
#pragma once
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "terminal/errors.h"
#include "terminal/records.h"

namespace tradeapi::bridge {

[[noreturn]] inline void BadRecord(const char* record, const char* field, const char* what) {
  throw TerminalError(ErrorKind::CallFailed, -1,
                      std::string("bridge answer: ") + record + "." + field + " " + what);
}

inline void RequireObject(const nlohmann::json& j, const char* record) {
  if (!j.is_object()) throw TerminalError(ErrorKind::CallFailed, -1, std::string("bridge answer: ") + record + " is not an object");
}

inline const nlohmann::json& Member(const nlohmann::json& j, const char* record, const char* field) {
  auto it = j.find(field);
  if (it == j.end()) BadRecord(record, field, "missing");
  return *it;
}

inline void ReadField(const nlohmann::json& j, const char* rec, const char* f, int64_t& out) {
  const auto& v = Member(j, rec, f);
  if (v.is_number_integer()) out = v.get<int64_t>();
  else if (v.is_boolean()) out = v.get<bool>() ? 1 : 0;
  else BadRecord(rec, f, "is not an integer");
}
inline void ReadField(const nlohmann::json& j, const char* rec, const char* f, uint64_t& out) {
  const auto& v = Member(j, rec, f);
  if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0))
    BadRecord(rec, f, "is not an unsigned integer");
  out = v.get<uint64_t>();
}
inline void ReadField(const nlohmann::json& j, const char* rec, const char* f, uint32_t& out) {
  uint64_t wide = 0;
  ReadField(j, rec, f, wide);
  if (wide > 0xffffffffu) BadRecord(rec, f, "is out of range");
  out = static_cast<uint32_t>(wide);
}
inline void ReadField(const nlohmann::json& j, const char* rec, const char* f, double& out) {
  const auto& v = Member(j, rec, f);
  if (v.is_number()) out = v.get<double>();
  else if (v.is_null()) out = std::numeric_limits<double>::quiet_NaN();
  else BadRecord(rec, f, "is not a number");
}
inline void ReadField(const nlohmann::json& j, const char* rec, const char* f, bool& out) {
  const auto& v = Member(j, rec, f);
  if (v.is_boolean()) out = v.get<bool>();
  else if (v.is_number_integer()) out = v.get<int64_t>() != 0;
  else BadRecord(rec, f, "is not a boolean");
}
inline void ReadField(const nlohmann::json& j, const char* rec, const char* f, std::string& out) {
  const auto& v = Member(j, rec, f);
  if (!v.is_string()) BadRecord(rec, f, "is not a string");
  out = v.get<std::string>();
}

void FromJson(const nlohmann::json& j, TradeRequest& r);  // generated
inline void ReadField(const nlohmann::json& j, const char* /*rec*/, const char* f, TradeRequest& out) {
  FromJson(Member(j, "OrderCheckResult", f), out);
}

}  // namespace tradeapi::bridge
