import { openStore } from '../store.js';

/**
 * A second process for the lock test: opens the store in the given directory, says so with its PID, and
 * holds it until killed.
 */
const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: hold-store-open.ts <data dir>\n');
  process.exit(2);
}
try {
  const store = openStore({ dataDir });
  process.stdout.write(`ready ${process.pid}\n`);
  const keepAlive = setInterval(() => undefined, 60_000);
  process.on('SIGTERM', () => {
    clearInterval(keepAlive);
    store.close();
  });
} catch (error) {
  process.stdout.write(`refused ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
