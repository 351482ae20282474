import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outbox } from '../../main/core/outbox/outbox.js';
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

/** The admin's pause is stored: a restart of the app (store and outbox) must not start sending again. */

const FAST = { concurrency: 2, ratePerSecond: 100, baseDelayMs: 10, maxDelayMs: 100, reconcileDelayMs: 10 };

let sandbox: RunningSandbox;
const opened: OutboxTestStore[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
});

afterAll(async () => {
  for (const t of opened) t.close();
  await sandbox?.close();
});

function outboxFor(t: OutboxTestStore): Outbox {
  return new Outbox({ store: t.store, clientFor: () => sandboxClient(sandbox) }, FAST);
}

describe('a paused outbox', () => {
  it('stays paused across a restart, sends nothing, and sends everything after resume', async () => {
    const first = storeForSandbox(sandbox);
    const orders = sampleOrders('PAUSE-KEPT', 3);
    enqueue(first, orders);
    const before = sandbox.requestCount();
    const outbox = outboxFor(first);
    outbox.pause(ENVIRONMENT_ID, 'checking the batch first');
    await outbox.stop();
    first.store.close();

    // Same data directory, new store and outbox: as after quitting and starting the app.
    const second = storeForSandbox(sandbox, first.dataDir);
    opened.push(second);
    const restarted = outboxFor(second);
    expect(restarted.progress(ENVIRONMENT_ID)).toMatchObject({ state: 'paused', message: 'checking the batch first' });
    const blocked = await restarted.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    expect(blocked).toMatchObject({ outcome: 'blocked', state: 'paused', message: 'checking the batch first' });
    expect(blocked.counts.queued).toBe(3);
    expect(sandbox.requestCount()).toBe(before);

    restarted.resume(ENVIRONMENT_ID);
    const done = await restarted.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    await restarted.stop();
    expect(done.outcome).toBe('idle');
    expectEachCreatedOnce(
      sandbox,
      second.store,
      orders.map((o) => o.clinicOrderId),
    );
    expect(second.store.environments.pausedReason(ENVIRONMENT_ID)).toBeNull();
    const actions = second.store.audit.page(0, 10_000).map((row) => row.action);
    expect(actions.filter((a) => a === 'outbox.paused')).toHaveLength(1);
    expect(actions.filter((a) => a === 'outbox.resumed')).toHaveLength(1);
  });

  it('after a resume, a restart sends at once', async () => {
    const first = storeForSandbox(sandbox);
    const outbox = outboxFor(first);
    outbox.pause(ENVIRONMENT_ID);
    outbox.resume(ENVIRONMENT_ID);
    await outbox.stop();
    first.store.close();

    const second = storeForSandbox(sandbox, first.dataDir);
    opened.push(second);
    const orders = sampleOrders('PAUSE-ENDED', 2);
    enqueue(second, orders);
    const restarted = outboxFor(second);
    const done = await restarted.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    await restarted.stop();
    expect(done.outcome).toBe('idle');
    expectEachCreatedOnce(
      sandbox,
      second.store,
      orders.map((o) => o.clinicOrderId),
    );
  });
});
