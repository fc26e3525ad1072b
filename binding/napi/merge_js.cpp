// new SeriesMerger(kind: 'ticks' | 'rates', outRows)
//   merge(sources: Array<[id, chunk, from]>) -> Promise<{ next: number[], chunk: Chunk | null }>
//   flush() -> Chunk | null
//
// merge() takes each source's chunk from row `from` on (the sources' current windows: every one
// non-empty), appends the next rows in merged order to the output being filled, up to the first
// window emptied, and resolves with each source's next row and, when the output reached `outRows`
// rows, that output as a chunk ({rows, time, bid, ..., symbol: Uint16Array of the sources' ids}).
// flush() hands over the rows filled so far (the end of the series). The planning and gathering
// run on a pool thread, reading the chunks' typed arrays in place (referenced until done: JS must
// not release or modify them meanwhile); one merge() at a time per merger.
#include "merge_js.h"

#include <memory>
#include <string>
#include <vector>

#include "column_pool.h"
#include "columns_js.h"
#include "terminal/series_merge.h"
#include "thread_priority.h"

namespace tradeapi::napi {
namespace {

enum class Kind { Ticks, Rates };

constexpr size_t kColumns = 8;
struct FieldSpec {
  const char* name;
  napi_typedarray_type type;
};
constexpr FieldSpec kTickFields[kColumns] = {
    {"time", napi_bigint64_array}, {"bid", napi_float64_array},     {"ask", napi_float64_array},  {"last", napi_float64_array},
    {"volume", napi_biguint64_array}, {"time_msc", napi_bigint64_array}, {"flags", napi_uint32_array}, {"volume_real", napi_float64_array},
};
constexpr FieldSpec kRateFields[kColumns] = {
    {"time", napi_bigint64_array}, {"open", napi_float64_array},          {"high", napi_float64_array}, {"low", napi_float64_array},
    {"close", napi_float64_array}, {"tick_volume", napi_biguint64_array}, {"spread", napi_int32_array},  {"real_volume", napi_biguint64_array},
};

// The output being filled: `filled` rows of columns sized to the merger's outRows.
struct Output {
  TickColumns ticks;
  RateColumns rates;
  Column<uint16_t> symbol;
  size_t filled = 0;
  bool open = false;
};

struct State {
  Kind kind;
  size_t out_rows;
  Output out;
  bool busy = false;
};

void Open(State& st) {
  if (st.out.open) return;
  if (st.kind == Kind::Ticks) {
    TakeColumns(st.out.ticks);
    TickColumns& c = st.out.ticks;
    for (auto* v : {&c.time, &c.time_msc}) v->resize(st.out_rows);
    for (auto* v : {&c.bid, &c.ask, &c.last, &c.volume_real}) v->resize(st.out_rows);
    c.volume.resize(st.out_rows);
    c.flags.resize(st.out_rows);
  } else {
    TakeColumns(st.out.rates);
    RateColumns& c = st.out.rates;
    c.time.resize(st.out_rows);
    for (auto* v : {&c.open, &c.high, &c.low, &c.close}) v->resize(st.out_rows);
    for (auto* v : {&c.tick_volume, &c.real_volume}) v->resize(st.out_rows);
    c.spread.resize(st.out_rows);
  }
  st.out.symbol = TakeSymbolColumn();
  st.out.symbol.resize(st.out_rows);
  st.out.filled = 0;
  st.out.open = true;
}

template <typename Columns>
void Shrink(Columns& c, size_t rows);
template <>
void Shrink(TickColumns& c, size_t n) {
  c.time.resize(n); c.bid.resize(n); c.ask.resize(n); c.last.resize(n); c.volume.resize(n);
  c.time_msc.resize(n); c.flags.resize(n); c.volume_real.resize(n);
}
template <>
void Shrink(RateColumns& c, size_t n) {
  c.time.resize(n); c.open.resize(n); c.high.resize(n); c.low.resize(n); c.close.resize(n);
  c.tick_volume.resize(n); c.spread.resize(n); c.real_volume.resize(n);
}

// The filled output as a JS chunk; the state starts a new output at the next merge.
Napi::Value TakeOutput(Napi::Env env, State& st) {
  if (!st.out.open || st.out.filled == 0) return env.Null();
  const size_t n = st.out.filled;
  st.out.open = false;
  st.out.symbol.resize(n);
  Napi::Object chunk;
  if (st.kind == Kind::Ticks) {
    Shrink(st.out.ticks, n);
    chunk = ToJs(env, std::move(st.out.ticks));
  } else {
    Shrink(st.out.rates, n);
    chunk = ToJs(env, std::move(st.out.rates));
  }
  chunk.Set("symbol", ToJs(env, std::move(st.out.symbol)));
  return chunk;
}

template <typename T>
void GatherColumn(const MergeOrder& order, const std::vector<const void*>& in, T* out) {
  gather<T>(order, reinterpret_cast<const T* const*>(in.data()), out);
}

class MergeWorker : public Napi::AsyncWorker {
 public:
  MergeWorker(Napi::Env env, std::shared_ptr<State> st, std::vector<MergeSource> sources,
              std::vector<std::vector<const void*>> columns, std::vector<Napi::ObjectReference> arrays)
      : Napi::AsyncWorker(env, "tradeapi:seriesMerge"),
        deferred_(Napi::Promise::Deferred::New(env)),
        st_(std::move(st)),
        sources_(std::move(sources)),
        columns_(std::move(columns)),
        arrays_(std::move(arrays)) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    const BulkPriority bulk;
    State& st = *st_;
    Open(st);
    // The plan's scratch, per pool thread (a 16 K-row output: ~100 KB).
    thread_local MergeOrder order;
    const size_t at = st.out.filled;
    size_t n = 0;
    try {
      n = plan_merge(sources_, st.out_rows - at, order);
    } catch (const std::exception& e) {
      SetError(std::string("SeriesMerger: ") + e.what());
      return;
    }
    if (st.kind == Kind::Ticks) {
      TickColumns& c = st.out.ticks;
      GatherColumn<int64_t>(order, columns_[0], c.time.data() + at);
      GatherColumn<double>(order, columns_[1], c.bid.data() + at);
      GatherColumn<double>(order, columns_[2], c.ask.data() + at);
      GatherColumn<double>(order, columns_[3], c.last.data() + at);
      GatherColumn<uint64_t>(order, columns_[4], c.volume.data() + at);
      GatherColumn<int64_t>(order, columns_[5], c.time_msc.data() + at);
      GatherColumn<uint32_t>(order, columns_[6], c.flags.data() + at);
      GatherColumn<double>(order, columns_[7], c.volume_real.data() + at);
    } else {
      RateColumns& c = st.out.rates;
      GatherColumn<int64_t>(order, columns_[0], c.time.data() + at);
      GatherColumn<double>(order, columns_[1], c.open.data() + at);
      GatherColumn<double>(order, columns_[2], c.high.data() + at);
      GatherColumn<double>(order, columns_[3], c.low.data() + at);
      GatherColumn<double>(order, columns_[4], c.close.data() + at);
      GatherColumn<uint64_t>(order, columns_[5], c.tick_volume.data() + at);
      GatherColumn<int32_t>(order, columns_[6], c.spread.data() + at);
      GatherColumn<uint64_t>(order, columns_[7], c.real_volume.data() + at);
    }
    fill_source_ids(order, sources_, st.out.symbol.data() + at);
    st.out.filled = at + n;
  }

