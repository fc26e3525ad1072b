// ParquetReader: one Parquet file held by JS (a Buffer / Uint8Array, read from disk) whose row
// groups decode on the libuv thread pool into typed arrays, so that the store's reader can decode
// the next row groups while the JS thread encodes and sends the current ones.
//
// The file's bytes are read in place: the reader and every pending decode hold a reference to the
// JS array, so it cannot be collected under a pool thread. JS must not modify or detach it meanwhile
// (reader.ts reads a file into a fresh Buffer and hands it over).
//
// Each decoded column is a fresh external ArrayBuffer over a std::vector from the column pool (as
// the terminal's chunks are, columns_js.cpp), returned to the pool when the GC frees it.
#include "parquet_reader_js.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "column_pool.h"
#include "parquet/parquet_reader.h"

namespace tradeapi::napi {
namespace {

namespace pq = tradeapi::parquet;

// The typed array a column decodes to: the physical type with the logical type's signedness, as
// the terminal's chunks have them (flags Uint32Array, volumes BigUint64Array, ...).
enum class JsType { Int32, Uint32, Int64, Uint64, Double };

JsType JsTypeOf(const pq::ColumnDescriptor& d) {
  switch (d.type) {
    case pq::ReadType::Int32: return d.is_signed ? JsType::Int32 : JsType::Uint32;
    case pq::ReadType::Int64: return d.is_signed ? JsType::Int64 : JsType::Uint64;
    case pq::ReadType::Double: return JsType::Double;
  }
  return JsType::Double;
}

const char* JsTypeName(JsType t) {
  switch (t) {
    case JsType::Int32: return "Int32Array";
    case JsType::Uint32: return "Uint32Array";
    case JsType::Int64: return "BigInt64Array";
    case JsType::Uint64: return "BigUint64Array";
    case JsType::Double: return "Float64Array";
  }
  return "";
}

template <typename T>
struct TypedArrayOf;
template <> struct TypedArrayOf<int64_t> { static constexpr napi_typedarray_type type = napi_bigint64_array; };
template <> struct TypedArrayOf<uint64_t> { static constexpr napi_typedarray_type type = napi_biguint64_array; };
template <> struct TypedArrayOf<double> { static constexpr napi_typedarray_type type = napi_float64_array; };
template <> struct TypedArrayOf<uint32_t> { static constexpr napi_typedarray_type type = napi_uint32_array; };
template <> struct TypedArrayOf<int32_t> { static constexpr napi_typedarray_type type = napi_int32_array; };

template <typename T>
Napi::Value ToArray(Napi::Env env, Column<T>&& values) {
  const size_t length = values.size();
  Napi::ArrayBuffer buffer;
  if (length == 0) {
    buffer = Napi::ArrayBuffer::New(env, 0);
  } else {
    auto* owned = new Column<T>(std::move(values));
    buffer = Napi::ArrayBuffer::New(
        env, owned->data(), length * sizeof(T),
        [](Napi::Env, void*, Column<T>* v) {
          ColumnPool<T>::give(std::move(*v));
          delete v;
        },
        owned);
  }
  napi_value array;
  NAPI_THROW_IF_FAILED(env, napi_create_typedarray(env, TypedArrayOf<T>::type, length, buffer, 0, &array), Napi::Value());
  return Napi::Value(env, array);
}

// One requested column's output: exactly one of the vectors is used (the one of its JsType).
struct OutColumn {
  size_t index = 0;  // in the file's schema
  JsType type = JsType::Double;
  bool ms_to_seconds = false;
  Column<int32_t> i32;
  Column<uint32_t> u32;
  Column<int64_t> i64;
  Column<uint64_t> u64;
  Column<double> f64;
};

// Decodes into a vector from the pool, resized to `rows` (not zeroed first: decode_column writes
// every value or throws).
template <typename T>
void DecodeInto(Column<T>& v, const uint8_t* data, size_t size, const pq::FileInfo& info, size_t group, size_t column,
                size_t rows) {
  v = ColumnPool<T>::take();
  v.resize(rows);
  pq::decode_column(data, size, info, group, column, v.data(), rows * sizeof(T));
}

Napi::Error ParquetError(Napi::Env env, const std::string& message, const char* code) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", Napi::String::New(env, code));
  return e;
}

class DecodeWorker : public Napi::AsyncWorker {
 public:
  DecodeWorker(Napi::Env env, Napi::Object bytes, const uint8_t* data, size_t size, std::shared_ptr<const pq::FileInfo> info,
               size_t group, std::vector<OutColumn> columns)
      : Napi::AsyncWorker(env, "tradeapi:parquetDecode"),
        deferred_(Napi::Promise::Deferred::New(env)),
        bytes_(Napi::Persistent(bytes)),
        data_(data),
        size_(size),
        info_(std::move(info)),
        group_(group),
        columns_(std::move(columns)) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      const auto rows = static_cast<size_t>(info_->row_groups[group_].num_rows);
      for (OutColumn& c : columns_) {
        switch (c.type) {
          case JsType::Int32: DecodeInto(c.i32, data_, size_, *info_, group_, c.index, rows); break;
          case JsType::Uint32: DecodeInto(c.u32, data_, size_, *info_, group_, c.index, rows); break;
          case JsType::Int64: DecodeInto(c.i64, data_, size_, *info_, group_, c.index, rows); break;
          case JsType::Uint64: DecodeInto(c.u64, data_, size_, *info_, group_, c.index, rows); break;
          case JsType::Double: DecodeInto(c.f64, data_, size_, *info_, group_, c.index, rows); break;
        }
        if (c.ms_to_seconds) {
          // Truncating division, as BigInt's `ms / 1000n` (the parquet-wasm path) does.
          for (int64_t& v : c.i64) v /= 1000;
        }
      }
    } catch (const pq::UnsupportedError& e) {
      code_ = "ERR_PARQUET_UNSUPPORTED";
      SetError(e.what());
    } catch (const pq::CorruptError& e) {
      code_ = "ERR_PARQUET_CORRUPT";
      SetError(e.what());
    } catch (const std::exception& e) {
      code_ = "ERR_PARQUET_DECODE";
      SetError(std::string("parquet: ") + e.what());
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::Object out = Napi::Object::New(env);
    for (OutColumn& c : columns_) {
      const std::string& name = info_->columns[c.index].name;
      switch (c.type) {
        case JsType::Int32: out.Set(name, ToArray(env, std::move(c.i32))); break;
        case JsType::Uint32: out.Set(name, ToArray(env, std::move(c.u32))); break;
        case JsType::Int64: out.Set(name, ToArray(env, std::move(c.i64))); break;
        case JsType::Uint64: out.Set(name, ToArray(env, std::move(c.u64))); break;
        case JsType::Double: out.Set(name, ToArray(env, std::move(c.f64))); break;
      }
    }
    deferred_.Resolve(out);
  }

