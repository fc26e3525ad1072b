// RowHasher: see row_hash_js.h. The chunk's arrays are read in place during update() only (no
// reference kept); they may be views (subarray) at any offset, longer than `rows`.
#include "row_hash_js.h"

#include <memory>
#include <string>

#include "encode/row_hash.h"

namespace tradeapi::napi {
namespace {

namespace enc = tradeapi::encode;

struct FieldSpec {
  const char* name;
  napi_typedarray_type type;
  const char* expected;
};

// The numpy dtype's field order (SeriesColumns).
constexpr FieldSpec kTickFields[8] = {
    {"time", napi_bigint64_array, "BigInt64Array"},     {"bid", napi_float64_array, "Float64Array"},
    {"ask", napi_float64_array, "Float64Array"},        {"last", napi_float64_array, "Float64Array"},
    {"volume", napi_biguint64_array, "BigUint64Array"}, {"time_msc", napi_bigint64_array, "BigInt64Array"},
    {"flags", napi_uint32_array, "Uint32Array"},        {"volume_real", napi_float64_array, "Float64Array"},
};
constexpr FieldSpec kRateFields[8] = {
    {"time", napi_bigint64_array, "BigInt64Array"},        {"open", napi_float64_array, "Float64Array"},
    {"high", napi_float64_array, "Float64Array"},          {"low", napi_float64_array, "Float64Array"},
    {"close", napi_float64_array, "Float64Array"},         {"tick_volume", napi_biguint64_array, "BigUint64Array"},
    {"spread", napi_int32_array, "Int32Array"},            {"real_volume", napi_biguint64_array, "BigUint64Array"},
};

class RowHasherWrap : public Napi::ObjectWrap<RowHasherWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "RowHasher",
                       {
                           InstanceMethod<&RowHasherWrap::Update>("update"),
                           InstanceMethod<&RowHasherWrap::Digest>("digest"),
                           InstanceAccessor<&RowHasherWrap::Rows>("rows"),
                           InstanceAccessor<&RowHasherWrap::Kind>("kind"),
                       });
  }

  explicit RowHasherWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<RowHasherWrap>(info) {
    Napi::Env env = info.Env();
    const std::string kind = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
    if (kind != "ticks" && kind != "rates") throw Napi::TypeError::New(env, "RowHasher: kind must be 'ticks' or 'rates'");
    hasher_ = std::make_unique<enc::RowHasher>(kind == "ticks" ? enc::SeriesKind::Ticks : enc::SeriesKind::Rates);
  }

 private:
  // update(chunk: {rows, time, ...}): hashes rows [0, chunk.rows). Throws a TypeError (and hashes
  // nothing) when `rows` is not a non-negative integer or a column is missing, of another type, or
  // shorter than `rows`.
  Napi::Value Update(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const bool ticks = hasher_->kind() == enc::SeriesKind::Ticks;
    const char* chunk_name = ticks ? "a TickChunk" : "a RateChunk";
    if (!info[0].IsObject()) throw Napi::TypeError::New(env, std::string("RowHasher.update: expects ") + chunk_name);
    Napi::Object chunk = info[0].As<Napi::Object>();
    Napi::Value rows_value = chunk.Get("rows");
    const double d = rows_value.IsNumber() ? rows_value.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 0 && d <= 9007199254740991.0) || static_cast<double>(static_cast<int64_t>(d)) != d)
      throw Napi::TypeError::New(env, "RowHasher.update: chunk.rows must be a non-negative integer");
    const auto rows = static_cast<size_t>(d);
    const FieldSpec* fields = ticks ? kTickFields : kRateFields;
    enc::SeriesColumns columns{};
    for (size_t c = 0; c < 8; ++c) {
      Napi::Value value = chunk.Get(fields[c].name);
      napi_typedarray_type type = napi_uint8_array;
      size_t length = 0;
      void* data = nullptr;
      if (!value.IsTypedArray() ||
          napi_get_typedarray_info(env, value, &type, &length, &data, nullptr, nullptr) != napi_ok || type != fields[c].type)
        throw Napi::TypeError::New(env, std::string("RowHasher.update: ") + chunk_name + "'s \"" + fields[c].name + "\" must be a " +
                                            fields[c].expected);
      if (length < rows)
        throw Napi::TypeError::New(env, std::string("RowHasher.update: \"") + fields[c].name + "\" holds " + std::to_string(length) +
                                            " values, fewer than the chunk's " + std::to_string(rows) + " rows");
      columns.field[c] = data;
    }
    if (rows > 0) hasher_->update(columns, 0, rows);
    return env.Undefined();
  }

  Napi::Value Digest(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), hasher_->hex_digest()); }
  Napi::Value Rows(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(hasher_->rows())); }
  Napi::Value Kind(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), hasher_->kind() == enc::SeriesKind::Ticks ? "ticks" : "rates");
  }

  std::unique_ptr<enc::RowHasher> hasher_;
};

}  // namespace

Napi::Function DefineRowHasher(Napi::Env env) { return RowHasherWrap::Define(env); }

}  // namespace tradeapi::napi
