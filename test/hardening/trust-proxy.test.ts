// Hardening, item 10: with API_TRUST_PROXY only a syntactically valid IP address in
// X-Forwarded-For identifies a client; anything else counts as the socket address, so junk values
// can neither dodge the limit nor make the limiter hold one bucket per value.
import t from 'tap';

import { clientAddress, MAX_FORWARDED_CHARS } from '../../src/access/client-address.js';
import { RateLimiter } from '../../src/access/rate-limit.js';
import { forwardedRequest } from '../helpers/readonly.js';
import { expectProblem, forEachAdapter, READ_ONLY_KEY, serveReadOnly, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const KEY = { 'x-api-key': READ_ONLY_KEY };
const OVERSIZED = '9'.repeat(8000);

const req = forwardedRequest;

t.test('clientAddress: junk falls back to the socket address, valid IPs are normalised', async (t) => {
  const socket = '10.0.0.9';
  for (const junk of ['not-an-ip', OVERSIZED, '1.2.3', '1.2.3.256', '01.2.3.4', 'fe80::1%eth0', '[::1', '::1]:80', '1.2.3.4:', '1.2.3.4:99999', 'unknown', '[1.2.3.4]:80']) {
    t.equal(clientAddress(req(socket, junk), 1), socket, `${junk.slice(0, 20)}: the socket address`);
  }
  t.equal(clientAddress(req(socket, `203.0.113.7, ${OVERSIZED}`), 1), socket, 'junk in the trusted position is not skipped');
  t.equal(clientAddress(req(socket, `${OVERSIZED}, 203.0.113.7`), 1), '203.0.113.7', 'junk further left is never read');
  t.equal(clientAddress(req(socket, `${'x'.repeat(MAX_FORWARDED_CHARS)}203.0.113.7`), 1), socket, 'an entry cut by the length cap is junk');
  t.equal(clientAddress(req('::ffff:10.0.0.9', 'nope'), 1), socket, 'the socket address is normalised too');
  const same: Array<[string, string]> = [
    ['203.0.113.7:5678', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:CB00:7107', '203.0.113.7'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    [' 203.0.113.7 ', '203.0.113.7'],
  ];
  for (const [given, normal] of same) t.equal(clientAddress(req(socket, given), 1), normal, `${given} -> ${normal}`);
  t.equal(clientAddress(req(socket, 'spoofed, 203.0.113.7, 10.0.0.2'), 2), '203.0.113.7', 'two proxies: second from the right');
});

t.test('20 000 unique junk values: one client, one bucket in the limiter', async (t) => {
  const limiter = new RateLimiter(10);
  const clients = new Set<string>();
  let allowed = 0;
  for (let i = 0; i < 20_000; i++) {
    const client = clientAddress(req('10.0.0.9', `${i}-${OVERSIZED}`), 1);
    clients.add(client);
    if ((await limiter.consume(client)).allowed) allowed++;
  }
  t.same([...clients], ['10.0.0.9']);
  t.equal(allowed, 10, 'the limiter saw one client: only its limit passed');
});

await forEachAdapter(t, async (t, adapter) => {
  await t.test('junk shares the socket bucket, valid addresses get their own', async (t) => {
    const s = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '3', API_TRUST_PROXY: '1' });
    const as = async (xff?: string) => {
      const res = await s.get('/api/v1/version', { headers: xff === undefined ? KEY : { ...KEY, 'x-forwarded-for': xff } });
      return res;
    };
    const remaining = async (res: Response) => {
      await res.arrayBuffer();
      return [res.status, res.headers.get('ratelimit-remaining')];
    };
    t.same(await remaining(await as()), [200, '2'], 'no header: the socket bucket');
    t.same(await remaining(await as('not-an-ip')), [200, '1'], 'not-an-ip: the same bucket');
    t.same(await remaining(await as(OVERSIZED)), [200, '0'], '8 KB value: the same bucket');
    await expectProblem(t, await as('still-not-an-ip'), 429, '/errors/rate-limit-exceeded');
    t.same(await remaining(await as('203.0.113.9')), [200, '2'], 'a valid address: its own bucket');
    t.same(await remaining(await as('::ffff:203.0.113.9')), [200, '1'], 'its IPv4-mapped form: the same one');
    t.same(await remaining(await as('203.0.113.9:40000')), [200, '0'], 'with a port: the same one');
    t.same(await remaining(await as('[2001:DB8::1]:443')), [200, '2'], 'IPv6 with brackets and port');
    t.same(await remaining(await as('2001:db8:0:0:0:0:0:1')), [200, '1'], 'the same IPv6 address written out');
  });

  await t.test('2 000 unique junk values, half of them 8 KB: one bucket, so only the limit passes', async (t) => {
    const LIMIT = 10;
    const s = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: String(LIMIT), API_TRUST_PROXY: '1' });
    let passed = 0;
    let limited = 0;
    const TOTAL = 2_000;
    const BATCH = 100;
    for (let start = 0; start < TOTAL; start += BATCH) {
      await Promise.all(
        Array.from({ length: BATCH }, async (_, k) => {
          const i = start + k;
          // Half of them 8 KB long, all different.
          const junk = i % 2 === 0 ? `junk-${i}` : `${i}-${OVERSIZED}`;
          const res = await s.get('/api/v1/version', { headers: { ...KEY, 'x-forwarded-for': junk } });
          await res.arrayBuffer();
          if (res.status === 429) limited++;
          else if (res.status === 200) passed++;
        }),
      );
    }
    t.equal(passed, LIMIT, `exactly ${LIMIT} answered 200`);
    t.equal(limited, TOTAL - LIMIT, 'every other one 429: they all counted against one client');
    const other = await s.get('/api/v1/version', { headers: { ...KEY, 'x-forwarded-for': '198.51.100.1' } });
    t.equal(other.status, 200, 'a real client is unaffected');
    await other.arrayBuffer();
  });
});
