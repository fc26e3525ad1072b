// Each adapter's write() holds the producer while its peer reads nothing, whatever the size of the
// chunks: what the adapter takes beyond the kernel's buffers stays bounded. (uWS once resolved a
// write whose only piece met a full socket at once: chunks smaller than a piece then piled up in
// its buffer without end, and the send timeout never fired.)
import net from 'node:net';

import t from 'tap';

import type { HttpRequest, HttpResponse } from '../../src/http/adapter.js';
import { forEachAdapter } from '../helpers/server.js';

const LISTEN = { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, maxConnections: 100, backlog: 64, nativeAccept: false, methods: ['GET'] };
const MiB = 1024 * 1024;
/** Far more than loopback's socket buffers hold (a few MiB each way). */
const OFFERED = 256 * MiB;

for (const chunkBytes of [10 * 1024, 70 * 1024, 600 * 1024]) {
  t.test(`chunks of ${chunkBytes / 1024} KiB to a peer that reads nothing: the writes stop resolving`, (t) =>
    forEachAdapter(t, async (t, adapter) => {
      let accepted = 0;
      let stalled!: () => void;
      const stalledAt = new Promise<void>((r) => (stalled = r));
      const server = await adapter.listen(
        '127.0.0.1',
        0,
        async (_req: HttpRequest, res: HttpResponse) => {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          const chunk = new Uint8Array(chunkBytes).fill(7);
          while (accepted < OFFERED && !res.aborted) {
            // A write still pending after 300 ms: the adapter is holding the producer.
            const written = res.write(chunk).then(() => true, () => true);
            const held = await Promise.race([written, new Promise<false>((r) => setTimeout(() => r(false), 300))]);
            if (!held) {
              stalled();
              await written;
              return;
            }
            accepted += chunk.byteLength;
          }
          stalled();
          res.end();
        },
        LISTEN,
      );
      t.teardown(() => server.close(0));
      const socket = net.connect(server.port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      socket.pause(); // reads nothing
      await stalledAt;
      t.ok(accepted < 64 * MiB, `the producer was held after ${(accepted / MiB).toFixed(1)} MiB (of ${OFFERED / MiB} offered)`);
      socket.destroy();
    }),
  );
}
