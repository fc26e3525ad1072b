// ZstdStream: see zstd_stream_js.h. Why the addon's zstd and not node's: node 20's zlib has no
// zstd (it came in 22.15 / 23.8), and zstd at level 1 compresses JSON text several times faster
// than gzip 1 at a smaller size (content-coding.ts has the figures), so it is the one coding that
// keeps up with the JSON encoder on one core.
#include "zstd_stream_js.h"

#include <zstd.h>

#include <memory>
#include <string>
#include <vector>

#include "thread_priority.h"

namespace tradeapi::napi {
namespace {

struct CCtxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
using CCtx = std::unique_ptr<ZSTD_CCtx, CCtxFree>;

// The output grows by ZSTD_CStreamOutSize() (~128 KiB) steps: at most the input's bound plus one
// block, whatever zstd keeps buffered.
class CompressWorker : public Napi::AsyncWorker {
 public:
  CompressWorker(Napi::Env env, Napi::Object stream, ZSTD_CCtx* cctx, std::shared_ptr<bool> busy, Napi::Object input,
                 const uint8_t* data, size_t size, bool end)
      : Napi::AsyncWorker(env, "tradeapi:zstd"),
        deferred_(Napi::Promise::Deferred::New(env)),
        stream_(Napi::Persistent(stream)),
        cctx_(cctx),
        busy_(std::move(busy)),
        input_(Napi::Persistent(input)),
        data_(data),
        size_(size),
        end_(end) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    const BulkPriority bulk;
    ZSTD_inBuffer in{data_, size_, 0};
    const size_t step = ZSTD_CStreamOutSize();
    const ZSTD_EndDirective mode = end_ ? ZSTD_e_end : ZSTD_e_continue;
    for (;;) {
      const size_t at = out_.size();
      out_.resize(at + step);
      ZSTD_outBuffer out{out_.data() + at, step, 0};
      const size_t left = ZSTD_compressStream2(cctx_, &out, &in, mode);
      out_.resize(at + out.pos);
      if (ZSTD_isError(left)) {
        SetError(std::string("zstd: ") + ZSTD_getErrorName(left));
        return;
      }
      // continue: done once the input is consumed; end: once the frame is flushed whole (left == 0).
      if (end_ ? left == 0 : in.pos == in.size) return;
    }
  }

  void OnOK() override {
    *busy_ = false;
    Napi::Env env = Env();
    auto* held = new std::vector<uint8_t>(std::move(out_));
    deferred_.Resolve(Napi::Buffer<uint8_t>::New(env, held->data(), held->size(),
                                                 [](Napi::Env, uint8_t*, std::vector<uint8_t>* v) { delete v; }, held));
  }

  void OnError(const Napi::Error& e) override {
    *busy_ = false;
    deferred_.Reject(e.Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference stream_;  // keeps the stream (and so cctx_) alive until the call settles
  ZSTD_CCtx* cctx_;
  std::shared_ptr<bool> busy_;
  Napi::ObjectReference input_;  // keeps the input's memory alive until the call settles
  const uint8_t* data_;
  size_t size_;
  bool end_;
  std::vector<uint8_t> out_;
};

class ZstdStreamWrap : public Napi::ObjectWrap<ZstdStreamWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "ZstdStream",
                       {
                           InstanceMethod<&ZstdStreamWrap::Compress>("compress"),
                           InstanceMethod<&ZstdStreamWrap::Close>("close"),
                       });
  }

  explicit ZstdStreamWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ZstdStreamWrap>(info) {
    Napi::Env env = info.Env();
    const int lo = ZSTD_minCLevel();
    const int hi = ZSTD_maxCLevel();
    if (!info[0].IsNumber()) throw Napi::TypeError::New(env, "ZstdStream: level must be a number");
    const double d = info[0].As<Napi::Number>().DoubleValue();
    if (!(d >= lo && d <= hi) || static_cast<double>(static_cast<int>(d)) != d)
      throw Napi::RangeError::New(env, "ZstdStream: level must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    cctx_.reset(ZSTD_createCCtx());
    if (!cctx_) throw Napi::Error::New(env, "ZstdStream: out of memory");
    const size_t r = ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_compressionLevel, static_cast<int>(d));
    if (ZSTD_isError(r)) throw Napi::Error::New(env, std::string("ZstdStream: ") + ZSTD_getErrorName(r));
    // A checksum per frame: a client can tell a damaged answer from a good one.
    ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_checksumFlag, 1);
  }

 private:
  Napi::Value Compress(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!cctx_ || ended_) throw Napi::Error::New(env, "ZstdStream: the stream is closed");
    if (*busy_) throw Napi::Error::New(env, "ZstdStream: one compress() at a time");
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      throw Napi::TypeError::New(env, "ZstdStream.compress: input must be a Uint8Array");
    if (!info[1].IsBoolean()) throw Napi::TypeError::New(env, "ZstdStream.compress: end must be a boolean");
    auto input = info[0].As<Napi::Uint8Array>();
    const bool end = info[1].As<Napi::Boolean>().Value();
    ended_ = end;
    *busy_ = true;
    auto* worker = new CompressWorker(env, info.This().As<Napi::Object>(), cctx_.get(), busy_, input, input.Data(),
                                      input.ByteLength(), end);
    worker->Queue();
    return worker->Promise();
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    if (*busy_) {
      // The pool thread is using it now: freed with the object, which the call in flight holds
      // until it settles.
      ended_ = true;
    } else {
      cctx_.reset();
    }
    return info.Env().Undefined();
  }

  CCtx cctx_;
  std::shared_ptr<bool> busy_ = std::make_shared<bool>(false);
  bool ended_ = false;
};

}  // namespace

Napi::Function DefineZstdStream(Napi::Env env) { return ZstdStreamWrap::Define(env); }

}  // namespace tradeapi::napi
