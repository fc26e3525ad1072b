// The package's programmatic surface: the terminal layer (open the simulated terminal, its
// records, constants and series) and the HTTP server, for embedding tradeapi in another process.
export * from './terminal/index.js';
export { startServer, SHUTDOWN_GRACE_MS, type StartOptions, type RunningServer } from './server.js';
export { encodeRecords, encodeObject, encodeSeries, MediaTypes, type ParquetCompression } from './encode/index.js';
export type { Format, BodySink, Encoded } from './encode/types.js';
