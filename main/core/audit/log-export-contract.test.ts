import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import { openCore, openTestCore, type TestCore } from '../testing/test-core.js';
import { exportLogText } from '../testing/export-text.js';
import { exportDownloadPath, exportDownloadsDir } from '../platform/export-files.js';
import type { DesktopIntegration, SaveRequest } from '../desktop-handlers.js';
import { buildLogHandlers } from './log-handlers.js';

// `log.export` without a desktop (browser mode, direct calls; issue #16): streamed into a private one-time download
// file, never returned as one text; the screen's filters followed; progress reported; cancelled on request.
describe('log.export through the contract', () => {
  let testCore: TestCore;
  beforeEach(async () => {
    testCore = await openTestCore('log-export');
  });
  afterEach(() => testCore.close());

  function appendMany(count: number) {
    const { store } = testCore.core.services;
    store.inTransaction(() => {
      for (let index = 0; index < count; index += 1) {
        store.audit.append({
          actor: 'submitter',
          action: index % 4 === 0 ? 'outbox.paused' : 'order.attempt',
          environmentId: 'local-sandbox',
          details: { attempt: index },
        });
      }
    });
  }

  it('writes a private download file holding the entries the filters select, and records the export', async () => {
    appendMany(200);
    const { api, dataDir } = testCore;
    const whole = await api.call('log.export', { format: 'csv' });
    expect(whole).toMatchObject({ outcome: 'download', filtered: false, masked: true });
    if (whole.outcome !== 'download') throw new Error('a download was expected');
    const file = exportDownloadPath(dataDir, whole.downloadId, 'csv')!;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(whole.fileName).toMatch(/^rx-batch-log-\d{4}-\d{2}-\d{2}\.csv$/);

    const filtered = await exportLogText(api, { format: 'jsonl', filter: { action: 'outbox.' } });
    expect(filtered).toMatchObject({ outcome: 'download', filtered: true, count: 50 });
    const actions = filtered.text
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { action: string }).action);
    expect(new Set(actions)).toEqual(new Set(['outbox.paused']));
    const recorded = (await api.call('log.list', { action: 'log.exported' })).entries;
    expect(recorded.map((entry) => entry.details)).toEqual([
      { format: 'jsonl', masked: true, rowCount: 50, outcome: 'filtered' },
      { format: 'csv', masked: true, rowCount: whole.count },
    ]);
  });

  it('exports nothing when the filters match no entry: no file, no save dialog, no audit entry', async () => {
    appendMany(20);
    const { api, dataDir } = testCore;
    const filter = { search: 'NOTHING-MATCHES-THIS' };
    expect(await api.call('log.export', { format: 'csv', filter })).toEqual({ outcome: 'empty' });
    const downloads = exportDownloadsDir(dataDir);
    expect(existsSync(downloads) ? readdirSync(downloads) : []).toEqual([]);
    expect((await api.call('log.list', { action: 'log.exported' })).entries).toEqual([]);

    // The desktop app does not open its save dialog for it either (nor would it empty a file chosen there).
    const saveRequests: SaveRequest[] = [];
    const desktop = {
      chooseSavePath: (request: SaveRequest) => {
        saveRequests.push(request);
        return Promise.resolve(null);
      },
    } as Partial<DesktopIntegration> as DesktopIntegration;
    const handlers = buildLogHandlers(testCore.core.services, { dataDir, desktop });
    expect(await handlers['log.export']({ format: 'jsonl', filter })).toEqual({ outcome: 'empty' });
    expect(saveRequests).toEqual([]);
    // A filter that matches still asks where to save.
    expect(await handlers['log.export']({ format: 'jsonl', filter: { action: 'outbox.' } })).toEqual({
      outcome: 'cancelled',
    });
    expect(saveRequests).toHaveLength(1);
  });

  it('reports progress, stops when cancelled and leaves nothing behind, and refuses a second export meanwhile', async () => {
    appendMany(20_000);
    const { api, dataDir } = testCore;
    const progress: Array<EventPayload<'log.progress'>> = [];
    const cancelled = new Promise<void>((resolve) => {
      const off = api.on('log.progress', (event) => {
        progress.push(event);
        if (event.finished) {
          off();
          resolve();
        }
      });
    });
    const running = api.call('log.export', { format: 'csv' });
    await expect(api.call('log.export', { format: 'jsonl' })).rejects.toSatisfy(
      (error) => error instanceof ContractError && /already running/.test(error.message),
    );
    expect(await api.call('log.cancel', { operation: 'export' })).toEqual({ running: true });
    expect(await running).toEqual({ outcome: 'cancelled' });
    await cancelled;
    expect(progress[0]).toEqual({ operation: 'export', done: 0, total: 20_000, finished: false });
    expect(progress.at(-1)).toMatchObject({ operation: 'export', finished: true });
    expect(progress.at(-1)!.done).toBeLessThan(20_000);
    expect(readdirSync(exportDownloadsDir(dataDir))).toEqual([]);
    expect((await api.call('log.list', { action: 'log.exported' })).entries).toEqual([]);
    expect(await api.call('log.cancel', { operation: 'export' })).toEqual({ running: false });
  });

  it('removes downloads an earlier run left unfetched when the core starts', async () => {
    const { dataDir } = testCore;
    const result = await testCore.api.call('log.export', { format: 'csv' });
    if (result.outcome !== 'download') throw new Error('a download was expected');
    writeFileSync(join(exportDownloadsDir(dataDir), 'stray.csv'), 'x');
    await testCore.core.close();
    const reopened = await openCore(dataDir);
    try {
      expect(existsSync(exportDownloadPath(dataDir, result.downloadId, 'csv')!)).toBe(false);
      expect(readdirSync(exportDownloadsDir(dataDir))).toEqual([]);
    } finally {
      await reopened.core.close();
    }
  });
});