  void OnOK() override {
    Napi::Env env = Env();
    State& st = *st_;
    st.busy = false;
    Napi::Object result = Napi::Object::New(env);
    Napi::Array next = Napi::Array::New(env, sources_.size());
    for (uint32_t i = 0; i < sources_.size(); ++i) next.Set(i, Napi::Number::New(env, static_cast<double>(sources_[i].from)));
    result.Set("next", next);
    result.Set("chunk", st.out.filled >= st.out_rows ? TakeOutput(env, st) : env.Null());
    deferred_.Resolve(result);
  }

  void OnError(const Napi::Error& error) override {
    st_->busy = false;
    deferred_.Reject(error.Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<State> st_;
  std::vector<MergeSource> sources_;
  std::vector<std::vector<const void*>> columns_;  // [column][source]: element 0 of each chunk's array
  std::vector<Napi::ObjectReference> arrays_;      // keeps the chunks' arrays alive while merging
};

size_t IndexArg(Napi::Env env, const Napi::Value& v, const char* what, double max = 9007199254740991.0) {
  if (!v.IsNumber()) throw Napi::TypeError::New(env, std::string("SeriesMerger: ") + what + " must be a number");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 0 && d <= max) || static_cast<double>(static_cast<int64_t>(d)) != d)
    throw Napi::RangeError::New(env, std::string("SeriesMerger: ") + what + " must be an integer from 0 to " + std::to_string(static_cast<int64_t>(max)));
  return static_cast<size_t>(d);
}

class SeriesMergerWrap : public Napi::ObjectWrap<SeriesMergerWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "SeriesMerger",
                       {InstanceMethod<&SeriesMergerWrap::Merge>("merge"), InstanceMethod<&SeriesMergerWrap::Flush>("flush")});
  }

  explicit SeriesMergerWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SeriesMergerWrap>(info) {
    Napi::Env env = info.Env();
    const std::string kind = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
    if (kind != "ticks" && kind != "rates") throw Napi::TypeError::New(env, "SeriesMerger: kind must be 'ticks' or 'rates'");
    st_ = std::make_shared<State>();
    st_->kind = kind == "ticks" ? Kind::Ticks : Kind::Rates;
    st_->out_rows = IndexArg(env, info[1], "outRows", 1 << 24);
    if (st_->out_rows == 0) throw Napi::RangeError::New(env, "SeriesMerger: outRows must be positive");
  }

 private:
  Napi::Value Merge(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (st_->busy) throw Napi::Error::New(env, "SeriesMerger: a merge is in progress");
    if (!info[0].IsArray()) throw Napi::TypeError::New(env, "SeriesMerger: merge expects an array of [id, chunk, from]");
    Napi::Array list = info[0].As<Napi::Array>();
    if (list.Length() == 0 || list.Length() > 65536) throw Napi::RangeError::New(env, "SeriesMerger: 1 to 65536 sources");
    const FieldSpec* fields = st_->kind == Kind::Ticks ? kTickFields : kRateFields;
    const size_t key_column = st_->kind == Kind::Ticks ? 5 : 0;  // time_msc, time
    std::vector<MergeSource> sources;
    std::vector<std::vector<const void*>> columns(kColumns);
    std::vector<Napi::ObjectReference> arrays;
    arrays.reserve(list.Length() * kColumns);
    for (uint32_t s = 0; s < list.Length(); ++s) {
      Napi::Value item = list.Get(s);
      if (!item.IsArray() || item.As<Napi::Array>().Length() != 3 || !item.As<Napi::Array>().Get(1u).IsObject())
        throw Napi::TypeError::New(env, "SeriesMerger: each source must be [id, chunk, from]");
      Napi::Array triple = item.As<Napi::Array>();
      const auto id = static_cast<uint16_t>(IndexArg(env, triple.Get(0u), "id", 65535));
      Napi::Object chunk = triple.Get(1u).As<Napi::Object>();
      const size_t from = IndexArg(env, triple.Get(2u), "from");
      const size_t rows = IndexArg(env, chunk.Get("rows"), "rows");
      if (from >= rows) throw Napi::RangeError::New(env, "SeriesMerger: a source without rows left (from >= rows)");
      MergeSource source{id, nullptr, from, rows};
      for (size_t c = 0; c < kColumns; ++c) {
        Napi::Value value = chunk.Get(fields[c].name);
        if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != fields[c].type)
          throw Napi::TypeError::New(env, std::string("SeriesMerger: column \"") + fields[c].name + "\" has the wrong type");
        Napi::TypedArray array = value.As<Napi::TypedArray>();
        if (array.ElementLength() < rows)
          throw Napi::RangeError::New(env, std::string("SeriesMerger: column \"") + fields[c].name + "\" is shorter than rows");
        const void* base = static_cast<const uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset();
        columns[c].push_back(base);
        if (c == key_column) source.key = static_cast<const int64_t*>(base);
        arrays.push_back(Napi::Persistent(static_cast<Napi::Object>(array)));
      }
      sources.push_back(source);
    }
    st_->busy = true;
    auto* worker = new MergeWorker(env, st_, std::move(sources), std::move(columns), std::move(arrays));
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  }

  Napi::Value Flush(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (st_->busy) throw Napi::Error::New(env, "SeriesMerger: a merge is in progress");
    return TakeOutput(env, *st_);
  }

  std::shared_ptr<State> st_;
};

}  // namespace

Napi::Function DefineSeriesMerger(Napi::Env env) { return SeriesMergerWrap::Define(env); }

}  // namespace tradeapi::napi
