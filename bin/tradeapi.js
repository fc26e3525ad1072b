#!/usr/bin/env node
// The installed command: runs the compiled CLI (npm run build:ts first when working from source).
import { main } from '../dist/src/cli.js';

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`tradeapi: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
