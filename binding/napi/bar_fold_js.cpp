#include "bar_fold_js.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "columns_js.h"
#include "encode/bar_fold.h"
#include "thread_priority.h"

namespace tradeapi::napi {
namespace {

namespace enc = tradeapi::encode;

double NumberOf(Napi::Env env, const Napi::Object& o, const char* name) {
  Napi::Value v = o.Get(name);
  if (!v.IsNumber()) throw Napi::TypeError::New(env, std::string("BarFolder: option '") + name + "' must be a number");
  return v.As<Napi::Number>().DoubleValue();
}

int64_t IntegerOf(Napi::Env env, const Napi::Object& o, const char* name) {
  const double d = NumberOf(env, o, name);
  if (!(d >= -9007199254740991.0 && d <= 9007199254740991.0) || static_cast<double>(static_cast<int64_t>(d)) != d)
    throw Napi::RangeError::New(env, std::string("BarFolder: option '") + name + "' must be an integer");
  return static_cast<int64_t>(d);
}

std::string StringOf(Napi::Env env, const Napi::Object& o, const char* name) {
  Napi::Value v = o.Get(name);
  if (!v.IsString()) throw Napi::TypeError::New(env, std::string("BarFolder: option '") + name + "' must be a string");
  return v.As<Napi::String>().Utf8Value();
}

enc::BarFoldOptions OptionsOf(Napi::Env env, const Napi::Value& value) {
  if (!value.IsObject()) throw Napi::TypeError::New(env, "BarFolder: options object expected");
  const Napi::Object o = value.As<Napi::Object>();
  enc::BarFoldOptions out;
  const std::string kind = StringOf(env, o, "kind");
  if (kind == "time") {
    out.kind = enc::BarFoldOptions::Kind::Time;
    out.seconds = IntegerOf(env, o, "seconds");
    if (out.seconds <= 0 || 86400 % out.seconds != 0) throw Napi::RangeError::New(env, "BarFolder: seconds must divide a day");
  } else if (kind == "week") {
    out.kind = enc::BarFoldOptions::Kind::Week;
  } else if (kind == "ticks") {
    out.kind = enc::BarFoldOptions::Kind::Ticks;
    const int64_t count = IntegerOf(env, o, "count");
    if (count < 1) throw Napi::RangeError::New(env, "BarFolder: count must be at least 1");
    out.count = static_cast<uint64_t>(count);
  } else if (kind == "volume") {
    out.kind = enc::BarFoldOptions::Kind::Volume;
    out.size = NumberOf(env, o, "size");
    if (!(out.size > 0)) throw Napi::RangeError::New(env, "BarFolder: size must be above 0");
  } else {
    throw Napi::TypeError::New(env, "BarFolder: kind must be 'time', 'week', 'ticks' or 'volume'");
  }
  const std::string price = StringOf(env, o, "price");
  if (price == "bid") out.price = enc::BarFoldOptions::Price::Bid;
  else if (price == "ask") out.price = enc::BarFoldOptions::Price::Ask;
  else if (price == "mid") out.price = enc::BarFoldOptions::Price::Mid;
  else if (price == "last") out.price = enc::BarFoldOptions::Price::Last;
  else throw Napi::TypeError::New(env, "BarFolder: price must be 'bid', 'ask', 'mid' or 'last'");
  const int64_t digits = IntegerOf(env, o, "digits");
  if (digits < 0 || digits > 15) throw Napi::RangeError::New(env, "BarFolder: digits must be 0 to 15");
  out.digits = static_cast<int>(digits);
  out.from_s = IntegerOf(env, o, "fromS");
  out.to_s = IntegerOf(env, o, "toS");
  Napi::Value tr = o.Get("transitions");
  if (!tr.IsArray()) throw Napi::TypeError::New(env, "BarFolder: transitions must be an array of numbers (utc_s, offset_s pairs)");
  Napi::Array list = tr.As<Napi::Array>();
  if (list.Length() % 2 != 0) throw Napi::RangeError::New(env, "BarFolder: transitions must hold pairs");
  for (uint32_t i = 0; i < list.Length(); i += 2) {
    Napi::Value u = list.Get(i);
    Napi::Value off = list.Get(i + 1);
    if (!u.IsNumber() || !off.IsNumber()) throw Napi::TypeError::New(env, "BarFolder: transitions must be numbers");
    out.transitions.emplace_back(static_cast<int64_t>(u.As<Napi::Number>().DoubleValue()),
                                 static_cast<int64_t>(off.As<Napi::Number>().DoubleValue()));
    if (out.transitions.size() > 1 && out.transitions.back().first <= out.transitions[out.transitions.size() - 2].first)
      throw Napi::RangeError::New(env, "BarFolder: transitions must ascend");
  }
  return out;
}

// The tick columns the fold reads, in a TickChunk's field names.
struct TickField {
  const char* name;
  napi_typedarray_type type;
};
constexpr TickField kFields[7] = {
    {"time_msc", napi_bigint64_array}, {"bid", napi_float64_array},    {"ask", napi_float64_array},  {"last", napi_float64_array},
    {"volume", napi_biguint64_array},  {"flags", napi_uint32_array},   {"volume_real", napi_float64_array},
};

class FoldWorker : public Napi::AsyncWorker {
 public:
  FoldWorker(Napi::Env env, enc::BarFold* fold, enc::TickView view, std::vector<Napi::ObjectReference> keep, bool* busy)
      : Napi::AsyncWorker(env, "tradeapi:foldBars"), deferred_(Napi::Promise::Deferred::New(env)), fold_(fold), view_(view),
        keep_(std::move(keep)), busy_(busy) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    // Bulk work: at a lower OS priority while an interactive call waits (thread_priority.h).
    const BulkPriority bulk;
    fold_->push(view_);
  }
  void OnOK() override {
    *busy_ = false;
    deferred_.Resolve(Env().Undefined());
  }
  void OnError(const Napi::Error& error) override {
    *busy_ = false;
    deferred_.Reject(error.Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  enc::BarFold* fold_;
  enc::TickView view_;
  std::vector<Napi::ObjectReference> keep_;  // the folder and the chunk's arrays, alive while folding
  bool* busy_;
};

class BarFolderWrap : public Napi::ObjectWrap<BarFolderWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "BarFolder",
                       {
                           InstanceMethod<&BarFolderWrap::Push>("push"),
                           InstanceMethod<&BarFolderWrap::Take>("take"),
                           InstanceMethod<&BarFolderWrap::Finish>("finish"),
                       });
  }

