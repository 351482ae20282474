import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../main/core/platform/logger.js';
import type { OutboxProgress } from '../../main/core/outbox/progress.js';
import { ProgressReporter } from '../../main/core/outbox/progress-reporter.js';
import { ServiceHealth } from '../../main/core/outbox/service-health.js';
import { resolveTuning } from '../../main/core/outbox/tuning.js';
import { enqueueOrders } from '../../main/core/store/store.js';
import type { Store } from '../../main/core/store/store.js';
import {
  LOCAL,
  manualClock,
  removeDir,
  sampleOrder,
  storeWithBatch,
} from '../../main/core/store/testing/store-fixtures.js';

// A batch's counts are read at most as often as their read's cost allows (a time share). The last report of a run
// came within that share of the one before: it showed the counts before the batch's last order settled, and with
// nothing more happening no report followed, so the Submissions screen said "3 of 4 settled" for good (it failed
// an e2e run of live-state.spec.ts on a loaded machine).
describe('progress per batch: counts held back by their cost are reported once they may be read', () => {
  let opened: { store: Store; dataDir: string } | undefined;
  let reporter: ProgressReporter | undefined;
  afterEach(() => {
    reporter?.cancelReport();
    opened?.store.close();
    if (opened) removeDir(opened.dataDir);
  });

  it('a report that handed out older counts is followed by one with the store’s', async () => {
    const clock = manualClock();
    const { store, dataDir, batchId } = storeWithBatch(clock.now);
    opened = { store, dataDir };
    enqueueOrders(store, batchId, [sampleOrder({ state: 'queued' }), sampleOrder({ state: 'queued' })]);
    const tuning = resolveTuning({}, undefined);
    const reports: OutboxProgress[] = [];
    // Every read of the counts costs 10 ms by this clock: they may be read again only 500 ms later (2% share).
    let costClock = 0;
    reporter = new ProgressReporter({
      environmentId: LOCAL.id,
      store,
      tuning,
      now: clock.now,
      logger: silentLogger,
      onProgress: (progress) => reports.push(progress),
      health: new ServiceHealth({ environmentId: LOCAL.id, tuning, random: () => 0.5, logger: silentLogger }),
      loop: { running: () => false, pausedReason: () => null, inFlight: () => 0 },
      clockMs: () => (costClock += 5),
    });
    reporter.claimed(batchId, clock.now().getTime());
    expect(reporter.progress().batches?.[0]?.counts.queued).toBe(2);

    // The batch changes; a report at once hands out the counts read before (the share holds the read back)...
    enqueueOrders(store, batchId, [sampleOrder({ state: 'queued' })]);
    expect(reporter.progress().batches?.[0]?.counts.queued).toBe(2);
    // ...and a report follows by itself with the store's counts, though the clock the outbox reads stands still.
    await vi.waitFor(() => expect(reports.at(-1)?.batches?.[0]?.counts).toMatchObject({ queued: 3 }), {
      timeout: 3_000,
      interval: 20,
    });
    // One report, not a report every turn of the timer.
    const count = reports.length;
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(reports.length).toBe(count);
  });
});
