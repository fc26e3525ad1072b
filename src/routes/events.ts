// GET /events: live ticks (and depth) as Server-Sent Events. Everything a request can get wrong is
// answered as a problem before the stream starts; the stream itself is src/events/session.ts.
import { Type } from '@sinclair/typebox';

import { MAX_EVENT_ID_CHARS, parseEventId } from '../events/event-id.js';
import { MAX_SPEED, type ReplayPlan } from '../events/replay.js';
import { EventSession } from '../events/session.js';
import { splitEventId } from '../events/deal-id.js';
import { ALL_KINDS, EVENT_KINDS, eventSchemas, parseKinds, type EventKind } from '../events/event-kinds.js';
import { accepts } from '../http/negotiate.js';
import { ProblemError, received, validationError } from '../http/problem.js';
import { Param } from '../http/params.js';
import { defineRoute, type Route } from '../http/route.js';
import { unknownSymbol } from '../http/symbol-hint.js';
import { TerminalError } from '../terminal/errors.js';
import { replayPlan } from '../events/replay-plan.js';
import type { LiveBarsRequest } from '../events/live-bars.js';
import { BAR_PRICES, barPriceOf, parseBarPeriod, type BarPrice } from '../terminal/bar-period.js';
import type { SymbolInfo } from '../terminal/records.js';

export const EVENT_STREAM_MEDIA_TYPE = 'text/event-stream';
/** The registry's kinds as the descriptions list them. */
const kindList = ALL_KINDS.map((k) => `- \`${k}\`: ${EVENT_KINDS[k].summary}.`).join('\n');

const description = `Server-Sent Events (\`Accept: text/event-stream\`), until the client leaves. The kinds (\`kinds\`):
${kindList}

The market kinds (tick, book, bar) need \`symbols\`; the account kinds (deal, order, position, account) need none and mix with them. A stream with order, position or account kinds first gets one \`snapshot\` event per such kind, \`{"kind":"order","orders":[…]}\`, \`{"kind":"position","positions":[…]}\`, \`{"kind":"account","account":{…}}\`, the full current state (also after every reconnect), then the changes: the client's state is snapshot + changes. With deal, every event id also names the last deal sent (\`deal:<time_msc>-<ticket>\`, after the ticks' (and bars') part and a \`;\`), and a reconnect with Last-Event-ID gets every deal after it from the deal history (also across a gateway restart), none twice. The account is polled every TRADEAPI_EVENTS_TRADE_MS (one poll for every client).

In detail:
- \`tick\`: every new tick of a listed symbol; \`data\` is one JSON tick with its \`symbol\` and the fields and units of /symbols/{symbol}/tick. Ticks of one symbol come in time order; ticks of several are merged in time order per poll of the terminal (during a catch-up, one symbol after the other).
- \`book\`: the depth \`{"symbol", "time_msc", "book": [BookInfo…]}\` of a listed symbol that has a market-depth subscription (POST /market-book/{symbol}/subscribe), whenever it changes (\`time_msc\`: when the gateway saw it). Not in read-only mode.
- \`gap\`: events were left out: \`{"reason": "slow-consumer", "dropped": N}\` when this client did not keep up (its queue, TRADEAPI_EVENTS_QUEUE_BYTES, overflowed); \`{"reason": "catch-up-window" | "catch-up-limit", "symbol", "from_msc", "to_msc"}\` when a reconnect could not be caught up entirely (fetch that span from /ticks/range).
- \`bar\` (\`kinds=bar&period=…\`, optional \`price\`): one per closed bar of a custom period as GET /ticks/bars takes it (90s, 3m, 2h, 1d, 1w, ticks:500, volume:100): \`{"symbol", "period", "time", "open", "high", "low", "close", "tick_volume", "spread", "real_volume", "time_close_msc"}\`, the values GET /ticks/bars returns for that bar later. A bar closes on the first tick at or after its end (a tick or volume bar on the tick that fills it), or, without one, once a poll that began past its end on the terminal's clock has come back (about one poll interval after the end). With \`bar\` an event id is \`<tick positions>~<position of the last bar sent, per symbol>\` (a time bar's time; a tick or volume bar's time_close_msc × 1000 plus its index among the bars closing in that millisecond); Last-Event-ID resumes the bars too (the missed ones built from history, within TRADEAPI_EVENTS_CATCHUP_MS; a \`gap\` names what is older). Not with \`start\`.
- a comment line as heartbeat after TRADEAPI_EVENTS_HEARTBEAT_MS (15 s) without an event.
- \`replay-complete\` / \`replay-end\` (with \`start\`): \`{"id", "ticks"}\` (the last history tick's id, the history ticks sent) where a replay's history meets live ticks, or where a replay with \`end\` ends (the stream then closes).

Replay (\`start\`): the ticks from that instant on, from history (the store first when TRADEAPI_STORE is set, then the terminal; read a page at a time), merged in time order, with the ids live ticks have, then live ticks, with no hole and no repeat at the seam. \`speed\` paces the history (0: as fast as the client reads; 1: real time; at 1 or less a replay from the past stays in history); \`end\` makes a pure replay. Last-Event-ID resumes inside it.

Every event's \`data\` is a JSON object ending with \`seq\`: 1, 2, 3… in the order this connection's events were written, whatever their kind (events dropped for a slow client take none; the \`gap\` replacing them does), so a client that sees no number missing missed nothing within the connection.

Every tick event has an \`id\`: the position of every listed symbol, \`<time_msc>-<seq>\` for one symbol (seq: the tick's index within its millisecond), with \`,<delta>-<seq>\` per further symbol. A client that reconnects with \`Last-Event-ID\` (EventSource does it by itself) first gets the ticks it missed, from the terminal's history (at most TRADEAPI_EVENTS_CATCHUP_MS back and TRADEAPI_EVENTS_CATCHUP_TICKS per symbol), then live ones, without duplicates.

At most TRADEAPI_MAX_EVENT_CLIENTS streams at once (503 + Retry-After beyond) and TRADEAPI_EVENTS_MAX_SYMBOLS symbols per stream.`;