  explicit BarFolderWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<BarFolderWrap>(info) {
    fold_ = std::make_unique<enc::BarFold>(OptionsOf(info.Env(), info[0]));
  }

 private:
  void NotBusy(Napi::Env env, const char* what) const {
    if (busy_) throw Napi::Error::New(env, std::string("BarFolder.") + what + ": a push is still folding (await it first)");
  }

  Napi::Value Push(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    NotBusy(env, "push");
    if (!info[0].IsObject()) throw Napi::TypeError::New(env, "BarFolder.push: a TickChunk expected");
    Napi::Object chunk = info[0].As<Napi::Object>();
    Napi::Value rows_value = chunk.Get("rows");
    const double d = rows_value.IsNumber() ? rows_value.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 0 && d <= 9007199254740991.0) || static_cast<double>(static_cast<int64_t>(d)) != d)
      throw Napi::TypeError::New(env, "BarFolder.push: chunk.rows must be a non-negative integer");
    enc::TickView view;
    view.rows = static_cast<size_t>(d);
    std::vector<Napi::ObjectReference> keep;
    keep.push_back(Napi::Persistent(Value()));
    const void* data[7] = {};
    for (size_t c = 0; c < 7; ++c) {
      Napi::Value value = chunk.Get(kFields[c].name);
      napi_typedarray_type type = napi_uint8_array;
      size_t length = 0;
      void* p = nullptr;
      if (!value.IsTypedArray() || napi_get_typedarray_info(env, value, &type, &length, &p, nullptr, nullptr) != napi_ok ||
          type != kFields[c].type || length < view.rows)
        throw Napi::TypeError::New(env, std::string("BarFolder.push: the chunk's \"") + kFields[c].name + "\" is not a typed array of the tick's type holding its rows");
      data[c] = p;
      keep.push_back(Napi::Persistent(value.As<Napi::Object>()));
    }
    view.time_msc = static_cast<const int64_t*>(data[0]);
    view.bid = static_cast<const double*>(data[1]);
    view.ask = static_cast<const double*>(data[2]);
    view.last = static_cast<const double*>(data[3]);
    view.volume = static_cast<const uint64_t*>(data[4]);
    view.flags = static_cast<const uint32_t*>(data[5]);
    view.volume_real = static_cast<const double*>(data[6]);
    busy_ = true;
    auto* worker = new FoldWorker(env, fold_.get(), view, std::move(keep), &busy_);
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  }

  Napi::Value Take(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    NotBusy(env, "take");
    const double min_rows = info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : 1;
    enc::BarColumns& bars = fold_->bars();
    if (bars.rows() == 0 || static_cast<double>(bars.rows()) < min_rows) return env.Undefined();
    enc::BarColumns taken = std::move(bars);
    bars = enc::BarColumns{};
    return ToJs(env, std::move(taken));
  }

  Napi::Value Finish(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    NotBusy(env, "finish");
    if (!info[0].IsNumber()) throw Napi::TypeError::New(env, "BarFolder.finish: nowServerMs must be a number");
    fold_->finish(static_cast<int64_t>(info[0].As<Napi::Number>().DoubleValue()), info[1].ToBoolean().Value());
    return env.Undefined();
  }

  std::unique_ptr<enc::BarFold> fold_;
  bool busy_ = false;
};

}  // namespace

Napi::Function DefineBarFolder(Napi::Env env) { return BarFolderWrap::Define(env); }

}  // namespace tradeapi::napi
