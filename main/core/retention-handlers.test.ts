import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RxBatchApi } from '../../shared/contract.js';
import { ContractError } from '../../shared/errors.js';
import { STAGED_DAYS_RULE } from '../../shared/retention-contract.js';
import { createDirectApi } from '../transport/direct-api.js';
import { buildHandlers } from './app-handlers.js';
import { AppServices } from './app-services.js';
import { NO_PATH } from './import-path-policy.js';
import { Outbox } from './outbox/outbox.js';
import { MemorySecretStore } from './platform/secret-store.js';
import type { RetentionRunResult } from './store/retention-runner.js';
import { discardedBatchFixture, stagingFixture, type StagingFixture } from './staging/testing/staging-fixtures.js';

/**
 * Retention from the Settings screen (issue #16), through the contract as the screen calls it: the setting read and
 * changed, a bad value refused with the rule in words, every change audited with the old and the new days, and the
 * background run picking a new value up without a restart. A real store, staged through the staging service.
 */

let fixture: StagingFixture | undefined;
let services: AppServices | undefined;
afterEach(async () => {
  await services?.close();
  services = undefined;
  fixture?.close();
  fixture = undefined;
});

/** The services over the fixture's data directory, `daysLater` on their clock, and the contract over them. */
function open(f: StagingFixture, daysLater: number, onRun?: (result: RetentionRunResult) => void) {
  const later = new Date(Date.now() + daysLater * 86_400_000);
  const opened = new AppServices({
    dataDir: join(f.dataDir, 'data'),
    secrets: new MemorySecretStore(),
    userAgent: 'RxBatch/test',
    now: () => later,
    createOutbox: (deps, tuning) => new Outbox(deps, tuning),
    // No run of its own during the test: only one a change brings forward (at once here).
    retention: { firstRunAfterMs: 3_600_000, soonAfterMs: 0, ...(onRun ? { onRun } : {}) },
  });
  services = opened;
  const info = { name: 'Rx Batch', version: '9.9.9', transport: 'direct', dataDir: f.dataDir } as const;
  const api: RxBatchApi = createDirectApi(buildHandlers(opened, info, undefined, NO_PATH), opened.events);
  return { services: opened, api };
}

async function refusal(call: Promise<unknown>): Promise<ContractError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ContractError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

const changes = (s: AppServices) =>
  s.store.audit
    .search({ action: 'retention.changed', limit: 50 })
    .reverse()
    .map((entry) => ({ actor: entry.actor, details: entry.details }));

describe('retention through the contract', () => {
  it('reads the setting, refuses bad values with the rule, and audits each change with old and new days', async () => {
    fixture = stagingFixture();
    fixture.store.close();
    const { services: s, api } = open(fixture, 0);
    await s.openAuditChain();

    const first = await api.call('retention.get', {});
    expect(first).toMatchObject({ stagedDays: 90, autoVacuum: 'incremental', lastRun: null });
    expect(Date.parse(first.nextRunAt ?? '')).toBeGreaterThan(Date.now() + 3_500_000);

    for (const wrong of [0, 36_501, 1.5, -3, '30', undefined]) {
      const error = await refusal(api.call('retention.set', { stagedDays: wrong as number }));
      expect(error.code, String(wrong)).toBe('invalid-input');
      expect(error.issues, String(wrong)).toEqual([{ path: 'stagedDays', message: STAGED_DAYS_RULE }]);
    }
    expect((await api.call('retention.get', {})).stagedDays).toBe(90);
    expect(changes(s)).toEqual([]);

    expect(await api.call('retention.set', { stagedDays: 30 })).toMatchObject({ stagedDays: 30 });
    expect(await api.call('retention.set', { stagedDays: 30 })).toMatchObject({ stagedDays: 30 });
    expect(await api.call('retention.set', { stagedDays: null })).toMatchObject({ stagedDays: null });
    expect(await api.call('retention.set', { stagedDays: 36_500 })).toMatchObject({ stagedDays: 36_500 });
    // The same value twice is one change; "for ever" has no days, and the outcome says which side it is.
    expect(changes(s)).toEqual([
      { actor: 'user', details: { retentionDays: 30, previousRetentionDays: 90, via: 'direct' } },
      { actor: 'user', details: { outcome: 'kept for ever', previousRetentionDays: 30, via: 'direct' } },
      { actor: 'user', details: { retentionDays: 36_500, outcome: 'was kept for ever', via: 'direct' } },
    ]);
    expect(s.verifyAuditLog()).toMatchObject({ ok: true });
  });

  it('a shorter setting applies in the background without a restart', async () => {
    const f = await discardedBatchFixture();
    fixture = f;

    // 40 days after the discard: past 30 days, within 60 and 90.
    const runs: RetentionRunResult[] = [];
    let ran: () => void = () => undefined;
    const { services: s, api } = open(f, 40, (result) => {
      runs.push(result);
      ran();
    });
    await s.openAuditChain();
    const nextRun = () => new Promise<void>((resolve) => (ran = resolve));
    const stagedRows = () => s.store.db.prepare('SELECT count(*) FROM staged_orders').pluck().get();

    let done = nextRun();
    await api.call('retention.set', { stagedDays: 60 });
    await done;
    expect(runs.at(-1)).toMatchObject({ cutoff: expect.any(String) as string, deleted: 0 });
    expect(stagedRows()).toBe(3);

    done = nextRun();
    await api.call('retention.set', { stagedDays: 30 });
    await done;
    expect(runs.at(-1)).toMatchObject({ deleted: 3, batchesFinished: 1 });
    expect(stagedRows()).toBe(0);
    const state = await api.call('retention.get', {});
    expect(state).toMatchObject({ stagedDays: 30, lastRun: { deleted: 3, compacted: 0, aborted: false } });
    // Back on its usual pace after the run it brought forward (6 hours by default).
    expect(Date.parse(state.nextRunAt ?? '')).toBeGreaterThan(Date.now() + 40 * 86_400_000 + 5 * 3_600_000);

    // Longer keeps what is there and brings nothing forward.
    await api.call('retention.set', { stagedDays: 365 });
    expect(Date.parse((await api.call('retention.get', {})).nextRunAt ?? '')).toBeGreaterThan(
      Date.now() + 40 * 86_400_000 + 5 * 3_600_000,
    );
    expect(runs).toHaveLength(2);
  });
});
