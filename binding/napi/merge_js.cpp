// new SeriesMerger(kind: 'ticks' | 'rates', outRows)
//   setSource(id, chunk | null)            the source's current chunk (its window), or none
//   merge(positions: number[]) -> Promise<{ next: number[], chunk: Chunk | null }>
//   flush() -> Chunk | null
//
// setSource() reads the chunk's columns once and keeps references to them until it is replaced or
// cleared (a merge call used to take every source's chunk anew: 80 typed arrays looked up and
// referenced per call for ten symbols, ~140 µs of the JS thread each). merge() takes the sources
// [id, from, id, from, ...] (each set, each window non-empty from row `from` on), appends the next
// rows in merged order to the output being filled, up to the first window emptied, and resolves
// with each source's next row and, when the output reached `outRows` rows, that output as a chunk
// ({rows, time, bid, ..., symbol: Uint16Array of the sources' ids}). flush() hands over the rows
// filled so far (the end of the series). The planning and gathering run on a pool thread, reading
// the chunks' typed arrays in place: JS must not release or modify a set chunk until it is
// replaced, and may call setSource() only between merges (one merge() at a time per merger).
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

// One source's current chunk: its columns' first elements, held by references.
struct Slot {
  const void* column[8] = {};
  size_t rows = 0;
  std::vector<Napi::ObjectReference> arrays;
};

struct State {
  Kind kind;
  size_t out_rows;
  Output out;
  bool busy = false;
  std::vector<Slot> slots;  // by source id, JS thread only
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
              std::vector<std::vector<const void*>> columns)
      : Napi::AsyncWorker(env, "tradeapi:seriesMerge"),
        deferred_(Napi::Promise::Deferred::New(env)),
        st_(std::move(st)),
        sources_(std::move(sources)),
        columns_(std::move(columns)) {}

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
  std::vector<std::vector<const void*>> columns_;  // [column][source]: element 0 of each chunk's array (held by the slots)
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
                       {InstanceMethod<&SeriesMergerWrap::SetSource>("setSource"), InstanceMethod<&SeriesMergerWrap::Merge>("merge"),
                        InstanceMethod<&SeriesMergerWrap::Flush>("flush")});
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
  Napi::Value SetSource(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (st_->busy) throw Napi::Error::New(env, "SeriesMerger: a merge is in progress");
    const size_t id = IndexArg(env, info[0], "id", 65535);
    if (st_->slots.size() <= id) st_->slots.resize(id + 1);
    Slot slot;
    if (!info[1].IsNull() && !info[1].IsUndefined()) {
      if (!info[1].IsObject()) throw Napi::TypeError::New(env, "SeriesMerger: setSource expects a chunk or null");
      Napi::Object chunk = info[1].As<Napi::Object>();
      const FieldSpec* fields = st_->kind == Kind::Ticks ? kTickFields : kRateFields;
      slot.rows = IndexArg(env, chunk.Get("rows"), "rows");
      slot.arrays.reserve(kColumns);
      for (size_t c = 0; c < kColumns; ++c) {
        Napi::Value value = chunk.Get(fields[c].name);
        if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != fields[c].type)
          throw Napi::TypeError::New(env, std::string("SeriesMerger: column \"") + fields[c].name + "\" has the wrong type");
        Napi::TypedArray array = value.As<Napi::TypedArray>();
        if (array.ElementLength() < slot.rows)
          throw Napi::RangeError::New(env, std::string("SeriesMerger: column \"") + fields[c].name + "\" is shorter than rows");
        slot.column[c] = static_cast<const uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset();
        slot.arrays.push_back(Napi::Persistent(static_cast<Napi::Object>(array)));
      }
    }
    st_->slots[id] = std::move(slot);
    return env.Undefined();
  }

  Napi::Value Merge(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (st_->busy) throw Napi::Error::New(env, "SeriesMerger: a merge is in progress");
    if (!info[0].IsArray()) throw Napi::TypeError::New(env, "SeriesMerger: merge expects an array [id, from, id, from, ...]");
    Napi::Array list = info[0].As<Napi::Array>();
    if (list.Length() == 0 || list.Length() % 2 != 0 || list.Length() > 2 * 65536)
      throw Napi::RangeError::New(env, "SeriesMerger: merge expects 1 to 65536 pairs [id, from]");
    const size_t key_column = st_->kind == Kind::Ticks ? 5 : 0;  // time_msc, time
    const size_t n = list.Length() / 2;
    std::vector<MergeSource> sources;
    sources.reserve(n);
    std::vector<std::vector<const void*>> columns(kColumns);
    for (auto& c : columns) c.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      const size_t id = IndexArg(env, list.Get(2 * i), "id", 65535);
      const size_t from = IndexArg(env, list.Get(2 * i + 1), "from");
      if (id >= st_->slots.size() || st_->slots[id].arrays.empty()) throw Napi::RangeError::New(env, "SeriesMerger: a source without a chunk (setSource first)");
      const Slot& slot = st_->slots[id];
      if (from >= slot.rows) throw Napi::RangeError::New(env, "SeriesMerger: a source without rows left (from >= rows)");
      sources.push_back({static_cast<uint16_t>(id), static_cast<const int64_t*>(slot.column[key_column]), from, slot.rows});
      for (size_t c = 0; c < kColumns; ++c) columns[c].push_back(slot.column[c]);
    }
    st_->busy = true;
    auto* worker = new MergeWorker(env, st_, std::move(sources), std::move(columns));
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
