// examples/typescript: a client typed from our OpenAPI document (openapi-typescript → schema.d.ts,
// openapi-fetch). Checked here: the committed schema.d.ts is exactly what openapi-typescript makes
// of the document a default server serves (so it cannot drift from the route table); client.ts
// type-checks against it (one tsc run, which also compiles it), and stops type-checking when the
// schema changes under it (a tick without `bid`); compiled, it runs against live servers (the full
// variant with a key, the read-only one) and prints what they answer; without the key it stops
// with the 401 problem.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { READ_ONLY_KEY, serve, serveReadOnly, simTerminal } from '../helpers/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const example = path.join(root, 'examples', 'typescript');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const REGENERATE = 'TRADEAPI_UPDATE_SCHEMA=1 npx tap test/examples/typescript.test.ts, or npm start & npx openapi-typescript http://127.0.0.1:8000/openapi.json -o examples/typescript/schema.d.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Asynchronous: the servers the client talks to run on this process's event loop. */
function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** What the openapi-typescript CLI writes for a document (its banner, then the types). */
async function typesOf(document: OpenAPI3): Promise<string> {
  return COMMENT_HEADER + astToString(await openapiTS(document));
}

const terminal = simTerminal();
t.teardown(() => terminal.close());
const open = await serve(t, nodeAdapter, terminal);
const document = (await (await open.get('/openapi.json')).json()) as OpenAPI3;

await t.test('schema.d.ts is what openapi-typescript makes of the served document', async (t) => {
  const fresh = await typesOf(document);
  // A route added or changed: TRADEAPI_UPDATE_SCHEMA=1 writes the new file (then review and commit it).
  if (process.env.TRADEAPI_UPDATE_SCHEMA === '1') writeFileSync(path.join(example, 'schema.d.ts'), fresh);
  const committed = readFileSync(path.join(example, 'schema.d.ts'), 'utf8');
  const a = committed.split('\n');
  const b = fresh.split('\n');
  const line = a.findIndex((l, i) => l !== b[i]);
  t.ok(committed === fresh, `examples/typescript/schema.d.ts is up to date (regenerate: ${REGENERATE})`, {
    firstDifference: committed === fresh ? undefined : { line: (line < 0 ? a.length : line) + 1, committed: a[line], fresh: b[line < 0 ? a.length : line] },
  });
  t.match(fresh, /"\/symbols\/\{symbol\}\/tick": \{/, 'it has the tick path');
});

// One tsc run type-checks client.ts and compiles it (tsc exits non-zero on any type error, emit or
// not): the live test below runs what it wrote.
let compiled: Run | undefined;
await t.test('client.ts type-checks against it (tsc)', async (t) => {
  compiled = await run([tsc, '-p', path.join(example, 'tsconfig.json')]);
  t.equal(compiled.code, 0, 'no type errors', { output: compiled.stdout + compiled.stderr });
});

await t.test('a schema change that breaks the client fails the type-check', async (t) => {
  // The same document, but the tick's `bid` renamed: client.ts reads tick.bid.
  interface ObjectSchema {
    $ref?: string;
    required: string[];
    properties: Record<string, unknown>;
  }
  const changed = structuredClone(document) as unknown as {
    paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: ObjectSchema }> }> } }>;
    components?: { schemas?: Record<string, ObjectSchema> };
  };
  let tick = changed.paths['/symbols/{symbol}/tick']?.get.responses['200']?.content['application/json']?.schema;
  // Inline today; should the document move it to components, follow the reference.
  if (tick?.$ref) tick = changed.components?.schemas?.[tick.$ref.replace('#/components/schemas/', '')];
  if (!tick?.properties?.bid) return t.fail('no JSON schema with `bid` for the tick in the document');
  const { bid, ...rest } = tick.properties;
  tick.properties = { ...rest, bid_price: bid };
  tick.required = tick.required.map((name) => (name === 'bid' ? 'bid_price' : name));
  // Beside the repository's node_modules, so that openapi-fetch and @types/node resolve.
  const dir = path.join(root, 'build', 'examples-typescript-changed');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(path.join(example, 'client.ts'), path.join(dir, 'client.ts'));
  copyFileSync(path.join(example, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  writeFileSync(path.join(dir, 'schema.d.ts'), await typesOf(changed as unknown as OpenAPI3));
  const r = await run([tsc, '--noEmit', '-p', path.join(dir, 'tsconfig.json')]);
  t.not(r.code, 0, 'tsc fails');
  t.match(r.stdout, /client\.ts\(\d+,\d+\): error TS\d+: Property 'bid' does not exist/, 'on client.ts reading tick.bid', { output: r.stdout });
});

await t.test('compiled, it runs against live servers', async (t) => {
  if (compiled?.code !== 0) return t.fail('tsc -p examples/typescript', { output: compiled ? compiled.stdout + compiled.stderr : 'not run' });
  const client = path.join(root, 'build', 'examples-typescript', 'client.js');
  const full = await serve(t, nodeAdapter, terminal, { TRADEAPI_SECRET_KEY: 'example-key' });
  const readOnly = await serveReadOnly(t, nodeAdapter, terminal);
  const deployments = [
    { name: 'full variant with a key', url: full.base, key: 'example-key' },
    { name: 'read-only variant', url: `${readOnly.base}/api/v1`, key: READ_ONLY_KEY },
  ];
  for (const d of deployments) {
    await t.test(d.name, async (t) => {
      const get = async <T>(p: string): Promise<T> => (await (await fetch(d.url + p, { headers: { 'x-api-key': d.key } })).json()) as T;
      const symbol = await get<{ name: string; description: string; digits: number; point: number }>('/symbols/EURUSD');
      const bars = await get<Array<{ time: number; high: number; low: number }>>(
        '/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2024-01-10T00:00:00Z&count=24',
      );
      const r = await run([client], { TRADEAPI_URL: d.url, TRADEAPI_API_KEY: d.key });
      t.equal(r.code, 0, 'exit 0', { stderr: r.stderr });
      const lines = r.stdout.trim().split('\n');
      t.equal(lines[0], `EURUSD (${symbol.description}): ${symbol.digits} digits, point ${symbol.point}`, 'the symbol');
      const tick = /^tick (\S+): bid (\S+) ask (\S+) \(spread (\d+) points\)$/.exec(lines[1] ?? '');
      t.ok(tick, 'the latest tick', { line: lines[1] });
      if (tick) {
        const [bid, ask] = [Number(tick[2]), Number(tick[3])];
        t.ok(bid > 0 && ask >= bid && !Number.isNaN(Date.parse(tick[1] as string)), `bid ${bid}, ask ${ask}`);
        t.equal(Number(tick[4]), Math.round((ask - bid) / symbol.point), 'the spread in points');
      }
      const first = new Date((bars[0]?.time ?? 0) * 1000).toISOString();
      const high = Math.max(...bars.map((b) => b.high));
      const low = Math.min(...bars.map((b) => b.low));
      t.equal(lines[2], `${bars.length} H1 bars from ${first}: high ${high} low ${low}`, 'the bars, as the server answers them');
      t.equal(bars.length, 24);

      const keyless = await run([client], { TRADEAPI_URL: d.url, TRADEAPI_API_KEY: '' });
      t.not(keyless.code, 0, 'without the key it stops');
      t.match(keyless.stderr, /401 Unauthorized/, 'with the problem the gateway answered');
      t.notMatch(keyless.stderr + keyless.stdout, d.key, 'which does not show the key');
    });
  }
});
