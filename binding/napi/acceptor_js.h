// startAcceptor(fd, onSockets): the native accept loop (net/acceptor.h) as seen from JS.
#pragma once
#include <napi.h>

namespace tradeapi::napi {

// startAcceptor(listenFd: number, onSockets: (fds: number[]) => void): { stop(): void } | null.
// Every batch the thread accepts arrives in one onSockets call on the JS thread; onSockets owns the
// descriptors. null where there is no native accept loop (Windows): the caller keeps node's own.
Napi::Value StartAcceptor(const Napi::CallbackInfo& info);

}  // namespace tradeapi::napi
