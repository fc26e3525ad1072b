// GET /metrics: the service's counters in the Prometheus text format. A route like every other:
// behind the key when one is set (a scraper sends X-API-Key), under the prefix, and in read-only
// mode under /api/v1 and counted by the rate limit (a scrape every 15 s is 4 of a minute's requests).
import { defineRoute, type Route } from '../http/route.js';

const encoder = new TextEncoder();

export const metricsRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/metrics',
    summary: 'Service metrics (Prometheus text format)',
    description:
      'Requests by route template and status, latency histograms, open streams, bytes sent, terminal call latency and errors, ' +
      'market-depth subscriptions, rate-limit refusals, bridge state (with a bridge) and the Node.js process figures. ' +
      'Needs the key like every other endpoint.',
    tags: ['system'],
    operational: false,
    terminal: false, // the bridge gauges ask bridge_status, which never fails the scrape
    response: { kind: 'bytes', description: 'Prometheus text exposition format 0.0.4', contentType: 'text/plain' },
    async handler({ metrics }) {
      const { contentType, body } = await metrics.scrape();
      return { kind: 'bytes', contentType, body: encoder.encode(body) };
    },
  }),
];
