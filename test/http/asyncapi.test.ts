// GET /asyncapi.json: the AsyncAPI 3.0 document of the live events, generated from the event-kind
// registry: valid against the AsyncAPI Initiative's 3.0.0 JSON Schema (@asyncapi/specs, with Ajv), every kind on both channels with the registry's schema, every $ref resolving, the
// read-only variant without the kinds it does not serve; and the events a stream really sends
// (ticks, deals, snapshots, changes) match the registry's schemas.
import { createRequire } from 'node:module';

import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

import { ALL_KINDS, EVENT_KINDS, SNAPSHOT_SCHEMA, withSeq } from '../../src/events/event-kinds.js';
import { forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal } from '../helpers/server.js';
import { SseClient } from '../helpers/sse.js';
import { ScriptedAccount } from '../helpers/scripted-account.js';

const sim = simTerminal();
t.teardown(() => sim.close());
type Json = Record<string, unknown>;

/**
 * The AsyncAPI 3.0.0 JSON Schema (the AsyncAPI Initiative's own, @asyncapi/specs, pinned) as a
 * validator: what a document must be for AsyncAPI tooling (generators, Studio) to read it.
 */
const specs = createRequire(import.meta.url)('@asyncapi/specs') as { schemas: Record<string, object> };
// The specs embed the draft-07 meta-schema among their definitions: Ajv's own copy would clash with it.
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, meta: false, validateSchema: false });
addFormats.default(ajv);
const validAsyncApi = ajv.compile(specs.schemas['3.0.0'] as object);
const asyncApiErrors = (doc: unknown): string[] => (validAsyncApi(doc) ? [] : (validAsyncApi.errors ?? []).slice(0, 10).map((e) => `${e.instancePath} ${e.message ?? ''}`));

/** Every {$ref} in `doc` resolves inside it. */
function unresolved(doc: Json): string[] {
  const bad: string[] = [];
  const resolve = (ref: string): unknown => ref.slice(2).split('/').reduce<unknown>((at, key) => (at as Json | undefined)?.[key], doc);
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const ref = (node as Json).$ref;
      if (typeof ref === 'string' && resolve(ref) === undefined) bad.push(ref);
      Object.values(node).forEach(walk);
    }
  };
  walk(doc);
  return bad;
}

void forEachAdapter(t, async (t, adapter) => {
  t.test('the document: every kind on both channels, from the registry; every $ref resolves', async (t) => {
    const srv = await serve(t, adapter, sim);
    const res = await srv.get('/asyncapi.json');
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/json/);
    const doc = (await res.json()) as Json;
    t.equal(doc.asyncapi, '3.0.0');
    t.same(asyncApiErrors(doc), [], 'valid against the AsyncAPI 3.0.0 schema');
    t.ok(asyncApiErrors({ ...doc, operations: { receiveEvents: { action: 'fetch', channel: { $ref: '#/channels/events' } } } }).length > 0, 'which refuses a broken document (an action that is neither send nor receive)');
    t.same(unresolved(doc), [], 'every $ref resolves');
    const channels = doc.channels as Record<string, Json>;
    t.equal(channels.events?.address, '/events');
    t.equal(channels.ws?.address, '/ws');
    const schemas = (doc.components as Json).schemas as Json;
    for (const kind of ALL_KINDS) {
      t.ok((channels.events?.messages as Json)[kind], `${kind} on /events`);
      t.ok((channels.ws?.messages as Json)[kind], `${kind} on /ws`);
      t.same(schemas[`${kind}Data`], JSON.parse(JSON.stringify(EVENT_KINDS[kind].data)), `${kind}: the registry's schema`);
    }
    const ops = doc.operations as Record<string, Json>;
    t.same(Object.keys(ops).sort(), ['receiveEvents', 'receiveWs', 'sendWs']);
    t.same(ops.sendWs?.action, 'send');
  });

  t.test('read-only: with its key, without book', async (t) => {
    const srv = await serveReadOnly(t, adapter, sim);
    t.equal((await srv.get('/api/v1/asyncapi.json')).status, 401, 'behind the key, as /openapi.json');
    const doc = (await (await srv.get('/api/v1/asyncapi.json', { headers: { 'x-api-key': READ_ONLY_KEY } })).json()) as Json;
    t.same(asyncApiErrors(doc), [], 'valid against the AsyncAPI 3.0.0 schema');
    const messages = ((doc.channels as Record<string, Json>).events as Json).messages as Json;
    t.equal(((doc.channels as Record<string, Json>).events as Json).address, '/api/v1/events');
    t.notOk(messages.book, 'no book events in read-only mode');
    t.ok(messages.deal && messages.position);
  });

  t.test('what a stream sends matches the registry schemas', async (t) => {
    const acc = new ScriptedAccount(sim);
    acc.open(800, Date.now() - 60_000);
    acc.place(801);
    const srv = await serve(t, adapter, acc.terminal, { TRADEAPI_EVENTS_TRADE_MS: '20', TRADEAPI_EVENTS_ACCOUNT_MS: '20' });
    const c = await SseClient.open(`${srv.base}/events?kinds=deal,order,position,account`);
    t.teardown(() => c.close());
    await c.waitFor(() => c.messages.filter((m) => m.event === 'snapshot').length === 3, 20_000, 'the snapshots');
    acc.modifyOrder(801, { price_open: 1.01 });
    acc.close(800, 802, Date.now(), 3);
    await c.waitFor(() => ['deal', 'order', 'position', 'account'].every((k) => c.messages.some((m) => m.event === k)), 20_000, 'an event of each kind');
    for (const m of c.messages) {
      const kind = m.event === 'snapshot' ? SNAPSHOT_SCHEMA : EVENT_KINDS[m.event as (typeof ALL_KINDS)[number]]?.data;
      if (!kind) continue;
      // As an SSE stream writes it: the kind's data with the connection's seq last.
      const schema = withSeq(kind);
      const data: unknown = JSON.parse(m.data);
      t.ok(Value.Check(schema, data), `${m.event}: ${[...Value.Errors(schema, data)].map((e) => `${e.path} ${e.message}`).join('; ') || 'valid'}`);
    }
  });
});
