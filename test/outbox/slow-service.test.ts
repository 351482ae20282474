import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOW_REQUEST_MS } from '../../main/core/outbox/progress-reporter.js';
import { Outbox } from '../../main/core/outbox/outbox.js';
import type { OutboxProgress } from '../../main/core/outbox/progress.js';
import { toProgressView } from '../../main/core/views.js';
import { outboxProgressSchema } from '../../shared/outbox-views.js';
import { slowServiceSentence } from '../../renderer/src/features/submissions/progress-summary.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import {
  ENVIRONMENT_ID,
  enqueue,
  expectEachCreatedOnce,
  sampleOrders,
  sandboxClient,
  storeForSandbox,
  type OutboxTestStore,
} from './support/outbox-fixture.js';

/**
 * Requests waiting on a slow service hold their slots: progress says so (how many, the longest wait, the slots) once
 * a request has waited SLOW_REQUEST_MS, although nothing else happens meanwhile, and clears it when they are answered.
 */

const LATENCY_MS = SLOW_REQUEST_MS + 1_500;

let sandbox: RunningSandbox;
let t: OutboxTestStore | undefined;

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000, faults: { latencyMs: LATENCY_MS } });
});

afterAll(async () => {
  t?.close();
  await sandbox?.close();
});

describe('a slow service', () => {
  it('shows in progress as requests waiting on it, with the Submissions sentence, and clears when answered', async () => {
    t = storeForSandbox(sandbox);
    const orders = sampleOrders('SLOW', 2);
    enqueue(t, orders);
    const events: Array<{ at: number; progress: OutboxProgress }> = [];
    const outbox = new Outbox(
      {
        store: t.store,
        clientFor: () => sandboxClient(sandbox, { timeoutMs: LATENCY_MS * 2 }),
        onProgress: (progress) => events.push({ at: performance.now(), progress }),
      },
      { concurrency: 2, ratePerSecond: 50 },
    );
    const startedAt = performance.now();
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.outcome).toBe('idle');
    expectEachCreatedOnce(
      sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
    const slow = events.filter((e) => e.progress.slow !== null);
    expect(slow.length).toBeGreaterThan(0);
    // Nothing was answered until then: the report came from the wait itself, once it passed the threshold.
    expect(slow[0]!.at - startedAt).toBeGreaterThanOrEqual(SLOW_REQUEST_MS);
    expect(slow[0]!.at - startedAt).toBeLessThan(LATENCY_MS);
    // Both slots held (as the first answer comes in, one is left for a moment).
    const both = slow.find((e) => e.progress.slow?.requests === 2);
    expect(both?.progress.slow).toMatchObject({ requests: 2, slots: 2 });
    expect(both!.progress.slow!.longestMs).toBeGreaterThanOrEqual(SLOW_REQUEST_MS);
    // While they wait it is reported about every second (the wait grows), not at every turn.
    expect(slow.length).toBeLessThanOrEqual(Math.ceil((LATENCY_MS - SLOW_REQUEST_MS) / 1000) + 2);
    // What the Submissions view gets through the contract, and says.
    const view = outboxProgressSchema.parse(toProgressView(both!.progress));
    expect(slowServiceSentence(view.slow)).toMatch(
      /^2 requests are waiting on a slow service \(longest \d+ s\)\. All 2 sending slots are taken/,
    );
    // Answered: the last report has nothing slow left.
    expect(events.at(-1)!.progress.slow).toBeNull();
    expect(outbox.progress(ENVIRONMENT_ID).slow).toBeNull();
  }, 30_000);
});