const wsDescription = `A WebSocket (RFC 6455) carrying the same live events as GET /events, for any set of symbols the client picks and changes as it goes. Open it with the handshake's \`X-API-Key\` header, or (browsers cannot set headers on a WebSocket) without it and send \`{"op":"auth","key":"…"}\` as the first message within TRADEAPI_EVENTS_AUTH_TIMEOUT_MS (5 s): until then nothing else is served, and a wrong key, another message first or the deadline closes the connection (code 1008) after an \`error\` event (401). Such a socket holds no event slot until its key is right, only a place among at most TRADEAPI_EVENTS_MAX_AUTHENTICATING sockets still authenticating (503 beyond); with the right key it takes a slot, and when none is free it gets a 503 \`error\` event and is closed with 1013. An \`auth\` message is always checked: after a valid header, a wrong key is refused the same way; a server without a key answers it \`{"event":"no-key-needed","detail":"…"}\`, never \`authenticated\`. No subprotocol is defined: the handshake's answer never selects one (no Sec-WebSocket-Protocol), whatever the client offers, so do not offer one (clients fail a handshake that selects none of theirs) and never pass the key as one. A refused upgrade is an ordinary HTTP answer with a problem body (401, 403 for a browser Origin that is not allowed, 404, 421 for a Host a keyless server does not serve, 429, 503 when TRADEAPI_MAX_EVENT_CLIENTS connections and event streams are open); a GET without the WebSocket handshake gets 426.

Client messages (JSON text frames; \`id\`, a number or a string, is optional and echoed in the reply):
- \`{"op":"subscribe","symbols":["EURUSD"],"kinds":["tick","book"],"format":"json"}\` (kinds default ["tick"]; at most TRADEAPI_EVENTS_MAX_SYMBOLS distinct symbols per connection; format json or arrow, default: unchanged, JSON at first) → \`{"event":"subscribed","symbols":[…],"kinds":[…],"format":"json","subscriptions":{"tick":[…],"book":[…]}}\`. Resume: an optional \`"since"\`, the last event id the client saw, in the format of GET /events ids (one position per listed symbol, in the order of \`symbols\`; for one symbol, that tick's \`event_id\`), sends each newly subscribed symbol's missed ticks from the terminal's history first (the Last-Event-ID bounds: TRADEAPI_EVENTS_CATCHUP_MS back, TRADEAPI_EVENTS_CATCHUP_TICKS per symbol; what they leave out is a \`gap\` event {"reason":"catch-up-window"|"catch-up-limit","symbol","from_msc","to_msc"}), then the live ones, with neither a hole nor a repeat. It needs "tick" in kinds; a malformed \`since\` gets an \`error\` event (400). In read-only mode every subscribe with \`since\` counts as one request towards the rate limit (over it: a 429 \`error\` event, nothing subscribed).
- Replay: \`{"op":"subscribe","symbols":["EURUSD"],"start":"2024-01-10T13:55:00Z","speed":10}\` (optional \`end\`, \`since\`; the refusals of GET /events?start=) → \`subscribed\` with a \`replay\` member, the history ticks, then \`{"event":"replay-complete","data":{"symbols","ticks"}}\` and live ticks, or with \`end\` a \`replay-end\` (nothing live subscribed). It runs beside the connection's other messages, one at a time; unsubscribing one of its symbols stops it.
- Live bars: \`{"op":"subscribe","symbols":["EURUSD"],"kinds":["bar"],"period":"5s"}\` (optional \`price\`, and \`bar_since\`: one bar position per symbol to resume from, the last \`event_id\` of each) → \`{"event":"bar","event_id":"<bar position>","data":{…}}\` per closed bar, \`data\` as GET /events' bar events; one period per connection.
- Account events: \`{"op":"subscribe","kinds":["deal","order","position","account"]}\` (no symbols needed; mixes with ticks in one subscribe) → \`subscribed\` (its \`subscriptions\` gain an \`account\` list), then one \`snapshot\` event per state kind (order, position, account: the full current state, again on every subscribe that adds account kinds), then \`{"event":"deal","event_id":"deal:<time_msc>-<ticket>","data":{…}}\`, \`{"event":"order","data":{"change","order"}}\`, \`{"event":"position","data":{"change","position"}}\`, \`{"event":"account","data":{…}}\` as in GET /events. \`"since":"deal:<time_msc>-<ticket>"\` (a deal event's \`event_id\`; or after a tick id and a \`;\`) sends every deal after it from the deal history first, none twice.
- \`{"op":"unsubscribe","symbols":["EURUSD"],"kinds":["book"]}\` (both optional: all; symbols without kinds: their tick, book and bar) → \`{"event":"unsubscribed",…}\`; no event of those follows the reply.
- \`{"op":"ping"}\` → \`{"event":"pong"}\`; \`{"op":"auth","key":"…"}\` → \`{"event":"authenticated"}\` (the right key only; see above).

Server messages (JSON text frames, each ending with \`"seq":N\`: 1, 2, 3… in the order this connection sent them, replies and errors included; Arrow binary frames carry none):
- \`{"event":"tick","event_id":"<time_msc>-<seq>","data":{"symbol",…}}\`: every new tick of a subscribed symbol (\`event_id\`: its position in its symbol's history, seq its index among that symbol's ticks of the same millisecond; what \`since\` takes), \`data\` exactly as in GET /events (the fields and units of /symbols/{symbol}/tick); one symbol's ticks in time order, several symbols merged in time order per poll. With format arrow, ticks come instead as binary frames, one per poll, each a complete Arrow IPC stream (schema, one record batch, end marker) with a utf8 \`symbol\` column before the columns of a tick series in Arrow (time timestamp[s, UTC], time_msc timestamp[ms, UTC]).
- \`{"event":"book","data":{"symbol","time_msc","book":[…]}}\`: depth of a subscribed symbol that has a market-depth subscription (POST /market-book/{symbol}/subscribe), at once and whenever it changes. Not in read-only mode.
- \`{"event":"gap","data":{"reason":"slow-consumer","dropped":N}}\`: this client did not read fast enough; TRADEAPI_EVENTS_QUEUE_BYTES were waiting for it and N ticks (or book events) were dropped. A client that takes nothing for TRADEAPI_SEND_TIMEOUT_MS is disconnected.
- \`{"event":"error","problem":{…}}\`: an RFC 7807 problem for a message that could not be served (malformed JSON, an unknown op or member, an unknown symbol (404), too many symbols); the connection stays open, but more than 20 such messages close it (1008).
Server shutdown closes the connection with code 1001.`;

