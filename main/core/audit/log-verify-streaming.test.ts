import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../shared/contract.js';
import { rewriteEntry } from '../store/testing/audit-tamper.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';

// The whole-chain check (`log.verify { full: true }`, issue #16): page by page, with `log.progress` and a cancel,
// the core serving other calls meanwhile, and finding what the sync walk finds.
describe('log.verify { full: true } through the contract', () => {
  let testCore: TestCore;
  const ENTRIES = 30_000;

  beforeEach(async () => {
    testCore = await openTestCore('log-verify-full');
    const { store } = testCore.core.services;
    store.inTransaction(() => {
      for (let index = 0; index < ENTRIES; index += 1) {
        store.audit.append({ actor: 'submitter', action: 'order.attempt', details: { attempt: index } });
      }
    });
  });
  afterEach(() => testCore.close());

  function progressEvents() {
    const seen: Array<EventPayload<'log.progress'>> = [];
    const off = testCore.api.on('log.progress', (event) => seen.push(event));
    return { seen, off };
  }

  it('reports progress page by page and answers other calls while it runs', async () => {
    const { api } = testCore;
    const { seen, off } = progressEvents();
    let verifyDone = false;
    const running = api.call('log.verify', { full: true }).finally(() => {
      verifyDone = true;
    });
    // Served between two pages of the check, not after it.
    const page = await api.call('log.list', { limit: 1 });
    expect(page.entries).toHaveLength(1);
    expect(verifyDone).toBe(false);
    expect(await running).toEqual({ ok: true, count: ENTRIES });
    off();
    expect(seen[0]).toEqual({ operation: 'verify', done: 0, total: ENTRIES, finished: false });
    expect(seen.at(-1)).toEqual({ operation: 'verify', done: ENTRIES, total: ENTRIES, finished: true });
    const dones = seen.map((event) => event.done);
    expect(dones).toEqual([...dones].sort((x, y) => x - y));
  });

  it('stops on log.cancel and says how far it got', async () => {
    const { api } = testCore;
    const running = api.call('log.verify', { full: true });
    expect(await api.call('log.cancel', { operation: 'verify' })).toEqual({ running: true });
    const result = await running;
    expect(result).toMatchObject({ ok: false, cancelled: true, total: ENTRIES });
    expect('checked' in result && result.checked).toBeLessThan(ENTRIES);
    // A second check runs to the end: the cancel left nothing held.
    expect(await api.call('log.verify', { full: true })).toEqual({ ok: true, count: ENTRIES });
  });

  it('finds an entry changed inside the prefix already checked, which the incremental check cannot see', async () => {
    const { api, core } = testCore;
    expect(await api.call('log.verify', {})).toEqual({ ok: true, count: ENTRIES });
    const { db } = core.services.store;
    rewriteEntry(db, ENTRIES / 2, { detailsJson: '{"attempt":999999}' });
    expect(await api.call('log.verify', {})).toEqual({ ok: true, count: ENTRIES });
    expect(await api.call('log.verify', { full: true })).toMatchObject({
      ok: false,
      brokenAt: ENTRIES / 2,
      problem: 'altered',
    });
  });
});
