// Chooses the HTTP adapter: uWebSockets.js where it loads, node:http otherwise, or the one forced
// by TRADEAPI_HTTP. Forcing uws where it cannot load is a start-up error, not a silent fallback.
import type { AdapterName } from '../../config/index.js';
import type { HttpAdapter } from '../adapter.js';
import { nodeAdapter } from './node/adapter.js';
import { createUwsAdapter, loadUws } from './uws/adapter.js';

export interface AdapterChoice {
  adapter: HttpAdapter;
  /** Why this adapter, for the start-up log line. */
  reason: string;
}

export class AdapterUnavailableError extends Error {
  override readonly name = 'AdapterUnavailableError';
}

export function pickAdapter(forced: AdapterName | undefined): AdapterChoice {
  if (forced === 'node') return { adapter: nodeAdapter, reason: 'forced by TRADEAPI_HTTP=node' };
  const uws = loadUws();
  if ('module' in uws) {
    return { adapter: createUwsAdapter(uws.module), reason: forced ? 'forced by TRADEAPI_HTTP=uws' : 'uWebSockets.js loaded' };
  }
  if (forced === 'uws') throw new AdapterUnavailableError(`TRADEAPI_HTTP=uws but uWebSockets.js does not load here: ${uws.error}`);
  return { adapter: nodeAdapter, reason: `uWebSockets.js unavailable (${uws.error})` };
}

/** Every adapter that works on this machine (tests run against each). */
export function availableAdapters(): HttpAdapter[] {
  const adapters: HttpAdapter[] = [nodeAdapter];
  const uws = loadUws();
  if ('module' in uws) adapters.push(createUwsAdapter(uws.module));
  return adapters;
}
