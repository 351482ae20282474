import type * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../main/core/platform/logger.js';
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

/**
 * The submitter's commits are made durable by a background fsync of the WAL (main/core/store/group-commit.ts). A
 * claimed order's request must not leave before the fsync covering its claim has completed, and a failed fsync
 * must never let a claim it was to cover be trusted. Here the fsync of this process is held back, or made to fail,
 * while everything else (SQLite, HTTP to the sandbox) is real.
 */
const fsyncControl = vi.hoisted(() => ({
  hold: false,
  failNext: false,
  held: [] as Array<() => void>,
  /** Orders the sandbox held when each failing fsync reported its failure. */
  onFailure: [] as number[],
  countOrders: (): number => 0,
}));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>();
  return {
    ...actual,
    fsync: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      if (fsyncControl.failNext) {
        fsyncControl.failNext = false;
        setImmediate(() => {
          fsyncControl.onFailure.push(fsyncControl.countOrders());
          callback(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
        });
        return;
      }
      if (fsyncControl.hold) {
        fsyncControl.held.push(() => actual.fsync(fd, callback));
        return;
      }
      actual.fsync(fd, callback);
    },
  };
});

const TUNING = { concurrency: 4, ratePerSecond: 1_000, baseDelayMs: 10, maxDelayMs: 100, reconcileDelayMs: 10 };

let sandbox: RunningSandbox;
const opened: OutboxTestStore[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  fsyncControl.countOrders = () => sandbox.listOrders().length;
});

afterAll(async () => {
  for (const t of opened) t.close();
  await sandbox?.close();
});

function setUp(logger?: Logger) {
  const t = storeForSandbox(sandbox);
  opened.push(t);
  const outbox = new Outbox(
    { store: t.store, clientFor: () => sandboxClient(sandbox), ...(logger ? { logger } : {}) },
    TUNING,
  );
  return { t, outbox };
}

describe('claims are durable before their requests leave', () => {
  it('sends nothing while the fsync covering the claims is held back, then each order once', async () => {
    const { t, outbox } = setUp();
    const orders = sampleOrders('DURABLE-HELD', 20);
    enqueue(t, orders);
    const before = sandbox.listOrders().length;
    fsyncControl.hold = true;
    try {
      const run = outbox.runUntilIdle(ENVIRONMENT_ID);
      await vi.waitFor(() => expect(fsyncControl.held.length).toBeGreaterThan(0), { timeout: 10_000 });
      // Claimed, committed, visible: and not one request out while the claims are not on disk.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(t.store.orders.countByState(ENVIRONMENT_ID).sending).toBeGreaterThan(0);
      expect(sandbox.listOrders().length).toBe(before);

      fsyncControl.hold = false;
      for (const release of fsyncControl.held.splice(0)) release();
      const result = await run;
      expect(result).toMatchObject({ outcome: 'idle' });
    } finally {
      fsyncControl.hold = false;
      for (const release of fsyncControl.held.splice(0)) release();
      await outbox.stop();
    }
    expectEachCreatedOnce(
      sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });

  it('after a failed fsync puts the claims it was to cover back unsent, and still creates each order once', async () => {
    const errors: string[] = [];
    const logger: Logger = { info() {}, warn() {}, error: (message) => errors.push(message) };
    const { t, outbox } = setUp(logger);
    const orders = sampleOrders('DURABLE-EIO', 20);
    const ids = enqueue(t, orders);
    const before = sandbox.listOrders().length;
    fsyncControl.onFailure.length = 0;
    fsyncControl.failNext = true;

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'idle' });
    // Nothing had reached the service when the first fsync failed.
    expect(fsyncControl.onFailure).toEqual([before]);
    expect(errors).toContain('outbox could not make its commits durable');
    expectEachCreatedOnce(
      sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
    for (const id of ids) {
      expect(t.store.attempts.list(id).map((a) => `${a.operation}:${a.outcome}`)).toEqual(['create:ok']);
    }
  });
});