/** `kinds=bar` with `period` (and `price`): both or neither, and a period GET /ticks/bars takes. */
function barQuery(query: { kinds?: string | undefined; period?: string | undefined; price?: BarPrice | undefined }, kinds: ReadonlySet<EventKind>) {
  if (!kinds.has('bar')) {
    if (query.period !== undefined) throw validationError("query parameter 'period' applies to bar events: add bar to kinds (kinds=bar&period=…)");
    if (query.price !== undefined) throw validationError("query parameter 'price' applies to bar events: add bar to kinds (kinds=bar&period=…&price=…)");
    return undefined;
  }
  if (query.period === undefined) throw validationError("query parameter 'kinds': bar events need a period, e.g. kinds=bar&period=5s (as GET /ticks/bars takes it)");
  const period = parseBarPeriod(query.period);
  if (typeof period === 'string') throw validationError(`query parameter 'period': ${period}`);
  return { period, text: query.period, price: query.price };
}

/** The price a symbol's bars chart (as GET /ticks/bars), or the 400 saying why none. */
function barPrice(symbol: string, info: SymbolInfo, ask: NonNullable<ReturnType<typeof barQuery>>): BarPrice {
  const price = barPriceOf(symbol, info, ask.period, ask.text, ask.price);
  if (typeof price !== 'string') throw validationError(price.why);
  return price;
}

