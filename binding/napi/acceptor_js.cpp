// The JS face of net::Acceptor. Batches cross to the JS thread through a thread-safe function, one
// call per batch, so one event-loop turn receives every connection the thread took at once.
//
// Descriptor ownership: the accept thread owns a batch until the thread-safe function takes it;
// a batch that cannot be queued (the function is closing), or that reaches the JS thread after
// stop() or during teardown, is closed here, so no accepted connection leaks.
#include "acceptor_js.h"

#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "net/acceptor.h"

#if defined(TRADEAPI_HAS_ACCEPTOR)
#include <unistd.h>  // close(): POSIX only, like the accept loop itself
#endif

namespace tradeapi::napi {

#if defined(TRADEAPI_HAS_ACCEPTOR)
namespace {

void CloseAll(const std::vector<int>& fds) {
  for (int fd : fds) ::close(fd);
}

// Lives as long as the thread-safe function (deleted by its finalizer).
struct Context {
  bool stopped = false;  // set and read on the JS thread only
};

void CallJs(Napi::Env env, Napi::Function on_sockets, Context* context, std::vector<int>* batch) {
  std::unique_ptr<std::vector<int>> fds(batch);
  // env is null when the queue is emptied at teardown.
  if (env == nullptr || on_sockets.IsEmpty() || context == nullptr || context->stopped) {
    CloseAll(*fds);
    return;
  }
  Napi::Array array = Napi::Array::New(env, fds->size());
  for (uint32_t i = 0; i < fds->size(); ++i) array.Set(i, Napi::Number::New(env, (*fds)[i]));
  // From here the descriptors belong to JS. A throwing callback becomes an uncaught exception in
  // JS (node's rule for thread-safe function callbacks), not a crash here.
  try {
    on_sockets.Call({array});
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();
  }
}

using Tsfn = Napi::TypedThreadSafeFunction<Context, std::vector<int>, CallJs>;

class Handle {
 public:
  Handle(Context* context, Tsfn tsfn) : context_(context), tsfn_(tsfn) {}
  ~Handle() { Stop(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  void Start(int listen_fd) {
    Tsfn tsfn = tsfn_;
    acceptor_ = std::make_unique<net::Acceptor>(listen_fd, [tsfn](std::vector<int> fds) mutable {
      auto* batch = new std::vector<int>(std::move(fds));
      if (tsfn.NonBlockingCall(batch) != napi_ok) {
        CloseAll(*batch);
        delete batch;
      }
    });
  }

  // JS thread only (stop() or the finalizer of stop's closure).
  void Stop() {
    if (!acceptor_) return;
    context_->stopped = true;  // batches already queued are closed when they arrive
    acceptor_->Stop();         // joins: no NonBlockingCall after this
    acceptor_.reset();
    tsfn_.Release();
  }

 private:
  Context* context_;
  Tsfn tsfn_;
  std::unique_ptr<net::Acceptor> acceptor_;
};

}  // namespace

Napi::Value StartAcceptor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsFunction()) {
    throw Napi::TypeError::New(env, "startAcceptor(fd, onSockets) needs a descriptor and a function");
  }
  int fd = info[0].As<Napi::Number>().Int32Value();
  if (fd < 0) throw Napi::TypeError::New(env, "startAcceptor: the descriptor must be >= 0");
  auto* context = new Context();
  Tsfn tsfn = Tsfn::New(env, info[1].As<Napi::Function>(), "tradeapi-acceptor", 0, 1, context,
                        [](Napi::Env, void*, Context* c) { delete c; });
  // The listening server keeps the process alive, not its accept thread.
  tsfn.Unref(env);
  auto handle = std::make_shared<Handle>(context, tsfn);
  try {
    handle->Start(fd);
  } catch (const std::system_error& e) {
    tsfn.Release();  // no thread: nothing will ever call it
    throw Napi::Error::New(env, std::string("startAcceptor: ") + e.what());
  }
  Napi::Object result = Napi::Object::New(env);
  // The closure holds the handle: the thread stops at stop() or, at the latest, when the closure
  // is collected.
  result.Set("stop", Napi::Function::New(env, [handle](const Napi::CallbackInfo&) { handle->Stop(); }, "stop"));
  return result;
}

#else  // no native accept loop on this platform

Napi::Value StartAcceptor(const Napi::CallbackInfo& info) {
  return info.Env().Null();
}

#endif

}  // namespace tradeapi::napi
