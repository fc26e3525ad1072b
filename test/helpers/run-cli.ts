// Runs the CLI from source (tests spawn this through tap's TypeScript loader).
import { main } from '../../src/cli.js';

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`tradeapi: ${String(e)}\n`);
  process.exit(1);
});
