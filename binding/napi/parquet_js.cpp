// ParquetWriter: one Parquet file being written by JS as "PAR1", then the bytes of each row group
// in the order encodeRowGroup was called, then finish()'s footer (with the caller's key-value
// metadata, if any). Row groups encode in parallel on
// the libuv thread pool; the footer needs every one of them encoded (none failed, none pending).
//
// A row group's input is a list of slices [chunk, from, to) of series chunks (the terminal's
// column objects: {time: BigInt64Array, bid: Float64Array, ...}); the worker reads the chunks'
// typed arrays in place, and holds a reference to each array until it is done, so they cannot be
// collected under it. JS must not modify or detach them meanwhile (chunks are read-only by contract).
#include "parquet_js.h"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "parquet/parquet_writer.h"
#include "thread_priority.h"

namespace tradeapi::napi {
namespace {

namespace pq = tradeapi::parquet;

// What every row group of one file shares; immutable once the writer is constructed (read by the
// pool threads).
struct FileConfig {
  pq::Schema schema;
  pq::WriterOptions options;
  std::string created_by;
};

// Per-file state, touched on the JS thread only.
struct FileState {
  std::shared_ptr<const FileConfig> config;
  std::vector<std::optional<pq::RowGroupMeta>> groups;  // in encodeRowGroup call order
  size_t pending = 0;
  bool failed = false;
  bool finished = false;
};

class EncodeWorker : public Napi::AsyncWorker {
 public:
  EncodeWorker(Napi::Env env, std::shared_ptr<FileState> state, size_t id, pq::RowGroupInput input,
               std::vector<Napi::ObjectReference> arrays)
      : Napi::AsyncWorker(env, "tradeapi:parquetRowGroup"),
        deferred_(Napi::Promise::Deferred::New(env)),
        state_(std::move(state)),
        config_(state_->config),
        id_(id),
        input_(std::move(input)),
        arrays_(std::move(arrays)) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    // Bulk work: at a lower OS priority on this pool thread while an interactive call waits,
    // restored when it has been answered or the row group is done (thread_priority.h).
    const BulkPriority bulk;
    try {
      result_ = pq::encode_row_group(config_->schema, config_->options, input_);
    } catch (const std::exception& e) {
      SetError(std::string("parquet: ") + e.what());
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    state_->pending--;
    state_->groups[id_] = std::move(result_.meta);
    auto* bytes = new std::vector<uint8_t>(std::move(result_.bytes));
    Napi::Buffer<uint8_t> buffer = Napi::Buffer<uint8_t>::NewOrCopy(
        env, bytes->data(), bytes->size(), [](Napi::Env, uint8_t*, std::vector<uint8_t>* v) { delete v; }, bytes);
    deferred_.Resolve(buffer);
  }

