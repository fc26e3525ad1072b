// The WebSocket subprotocols GET /ws speaks: none (its protocol is the JSON messages of
// ws-protocol.ts, whatever the client asks for). The handshake's answer names a subprotocol only
// from this list, never one merely because the client offered it: both adapters' libraries would
// otherwise echo the first name offered, and a client that passes its API key as one would get it
// back in Sec-WebSocket-Protocol, which proxies log. Both adapters choose through this file.
export const SUBPROTOCOLS: readonly string[] = [];

/** The subprotocol to answer, from the names the client offered in order of its preference; undefined: none. */
export function selectSubprotocol(offered: Iterable<string>): string | undefined {
  for (const name of offered) if (SUBPROTOCOLS.includes(name)) return name;
  return undefined;
}

/** The names of a Sec-WebSocket-Protocol header (a comma-separated list; RFC 6455 11.3.4). */
export function offeredSubprotocols(header: string): string[] {
  return header
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}