  void OnError(const Napi::Error& error) override {
    Napi::Env env = Env();
    deferred_.Reject(ParquetError(env, error.Message(), code_).Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference bytes_;  // keeps the file's bytes alive while a pool thread reads them
  const uint8_t* data_;
  size_t size_;
  std::shared_ptr<const pq::FileInfo> info_;
  size_t group_;
  std::vector<OutColumn> columns_;
  const char* code_ = "ERR_PARQUET_DECODE";
};

class ParquetReaderWrap : public Napi::ObjectWrap<ParquetReaderWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "ParquetReader",
                       {
                           InstanceMethod<&ParquetReaderWrap::DecodeRowGroup>("decodeRowGroup"),
                           InstanceAccessor<&ParquetReaderWrap::RowGroups>("rowGroups"),
                           InstanceAccessor<&ParquetReaderWrap::Columns>("columns"),
                           InstanceAccessor<&ParquetReaderWrap::NumRows>("numRows"),
                           InstanceAccessor<&ParquetReaderWrap::CreatedBy>("createdBy"),
                           InstanceAccessor<&ParquetReaderWrap::Metadata>("metadata"),
                       });
  }

  // new ParquetReader(bytes: Uint8Array): the footer is parsed here (small: on the JS thread).
  explicit ParquetReaderWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ParquetReaderWrap>(info) {
    Napi::Env env = info.Env();
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      throw Napi::TypeError::New(env, "ParquetReader: expects a Buffer or Uint8Array");
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    data_ = bytes.Data();
    size_ = bytes.ByteLength();
    bytes_ = Napi::Persistent(static_cast<Napi::Object>(bytes));
    try {
      info_ = std::make_shared<const pq::FileInfo>(pq::read_metadata(data_, size_));
    } catch (const pq::UnsupportedError& e) {
      throw ParquetError(env, e.what(), "ERR_PARQUET_UNSUPPORTED");
    } catch (const pq::CorruptError& e) {
      throw ParquetError(env, e.what(), "ERR_PARQUET_CORRUPT");
    } catch (const std::exception& e) {
      throw ParquetError(env, std::string("parquet: ") + e.what(), "ERR_PARQUET_DECODE");
    }
  }

 private:
  // decodeRowGroup(index, {columns?: string[], msToSeconds?: string[]}) -> Promise<{[column]: TypedArray}>
  // (each array rowGroups[index].rows long)
  // columns: which to decode (default all); msToSeconds: signed INT64 columns returned divided by
  // 1000 (the store's `time`, milliseconds on disk, seconds in the terminal's chunks).
  Napi::Value DecodeRowGroup(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsNumber()) throw Napi::TypeError::New(env, "ParquetReader: decodeRowGroup expects a row group index");
    const double index = info[0].As<Napi::Number>().DoubleValue();
    if (!(index >= 0) || index >= static_cast<double>(info_->row_groups.size()) || static_cast<double>(static_cast<size_t>(index)) != index)
      throw Napi::RangeError::New(env, "ParquetReader: no row group " + info[0].ToString().Utf8Value());
    Napi::Object options = info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env);
    std::vector<OutColumn> columns;
    Napi::Value wanted = options.Get("columns");
    auto add = [&](size_t i) {
      OutColumn c;
      c.index = i;
      c.type = JsTypeOf(info_->columns[i]);
      columns.push_back(std::move(c));
    };
    if (wanted.IsUndefined()) {
      for (size_t i = 0; i < info_->columns.size(); ++i) add(i);
    } else {
      if (!wanted.IsArray()) throw Napi::TypeError::New(env, "ParquetReader: columns must be an array of names");
      Napi::Array names = wanted.As<Napi::Array>();
      for (uint32_t k = 0; k < names.Length(); ++k) {
        const std::string name = names.Get(k).ToString().Utf8Value();
        const int i = info_->find(name);
        if (i < 0) throw Napi::Error::New(env, "ParquetReader: no column \"" + name + "\"");
        add(static_cast<size_t>(i));
      }
    }
    Napi::Value seconds = options.Get("msToSeconds");
    if (!seconds.IsUndefined()) {
      if (!seconds.IsArray()) throw Napi::TypeError::New(env, "ParquetReader: msToSeconds must be an array of names");
      Napi::Array names = seconds.As<Napi::Array>();
      for (uint32_t k = 0; k < names.Length(); ++k) {
        const std::string name = names.Get(k).ToString().Utf8Value();
        bool found = false;
        for (OutColumn& c : columns) {
          if (info_->columns[c.index].name != name) continue;
          if (c.type != JsType::Int64) throw Napi::TypeError::New(env, "ParquetReader: msToSeconds column \"" + name + "\" is not a signed INT64");
          c.ms_to_seconds = true;
          found = true;
        }
        if (!found) throw Napi::Error::New(env, "ParquetReader: msToSeconds names \"" + name + "\", which is not decoded");
      }
    }
    auto* worker = new DecodeWorker(env, bytes_.Value(), data_, size_, info_, static_cast<size_t>(index), std::move(columns));
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  }

  // [{rows, minTimeMsc?, maxTimeMsc?}]: the time_msc bounds from the column chunk statistics (as
  // numbers: milliseconds are exact below 2^53), when the file has such a column and wrote them.
  Napi::Value RowGroups(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const int msc = info_->find("time_msc");
    Napi::Array out = Napi::Array::New(env, info_->row_groups.size());
    for (size_t g = 0; g < info_->row_groups.size(); ++g) {
      Napi::Object o = Napi::Object::New(env);
      o.Set("rows", Napi::Number::New(env, static_cast<double>(info_->row_groups[g].num_rows)));
      if (msc >= 0) {
        if (auto range = info_->int_range(g, static_cast<size_t>(msc))) {
          o.Set("minTimeMsc", Napi::Number::New(env, static_cast<double>(range->first)));
          o.Set("maxTimeMsc", Napi::Number::New(env, static_cast<double>(range->second)));
        }
      }
      out.Set(static_cast<uint32_t>(g), o);
    }
    return out;
  }

  // [{name, array}]: each column and the typed array it decodes to.
  Napi::Value Columns(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Array out = Napi::Array::New(env, info_->columns.size());
    for (size_t i = 0; i < info_->columns.size(); ++i) {
      Napi::Object o = Napi::Object::New(env);
      o.Set("name", Napi::String::New(env, info_->columns[i].name));
      o.Set("array", Napi::String::New(env, JsTypeName(JsTypeOf(info_->columns[i]))));
      out.Set(static_cast<uint32_t>(i), o);
    }
    return out;
  }

  Napi::Value NumRows(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(info_->num_rows)); }
  Napi::Value CreatedBy(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), info_->created_by); }

  // The footer's key-value metadata as a frozen object without a prototype (so that no key, not
  // even "__proto__" or "constructor", means anything but the file's own value), keys in file
  // order; an empty object when the file has none. Made once.
  Napi::Value Metadata(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!metadata_.IsEmpty()) return metadata_.Value();
    Napi::Object global_object = env.Global().Get("Object").As<Napi::Object>();
    Napi::Object out = global_object.Get("create").As<Napi::Function>().Call(global_object, {env.Null()}).As<Napi::Object>();
    for (const auto& [key, value] : info_->key_value_metadata) {
      out.DefineProperty(Napi::PropertyDescriptor::Value(Napi::String::New(env, key), Napi::String::New(env, value), napi_enumerable));
    }
    global_object.Get("freeze").As<Napi::Function>().Call(global_object, {out});
    metadata_ = Napi::Persistent(out);
    return out;
  }

  Napi::ObjectReference bytes_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::shared_ptr<const pq::FileInfo> info_;
  Napi::ObjectReference metadata_;
};

}  // namespace

Napi::Function DefineParquetReader(Napi::Env env) { return ParquetReaderWrap::Define(env); }

}  // namespace tradeapi::napi
