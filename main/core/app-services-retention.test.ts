import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServices } from './app-services.js';
import { Outbox } from './outbox/outbox.js';
import type { LogFields, Logger } from './platform/logger.js';
import { MemorySecretStore } from './platform/secret-store.js';
import { discardedBatchFixture, type StagingFixture } from './staging/testing/staging-fixtures.js';

/**
 * The core applies retention by itself (issue #16): AppServices runs its schedule over the store it opened, logs
 * what a run dropped (counts only), and stops it before the store closes. A real store, staged through the
 * staging service, with the services' clock past the retention time.
 */

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

describe('the core applies retention in the background', () => {
  it('runs after start, logs the counts, and closes cleanly', async () => {
    const f = await discardedBatchFixture();
    fixture = f;

    const lines: Array<{ message: string; fields?: LogFields }> = [];
    let logged!: () => void;
    const applied = new Promise<void>((resolve) => (logged = resolve));
    const logger: Logger = {
      info: (message, fields) => {
        lines.push({ message, ...(fields ? { fields } : {}) });
        if (message === 'retention applied') logged();
      },
      warn: (message, fields) => lines.push({ message, ...(fields ? { fields } : {}) }),
      error: (message, fields) => lines.push({ message, ...(fields ? { fields } : {}) }),
    };
    const later = new Date(Date.now() + 91 * 86_400_000);
    const services = new AppServices({
      dataDir: join(f.dataDir, 'data'),
      secrets: new MemorySecretStore(),
      userAgent: 'RxBatch/test',
      logger,
      now: () => later,
      createOutbox: (deps, tuning) => new Outbox(deps, tuning),
      retention: { firstRunAfterMs: 0 },
    });
    try {
      await applied;
      expect(lines.find((line) => line.message === 'retention applied')?.fields).toMatchObject({
        compacted: 0,
        deleted: 3,
        batchesFinished: 1,
        freePages: 0,
      });
      expect(services.store.db.prepare('SELECT count(*) FROM staged_orders').pluck().get()).toBe(0);
      expect(services.store.audit.search({ action: 'retention.applied', limit: 1 })).toHaveLength(1);
    } finally {
      await services.close();
    }
    expect(services.store.isOpen).toBe(false);
    expect(lines.filter((line) => line.message.startsWith('retention stopped'))).toEqual([]);
  });
});
