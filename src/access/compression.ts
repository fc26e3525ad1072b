// TRADEAPI_COMPRESS: whether a JSON answer is compressed is the deployment's choice, not only the
// client's default headers. fetch, browsers, requests and httpx offer gzip and br on every request;
// on loopback or a LAN compressing a big answer costs more time (the server's CPU and the client's)
// than the bytes it saves (docs/api.md#compression). `auto` therefore answers identity to clients
// whose address (behind trusted proxies: client-address.ts) lies in TRADEAPI_COMPRESS_NEAR, and
// compresses as asked for everyone else.
import type { CompressionSettings } from '../config/index.js';
import type { CompressionPolicy } from '../http/policy.js';
import { clientAddress } from './client-address.js';

export function compressionPolicy(settings: CompressionSettings, trustProxy: number): CompressionPolicy {
  switch (settings.mode) {
    case 'always':
      return () => 'compress';
    case 'never':
      return () => 'identity';
    case 'auto':
      return (req) => (settings.near.contains(clientAddress(req, trustProxy)) ? 'prefer-identity' : 'compress');
  }
}
