// ZstdStream: a streaming zstd compressor for HTTP answers (Content-Encoding: zstd, RFC 8878), as a
// JS class: `new ZstdStream(level)`, `compress(input: Uint8Array, end: boolean) -> Promise<Buffer>`
// (the compressed bytes this input produced; with end, the frame's last bytes too), `close()` (frees
// the context at once; later calls reject). One compress() at a time per stream (the caller awaits
// each); the work runs on the libuv pool at bulk priority (thread_priority.h), never on the event
// loop. The input is referenced until its call settles and must not be modified meanwhile.
#pragma once
#include <napi.h>

namespace tradeapi::napi {

Napi::Function DefineZstdStream(Napi::Env env);

}  // namespace tradeapi::napi
