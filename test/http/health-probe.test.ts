// GET /health asks the terminal (terminalInfo, version) once per probe, and health checks that
// arrive while a probe runs share its answer: a busy monitor costs the terminal one probe at a
// time, not one per request. A check that comes after a probe ended starts a new one, so a change
// of the terminal's state shows at the next check.
import net from 'node:net';

import t from 'tap';

import type { TerminalInfo } from '../../src/terminal/records.js';
import { faultyTerminal } from '../helpers/faulty-terminal.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

await forEachAdapter(t, async (t, adapter) => {
  const real = simTerminal();
  t.teardown(() => real.close());
  let probes = 0;
  let connected = true;
  let release: (() => void) | undefined;
  let gate: Promise<void> = Promise.resolve();
  const terminal = faultyTerminal(real, {
    async terminalInfo(): Promise<TerminalInfo> {
      probes++;
      await gate; // held open while the concurrent checks arrive
      return { ...(await real.terminalInfo()), connected };
    },
  });
  const server = await serve(t, adapter, terminal);

  // 20 checks while one probe is held open: one probe answers them all. The connections are up
  // before any request is sent, so that all 20 reach the server while the probe is held (fetch's
  // connection set-up under Wine took longer than any fixed wait).
  gate = new Promise((r) => (release = r));
  const sockets = await Promise.all(
    Array.from({ length: 20 }, () => new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(server.server.port, '127.0.0.1', () => resolve(s));
      s.on('error', reject);
    })),
  );
  const answers = sockets.map((s) => new Promise<string>((resolve) => {
    let text = '';
    s.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (text.includes('\r\n\r\n')) resolve(text.slice(0, text.indexOf('\r\n')));
    });
    s.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  }));
  for (let i = 0; i < 200 && probes === 0; i++) await new Promise((r) => setTimeout(r, 25));
  await new Promise((r) => setTimeout(r, 300)); // the other 19, on connections already up
  t.equal(probes, 1, 'one probe for 20 concurrent checks');
  release!();
  const statuses = await Promise.all(answers);
  t.same(new Set(statuses), new Set(['HTTP/1.1 200 OK']), 'all 20 answered 200');
  for (const s of sockets) s.destroy();

  // The next check probes afresh and sees the terminal's new state.
  gate = Promise.resolve();
  connected = false;
  const after = await server.get('/health');
  t.equal(probes, 2, 'a later check starts its own probe');
  t.equal(after.status, 503, 'and reports the terminal disconnected');
  t.equal(((await after.json()) as { status: string }).status, 'unavailable');
  connected = true;
  t.equal((await server.get('/health')).status, 200, 'and connected again at the next check');
  t.equal(probes, 3);
});