/** The bar part of an event id: the position of the last bar per symbol (live-bars.ts), comma-separated, in the order listed. */
function parseBarPositions(raw: string, symbols: readonly string[]): number[] {
  const parts = raw.split(',');
  if (parts.length !== symbols.length || parts.some((p) => !/^\d{1,16}$/.test(p))) {
    throw validationError(`header 'Last-Event-ID' has malformed bar positions ${received(raw.slice(0, 80))}; after '~' it must hold one bar position per symbol (${symbols.join(',')}), as this stream's ids do`);
  }
  const positions = parts.map(Number);
  if (!positions.every((p) => Number.isSafeInteger(p))) throw validationError(`header 'Last-Event-ID' has a bar position out of range ${received(raw.slice(0, 80))}`);
  return positions;
}

export const eventRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/events',
    summary: 'Live ticks and market depth (Server-Sent Events)',
    description,
    tags: ['live events'],
    operational: false,
    query: {
      symbols: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'Comma-separated symbols, e.g. EURUSD,USDJPY (for the kinds tick, book and bar)', examples: ['EURUSD'] })),
      kinds: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: `Comma-separated event kinds: ${ALL_KINDS.join(', ')} (default tick; bar with period)`, examples: ['tick,book', 'bar', 'deal,order,position,account'] })),
      period: Type.Optional(
        Param.barPeriod('With kinds=bar: the period of the live bars, as GET /ticks/bars takes it (90s, 3m, 2h, 1d, 1w, ticks:500, volume:100); one bar event per closed bar'),
      ),
      price: Type.Optional(
        Type.Union(BAR_PRICES.map((p) => Type.Literal(p)), { description: "With kinds=bar: the price the bars chart, bid, ask, mid or last (default: each symbol's chart_mode, bid or last)" }),
      ),
      start: Type.Optional(
        Param.date(
          'Replay: the ticks from this instant on, from history (the store first when TRADEAPI_STORE is set, then the terminal), as the same tick events with the same ids as live ones, then live ticks with one replay-complete event at the seam (no hole, no repeat). Not in the future; not with kinds=book (depth has no history).',
        ),
      ),
      end: Type.Optional(Param.date('With start: a pure replay that ends. The stream closes after the last tick at or before this instant, with a replay-end event. Not before start, not in the future.')),
      speed: Type.Optional(
        Type.Number({
          minimum: 0,
          maximum: MAX_SPEED,
          description: 'With start: the pace of the history part. 0 (default): as fast as the client reads; 1: real time; 10: ten times real time. At speed 1 or less a replay from the past stays in history.',
          examples: [0, 1, 100],
        }),
      ),
    },
    headers: [
      {
        name: 'Last-Event-ID',
        description:
          'Resume: the id of the last event received (EventSource sends it when it reconnects). The ticks after it are sent first, from history (within TRADEAPI_EVENTS_CATCHUP_MS and TRADEAPI_EVENTS_CATCHUP_TICKS per symbol), then live ones. It must come from a stream of the same symbols in the same order (400 otherwise); empty: start live.',
        maxLength: MAX_EVENT_ID_CHARS,
        example: '1700000000123-0',
      },
    ],
    errors: ['symbolNotFound', 'notAcceptable', 'tooManyEventClients'],
    response: { kind: 'events', description: 'An event stream', contentType: EVENT_STREAM_MEDIA_TYPE, eventSchemas: eventSchemas() },
    async handler({ terminal, events, config, query, header }) {
      const { maxSymbols, catchupMs, catchupTicks, queueBytes } = config.events;
      const kinds = parseKinds((query.kinds ?? 'tick').split(','), "query parameter 'kinds'", config.readOnly !== undefined);
      const market = [...kinds].filter((k) => EVENT_KINDS[k].family === 'market');
      if (query.symbols === undefined && market.length > 0) throw validationError(`query parameter 'symbols' is required for kinds ${market.join(', ')} (the default kind is tick); e.g. symbols=EURUSD`);
      if (query.symbols !== undefined && market.length === 0) {
        throw validationError(`query parameter 'symbols' applies to the kinds tick, book and bar; kinds ${[...kinds].join(',')} are about the account and take none (leave symbols out, or add kinds=tick)`);
      }
      const symbols = query.symbols !== undefined ? query.symbols.split(',') : [];
      if (symbols.some((s) => s === '')) throw validationError(`query parameter 'symbols' has an empty name; received ${received(query.symbols ?? '')}`);
      const twice = symbols.find((s, i) => symbols.indexOf(s) !== i);
      if (twice !== undefined) throw validationError(`query parameter 'symbols' lists ${JSON.stringify(twice)} twice`);
      if (symbols.length > maxSymbols) {
        throw validationError(`query parameter 'symbols' lists ${symbols.length} symbols; one stream takes at most ${maxSymbols} (TRADEAPI_EVENTS_MAX_SYMBOLS)`);
      }
      if (!accepts(header('accept'), EVENT_STREAM_MEDIA_TYPE)) {
        throw new ProblemError('notAcceptable', `Accept ${received(header('accept') ?? '')} does not admit ${EVENT_STREAM_MEDIA_TYPE}, the only media type of this resource`);
      }
      const barAsk = barQuery(query, kinds);
      const replay: ReplayPlan | undefined = replayPlan(query, kinds, 'query parameter', config);
      if (replay && barAsk) throw validationError("query parameter 'start': a replay sends ticks only; kinds=bar is live (ask GET /ticks/bars for the bars before now)");
      const lastEventId = header('last-event-id');
      const resumed = lastEventId !== undefined && lastEventId.trim() !== '' ? splitEventId(lastEventId, "header 'Last-Event-ID'") : undefined;
      // The market part: the ticks' positions, and with kinds=bar `~` and the bar positions.
      const marketId = resumed?.tickId ?? '';
      let resumeFrom = kinds.has('tick') && marketId !== '' && !barAsk ? parseEventId(marketId, symbols) : undefined;
      let barsFrom: number[] | undefined;
      if (barAsk && resumed !== undefined) {
        const at = marketId.lastIndexOf('~');
        if (at < 0) throw validationError(`header 'Last-Event-ID' has no bar positions ('~'); a stream with kinds=bar ids its events <tick positions>~<bar time per symbol>`);
        const tickPart = marketId.slice(0, at);
        if (kinds.has('tick') && tickPart.trim() !== '') resumeFrom = parseEventId(tickPart, symbols);
        barsFrom = parseBarPositions(marketId.slice(at + 1), symbols);
      }
      const dealsFrom = kinds.has('deal') ? resumed?.deal : undefined;
      // Every symbol must exist: a 404 now, rather than a stream that never says anything.
      const infos = await Promise.all(
        symbols.map((s) =>
          terminal.symbolInfo(s).catch(async (e: unknown) => {
            if (e instanceof TerminalError && e.kind === 'not_found') throw await unknownSymbol(terminal, s, { cause: e.message });
            throw e;
          }),
        ),
      );
      const bars: LiveBarsRequest | undefined = barAsk && {
        period: barAsk.period,
        periodText: barAsk.text,
        symbols: symbols.map((symbol, i) => ({ symbol, digits: (infos[i] as SymbolInfo).digits, price: barPrice(symbol, infos[i] as SymbolInfo, barAsk) })),
        resumeFrom: barsFrom,
        pollMs: config.events.pollMs,
        catchupMs,
        zone: config.serverTz,
      };
      const session = await EventSession.open(events, terminal, { symbols, kinds, resumeFrom, replay, bars, dealsFrom }, {
        catchupMs,
        catchupTicks,
        // Live ticks held while a catch-up is sent: as many as the client's queue would take.
        pendingTicks: Math.max(1_000, Math.floor(queueBytes / 64)),
      });
      return { kind: 'events', session };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ws',
    summary: 'Live ticks and market depth (WebSocket)',
    description: wsDescription,
    tags: ['live events'],
    operational: false,
    errors: ['tooManyEventClients', 'upgradeRequired'],
    response: { kind: 'websocket', description: 'Switching Protocols: the WebSocket is open' },
    // The dispatcher upgrades the connection (it holds the key check and the event-client cap).
    handler: () => Promise.resolve({ kind: 'websocket' }),
  }),
];
