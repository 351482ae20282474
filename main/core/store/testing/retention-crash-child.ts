import { applyRetention } from '../retention-runner.js';
import { openStore } from '../store.js';

/**
 * For the retention crash test: opens the store in `argv[2]` with its clock at `argv[3]`, applies retention one
 * staged order a step, and kills this process (SIGKILL: no cleanup, no close) after `argv[4]` steps.
 */
const [dataDir, now, killAfter] = process.argv.slice(2);
if (!dataDir || !now || !killAfter) throw new Error('usage: retention-crash-child <dataDir> <now> <steps>');
const store = openStore({ dataDir, now: () => new Date(now) });
await applyRetention(store, {
  rowsPerStep: 1,
  pagesPerStep: 1,
  onStep: (progress) => {
    if (progress.steps >= Number(killAfter)) process.kill(process.pid, 'SIGKILL');
  },
});
// Fewer steps than asked: the run ended first, which the test treats as a failure to crash mid-way.
process.exit(3);