  void OnError(const Napi::Error& error) override {
    state_->pending--;
    state_->failed = true;
    deferred_.Reject(error.Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<FileState> state_;
  std::shared_ptr<const FileConfig> config_;
  size_t id_;
  pq::RowGroupInput input_;
  std::vector<Napi::ObjectReference> arrays_;  // keeps the chunks' arrays alive while encoding
  pq::EncodedRowGroup result_;
};

// Whether a typed array can feed a column of this physical type (signedness is the schema's).
bool Accepts(pq::PhysicalType type, napi_typedarray_type array) {
  switch (type) {
    case pq::PhysicalType::Int32: return array == napi_int32_array || array == napi_uint32_array;
    case pq::PhysicalType::Int64: return array == napi_bigint64_array || array == napi_biguint64_array;
    case pq::PhysicalType::Double: return array == napi_float64_array;
    case pq::PhysicalType::ByteArray: return array == napi_uint16_array;  // indices into the column's dictionary
  }
  return false;
}

const char* ExpectedArray(const pq::ColumnSpec& spec) {
  switch (spec.type) {
    case pq::PhysicalType::Int32: return spec.logical == pq::LogicalType::Uint32 ? "Uint32Array" : "Int32Array";
    case pq::PhysicalType::Int64: return spec.logical == pq::LogicalType::Uint64 ? "BigUint64Array" : "BigInt64Array";
    case pq::PhysicalType::Double: return "Float64Array";
    case pq::PhysicalType::ByteArray: return "Uint16Array";
  }
  return "typed array";
}

size_t IndexValue(Napi::Env env, const Napi::Value& v, const char* what) {
  if (!v.IsNumber()) throw Napi::TypeError::New(env, std::string("ParquetWriter: ") + what + " must be a number");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 0 && d <= 9007199254740991.0) || static_cast<double>(static_cast<int64_t>(d)) != d)
    throw Napi::RangeError::New(env, std::string("ParquetWriter: ") + what + " must be a non-negative integer");
  return static_cast<size_t>(d);
}

// finish()'s metadata argument: undefined / null for none, else an object whose own enumerable
// string-keyed properties are all strings (TypeError otherwise), within key_value.h's bounds
// (RangeError otherwise).
pq::KeyValueMetadata MetadataArg(Napi::Env env, const Napi::Value& v) {
  pq::KeyValueMetadata out;
  if (v.IsUndefined() || v.IsNull()) return out;
  if (!v.IsObject() || v.IsArray()) throw Napi::TypeError::New(env, "ParquetWriter.finish: metadata must be an object of strings");
  napi_value names_value;
  if (napi_get_all_property_names(env, v, napi_key_own_only, static_cast<napi_key_filter>(napi_key_enumerable | napi_key_skip_symbols),
                                  napi_key_numbers_to_strings, &names_value) != napi_ok)
    throw Napi::Error::New(env, "ParquetWriter.finish: cannot list the metadata's keys");
  Napi::Array names(env, names_value);
  Napi::Object object = v.As<Napi::Object>();
  if (names.Length() > pq::kMaxKeyValuePairs)
    throw Napi::RangeError::New(env, "ParquetWriter.finish: " + std::to_string(names.Length()) + " metadata keys, at most " +
                                         std::to_string(pq::kMaxKeyValuePairs));
  for (uint32_t i = 0; i < names.Length(); ++i) {
    Napi::Value name = names.Get(i);
    Napi::Value value = object.Get(name);
    std::string key = name.As<Napi::String>().Utf8Value();
    if (!value.IsString()) throw Napi::TypeError::New(env, "ParquetWriter.finish: metadata \"" + key + "\" must be a string");
    std::string text = value.As<Napi::String>().Utf8Value();
    if (key.size() > pq::kMaxKeyValueBytes || text.size() > pq::kMaxKeyValueBytes)
      throw Napi::RangeError::New(env, "ParquetWriter.finish: metadata keys and values are at most " + std::to_string(pq::kMaxKeyValueBytes) +
                                           " bytes of UTF-8 each");
    out.emplace_back(std::move(key), std::move(text));
  }
  return out;
}

class ParquetWriterWrap : public Napi::ObjectWrap<ParquetWriterWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "ParquetWriter",
                       {
                           InstanceMethod<&ParquetWriterWrap::EncodeRowGroup>("encodeRowGroup"),
                           InstanceMethod<&ParquetWriterWrap::Finish>("finish"),
                           InstanceAccessor<&ParquetWriterWrap::Pending>("pending"),
                           InstanceAccessor<&ParquetWriterWrap::RowGroups>("rowGroups"),
                           InstanceAccessor<&ParquetWriterWrap::Codec>("codec"),
                           InstanceAccessor<&ParquetWriterWrap::Level>("level"),
                       });
  }

  // new ParquetWriter(kind: 'ticks' | 'rates', options?: {codec?: 'zstd' | 'lz4' | 'none',
  //   level?: number, pageRows?: number, statistics?: boolean, byteStreamSplit?: boolean,
  //   dictionary?: boolean, pageCrc?: boolean, createdBy?: string, symbols?: string[]})
  // symbols: a multi-symbol series (src/terminal/merged-series.ts): a first column "symbol", STRING,
  // dictionary-encoded with these names, fed by the chunks' `symbol` Uint16Array of indices.
  explicit ParquetWriterWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ParquetWriterWrap>(info) {
    Napi::Env env = info.Env();
    auto config = std::make_shared<FileConfig>();
    const std::string kind = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
    if (kind == "ticks") config->schema = pq::tick_schema();
    else if (kind == "rates") config->schema = pq::rate_schema();
    else throw Napi::TypeError::New(env, "ParquetWriter: kind must be 'ticks' or 'rates'");
    Napi::Object options = info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env);
    Napi::Value codec = options.Get("codec");
    std::optional<pq::Codec> c = pq::Codec::Zstd;
    if (!codec.IsUndefined()) c = codec.IsString() ? pq::codec_from_name(codec.As<Napi::String>().Utf8Value()) : std::nullopt;
    if (!c) throw Napi::TypeError::New(env, "ParquetWriter: codec must be 'zstd', 'lz4' or 'none'");
    config->options.codec = *c;
    config->options.level = pq::default_level(*c);
    Napi::Value level = options.Get("level");
    if (!level.IsUndefined()) {
      if (!level.IsNumber()) throw Napi::TypeError::New(env, "ParquetWriter: level must be an integer");
      const double d = level.As<Napi::Number>().DoubleValue();
      if (!(d >= -1e6 && d <= 1e6) || static_cast<double>(static_cast<int>(d)) != d)
        throw Napi::TypeError::New(env, "ParquetWriter: level must be an integer");
      config->options.level = static_cast<int>(d);
    }
    try {
      pq::check_level(*c, config->options.level);
    } catch (const std::invalid_argument& e) {
      throw Napi::RangeError::New(env, std::string("ParquetWriter: ") + e.what());
    }
    Napi::Value page_rows = options.Get("pageRows");
    if (!page_rows.IsUndefined()) {
      config->options.page_rows = IndexValue(env, page_rows, "pageRows");
      if (config->options.page_rows == 0) throw Napi::RangeError::New(env, "ParquetWriter: pageRows must be positive");
    }
    Napi::Value symbols = options.Get("symbols");
    if (!symbols.IsUndefined()) {
      if (!symbols.IsArray()) throw Napi::TypeError::New(env, "ParquetWriter: symbols must be an array of strings");
      Napi::Array list = symbols.As<Napi::Array>();
      if (list.Length() == 0 || list.Length() > 65536) throw Napi::RangeError::New(env, "ParquetWriter: 1 to 65536 symbols");
      std::vector<std::string> names;
      for (uint32_t i = 0; i < list.Length(); ++i) {
        Napi::Value name = list.Get(i);
        if (!name.IsString()) throw Napi::TypeError::New(env, "ParquetWriter: symbols must be an array of strings");
        names.push_back(name.As<Napi::String>().Utf8Value());
      }
      config->schema.insert(config->schema.begin(), pq::dictionary_string_column("symbol", std::move(names)));
    }
    if (options.Get("byteStreamSplit").ToBoolean().Value()) config->schema = pq::with_byte_stream_split(std::move(config->schema));
    Napi::Value dictionary = options.Get("dictionary");
    if (!dictionary.IsUndefined()) config->options.dictionary = dictionary.ToBoolean().Value();
    Napi::Value statistics = options.Get("statistics");
    if (!statistics.IsUndefined()) config->options.statistics = statistics.ToBoolean().Value();
    Napi::Value page_crc = options.Get("pageCrc");
    if (!page_crc.IsUndefined()) config->options.page_crc = page_crc.ToBoolean().Value();
    Napi::Value created_by = options.Get("createdBy");
    config->created_by = created_by.IsString() ? created_by.As<Napi::String>().Utf8Value() : "tradeapi";
    state_ = std::make_shared<FileState>();
    state_->config = std::move(config);
  }

 private:
  // encodeRowGroup(slices: Array<[chunk, from, to]>) -> Promise<Buffer>
  Napi::Value EncodeRowGroup(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (state_->finished) throw Napi::Error::New(env, "ParquetWriter: finished");
    if (!info[0].IsArray()) throw Napi::TypeError::New(env, "ParquetWriter: encodeRowGroup expects an array of [chunk, from, to]");
    const FileConfig& config = *state_->config;
    Napi::Array slices = info[0].As<Napi::Array>();
    pq::RowGroupInput input;
    input.columns.resize(config.schema.size());
    std::vector<Napi::ObjectReference> arrays;
    arrays.reserve(slices.Length() * config.schema.size());
    for (uint32_t s = 0; s < slices.Length(); ++s) {
      Napi::Value slice = slices.Get(s);
      if (!slice.IsArray() || slice.As<Napi::Array>().Length() != 3 || !slice.As<Napi::Array>().Get(0u).IsObject())
        throw Napi::TypeError::New(env, "ParquetWriter: each slice must be [chunk, from, to]");
      Napi::Array triple = slice.As<Napi::Array>();
      Napi::Object chunk = triple.Get(0u).As<Napi::Object>();
      const size_t from = IndexValue(env, triple.Get(1u), "from");
      const size_t to = IndexValue(env, triple.Get(2u), "to");
      if (from > to) throw Napi::RangeError::New(env, "ParquetWriter: slice with from > to");
      if (from == to) continue;
      for (size_t c = 0; c < config.schema.size(); ++c) {
        const pq::ColumnSpec& spec = config.schema[c];
        Napi::Value value = chunk.Get(spec.name);
        if (!value.IsTypedArray() || !Accepts(spec.type, value.As<Napi::TypedArray>().TypedArrayType()))
          throw Napi::TypeError::New(env, "ParquetWriter: column \"" + spec.name + "\" must be a " + ExpectedArray(spec));
        Napi::TypedArray array = value.As<Napi::TypedArray>();
        if (array.ElementLength() < to)
          throw Napi::RangeError::New(env, "ParquetWriter: column \"" + spec.name + "\" has fewer than " + std::to_string(to) + " values");
        const auto* base = static_cast<const uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset();
        input.columns[c].push_back({base + from * array.ElementSize(), to - from});
        arrays.push_back(Napi::Persistent(static_cast<Napi::Object>(array)));
      }
    }
    if (input.columns.empty() || input.columns[0].empty()) throw Napi::RangeError::New(env, "ParquetWriter: a row group needs at least one row");
    const size_t id = state_->groups.size();
    state_->groups.emplace_back();
    state_->pending++;
    auto* worker = new EncodeWorker(env, state_, id, std::move(input), std::move(arrays));
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  }

  // finish(metadata?: Record<string, string>) -> Buffer: the footer (FileMetaData, its length,
  // "PAR1") for every row group so far, with `metadata` as its key_value_metadata (own enumerable
  // string keys, in property order). A bad `metadata` throws and leaves the writer unfinished.
  Napi::Value Finish(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const pq::KeyValueMetadata metadata = MetadataArg(env, info[0]);
    if (state_->finished) throw Napi::Error::New(env, "ParquetWriter: already finished");
    if (state_->failed) throw Napi::Error::New(env, "ParquetWriter: a row group failed to encode");
    if (state_->pending > 0) throw Napi::Error::New(env, "ParquetWriter: row groups are still encoding");
    std::vector<pq::RowGroupMeta> groups;
    groups.reserve(state_->groups.size());
    for (auto& g : state_->groups) groups.push_back(std::move(*g));
    state_->finished = true;
    const FileConfig& config = *state_->config;
    std::vector<uint8_t> footer;
    try {
      footer = pq::encode_footer(config.schema, config.options, groups, config.created_by, metadata);
    } catch (const std::exception& e) {
      throw Napi::Error::New(env, std::string("parquet: ") + e.what());
    }
    return Napi::Buffer<uint8_t>::Copy(env, footer.data(), footer.size());
  }

  Napi::Value Pending(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(state_->pending)); }
  Napi::Value RowGroups(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(state_->groups.size()));
  }
  Napi::Value Codec(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), pq::codec_name(state_->config->options.codec));
  }
  Napi::Value Level(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), state_->config->options.level); }

  std::shared_ptr<FileState> state_;
};

}  // namespace

Napi::Function DefineParquetWriter(Napi::Env env) { return ParquetWriterWrap::Define(env); }

}  // namespace tradeapi::napi
