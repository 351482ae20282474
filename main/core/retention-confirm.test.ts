import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RxBatchApi } from '../../shared/contract.js';
import { createDirectApi } from '../transport/direct-api.js';
import { buildHandlers } from './app-handlers.js';
import { AppServices } from './app-services.js';
import type { ConfirmQuestion, DesktopIntegration } from './desktop-handlers.js';
import { NO_PATH } from './import-path-policy.js';
import { Outbox } from './outbox/outbox.js';
import { MemorySecretStore } from './platform/secret-store.js';
import { LOCAL } from './store/testing/store-fixtures.js';
import { stagingFixture, templateCsv, uniqueOrder, type StagingFixture } from './staging/testing/staging-fixtures.js';

/**
 * A shorter retention time in the desktop app (docs/security.md, finding 21): the core asks the shell's native
 * dialog with what the change drops, counted in the store, and keeps the days when the admin says no; a longer
 * time is not asked. A real store with two finished (rejected) orders of an accepted batch and a discarded batch of
 * three, 40 days on: within 90 and past 30, so 30 drops them all.
 */

let fixture: StagingFixture | undefined;
let services: AppServices | undefined;
afterEach(async () => {
  await services?.close();
  services = undefined;
  fixture?.close();
  fixture = undefined;
});

async function stage(f: StagingFixture, name: string, count: number): Promise<number> {
  const orders = Array.from({ length: count }, () => uniqueOrder());
  const outcome = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file(name, templateCsv(orders)) });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
  return outcome.batchId;
}

/** Two accepted orders, both rejected by the service (finished), and three staged orders of a discarded batch. */
async function finishedAndDiscarded(): Promise<StagingFixture> {
  const f = stagingFixture();
  f.staging.accept(await stage(f, 'accepted.csv', 2));
  for (const order of f.store.orders.claimForSending(LOCAL.id, 2)) {
    const attempt = { orderId: order.id, operation: 'create' as const, startedAt: f.store.now(), latencyMs: 5 };
    f.store.attempts.recordWithTransition({ ...attempt, httpStatus: 400, outcome: 'rejected' }, () => ({
      from: ['sending'],
      to: 'rejected',
      patch: { lastError: { kind: 'rejected', message: 'not known', field: null } },
      action: 'order.rejected',
    }));
  }
  f.staging.discard(await stage(f, 'discarded.csv', 3));
  f.store.close();
  return f;
}

/** A desktop whose only part in use here is the retention question, answered `answer`. */
function askingDesktop(): DesktopIntegration & { asked: ConfirmQuestion[]; answer: boolean } {
  const asked: ConfirmQuestion[] = [];
  const desktop = {
    asked,
    answer: false,
    chooseFiles: () => Promise.resolve({ paths: [], skipped: [] }),
    takeImportRequests: () => ({ paths: [], skipped: [] }),
    openDataFolder: () => Promise.resolve({}),
    chooseSavePath: () => Promise.resolve(null),
    confirm: (question: ConfirmQuestion) => {
      asked.push(question);
      return Promise.resolve(question.kind === 'retention' && desktop.answer);
    },
  };
  return desktop;
}

function open(f: StagingFixture, desktop: DesktopIntegration) {
  const later = new Date(Date.now() + 40 * 86_400_000);
  const opened = new AppServices({
    dataDir: join(f.dataDir, 'data'),
    secrets: new MemorySecretStore(),
    userAgent: 'RxBatch/test',
    now: () => later,
    createOutbox: (deps, tuning) => new Outbox(deps, tuning),
    // No run during the test: what is counted must still be there when the answer comes.
    retention: { firstRunAfterMs: 3_600_000, soonAfterMs: 3_600_000 },
  });
  services = opened;
  const info = { name: 'Rx Batch', version: '9.9.9', transport: 'electron', dataDir: f.dataDir } as const;
  const api: RxBatchApi = createDirectApi(buildHandlers(opened, info, desktop, NO_PATH), opened.events);
  return { services: opened, api };
}

const copiesKept = (s: AppServices) =>
  s.store.db.prepare("SELECT count(*) FROM staged_orders WHERE compacted_at IS NULL AND body <> '{}'").pluck().get();
const changes = (s: AppServices) => s.store.audit.search({ action: 'retention.changed', limit: 50 }).length;

describe('a shorter retention time in the desktop app', () => {
  it('is asked in the native dialog with what it drops; no keeps the days, yes applies them', async () => {
    fixture = await finishedAndDiscarded();
    const desktop = askingDesktop();
    const { services: s, api } = open(fixture, desktop);
    await s.openAuditChain();
    const acceptedOn = String(s.store.db.prepare('SELECT min(created_at) FROM orders').pluck().get()).slice(0, 10);

    await expect(api.call('retention.set', { stagedDays: 30 })).rejects.toMatchObject({
      code: 'forbidden',
      message: 'Imported file copies are still kept for 90 days: keeping them for 30 days only was not confirmed.',
    });
    expect(desktop.asked).toEqual([
      {
        kind: 'retention',
        title: 'Keep imported file copies for less time?',
        message: 'Keep imported file copies for 30 days only?',
        confirmLabel: 'Keep them 30 days',
        detail:
          'Imported file copies would be kept for 30 days, not 90 days.\n\n' +
          `Within a few minutes, the copies of 2 finished orders in 1 batch, accepted on ${acceptedOn}, are dropped: ` +
          'their file lines or HL7 messages, staged bodies, problems and provenance.\n\n' +
          '3 never-accepted orders of 1 discarded batch are deleted.\n\n' +
          'They cannot be brought back. The orders, their statuses and the Log stay.',
      },
    ]);
    expect((await api.call('retention.get', {})).stagedDays).toBe(90);
    expect(changes(s)).toBe(0);
    expect(copiesKept(s)).toBe(5);

    desktop.answer = true;
    expect(await api.call('retention.set', { stagedDays: 30 })).toMatchObject({ stagedDays: 30 });
    expect(desktop.asked).toHaveLength(2);
    expect(changes(s)).toBe(1);

    // Longer drops nothing sooner: not asked. Shorter again counts only what the current setting still keeps.
    expect(await api.call('retention.set', { stagedDays: 365 })).toMatchObject({ stagedDays: 365 });
    expect(desktop.asked).toHaveLength(2);
    desktop.answer = false;
    await expect(api.call('retention.set', { stagedDays: 41 })).rejects.toMatchObject({ code: 'forbidden' });
    expect(desktop.asked.at(-1)).toMatchObject({
      kind: 'retention',
      message: 'Keep imported file copies for 41 days only?',
      detail: expect.stringContaining('Nothing is dropped now; from now on, copies go 41 days after') as string,
    });
  });

  it('from "for ever" to days is shorter too, and says so', async () => {
    fixture = await finishedAndDiscarded();
    const desktop = askingDesktop();
    const { services: s, api } = open(fixture, desktop);
    await s.openAuditChain();
    s.retention.setStagedDays(null);
    desktop.answer = true;
    expect(await api.call('retention.set', { stagedDays: 1 })).toMatchObject({ stagedDays: 1 });
    expect(desktop.asked.at(-1)).toMatchObject({
      kind: 'retention',
      message: 'Keep imported file copies for 1 day only?',
      confirmLabel: 'Keep them 1 day',
      detail: expect.stringMatching(
        /^Imported file copies would be kept for 1 day, not for ever\.\n\nWithin a few minutes, the copies of 2 finished orders in 1 batch/,
      ) as string,
    });
    expect(await api.call('retention.set', { stagedDays: null })).toMatchObject({ stagedDays: null });
    expect(desktop.asked).toHaveLength(1);
  });
});
