import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfirmQuestion, SaveRequest } from '../desktop-handlers.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { exportDownloadsDir } from '../platform/export-files.js';
import { exportText } from '../testing/export-text.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';
import { templateCsv, uniqueOrder, withField } from './testing/staging-fixtures.js';
import { batchExportName } from './batch-export-handlers.js';

// A batch's error and template exports (issue #14): streamed to a file a page at a time, never one text in the
// core or across the transport; in the desktop app where the admin chose in the save dialog.
describe('batch exports through the contract', () => {
  let t: TestCore;
  afterEach(() => t.close());

  async function stageFile(name: string, orders: number, bad: number): Promise<number> {
    const rows = Array.from({ length: orders }, (_, index) =>
      index < bad ? withField(uniqueOrder({}, 'EXP'), 'customer.email', 'not-an-email') : uniqueOrder({}, 'EXP'),
    );
    mkdirSync(join(t.dir, 'in'), { recursive: true });
    const path = join(t.dir, 'in', name);
    writeFileSync(path, templateCsv(rows));
    const outcome = await t.api.call('import.file', { environmentId: LOCAL_SANDBOX_ID, path });
    if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
    return outcome.batchId;
  }

  it('writes a big error export to a one-time private download, answering other calls while it runs', async () => {
    t = await openTestCore('batch-export');
    const batchId = await stageFile('March orders.csv', 4_000, 3_000);
    let settled = false;
    const running = t.api.call('batches.exportErrors', { batchId }).finally(() => (settled = true));
    // Once the file has taken its first page, a cheap call is answered before the export ends.
    const dir = exportDownloadsDir(t.dataDir);
    while (!settled && !(existsSync(dir) && readdirSync(dir).some((name) => statSync(join(dir, name)).size > 0)))
      await new Promise<void>((resolve) => setImmediate(resolve));
    await t.api.call('environments.list', {});
    expect(settled).toBe(false);
    const result = await running;
    expect(result).toMatchObject({ outcome: 'download', orders: 3_000, rows: 3_000, format: 'csv' });
    expect(result).not.toHaveProperty('text');
    if (result.outcome !== 'download') throw new Error('a download was expected');
    expect(result.fileName).toBe('March-orders-errors.csv');
    const file = join(dir, `${result.downloadId}.csv`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('\ufeff')).toBe(true);
    expect(text.trimEnd().split('\r\n')).toHaveLength(3_001);
    const recorded = (await t.api.call('log.list', { action: 'batch.errors.exported' })).entries;
    expect(recorded.map((entry) => entry.details)).toEqual([{ format: 'csv', orderCount: 3_000, rowCount: 3_000 }]);
  });

  it('in the desktop app, writes where the save dialog says, and nothing when it is closed', async () => {
    const asked: SaveRequest[] = [];
    let answer: string | null = null;
    const desktop = {
      chooseFiles: () => Promise.resolve({ paths: [], skipped: [] }),
      takeImportRequests: () => ({ paths: [], skipped: [] }),
      openDataFolder: () => Promise.resolve({}),
      chooseSavePath: (request: SaveRequest) => {
        asked.push(request);
        return Promise.resolve(answer);
      },
      confirm: (question: ConfirmQuestion) => Promise.resolve(question.kind !== 'binding-change'),
    };
    t = await openTestCore('batch-export-desktop', { desktop });
    const batchId = await stageFile('referrals.csv', 3, 1);

    expect(await t.api.call('batches.exportTemplate', { batchId })).toEqual({ outcome: 'cancelled' });
    expect((await t.api.call('log.list', { action: 'batch.template.exported' })).entries).toEqual([]);

    answer = join(t.dir, 'chosen.csv');
    expect(await t.api.call('batches.exportTemplate', { batchId })).toEqual({
      outcome: 'saved',
      orders: 3,
      rows: 3,
      fileName: 'chosen.csv',
    });
    expect(asked).toEqual([
      { suggestedName: 'referrals-template.csv', format: 'csv' },
      { suggestedName: 'referrals-template.csv', format: 'csv' },
    ]);
    expect(statSync(answer).mode & 0o777).toBe(0o600);
    const again = await t.api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name: 'chosen.csv', content: readFileSync(answer, 'utf8') },
    });
    expect(again).toMatchObject({ status: 'staged', orders: 3, valid: 2, invalid: 1 });
  });

  it('offers a file name the download route takes, whatever the source file was called', async () => {
    t = await openTestCore('batch-export-names');
    expect(batchExportName('Zoë’s orders (March).csv', 'errors')).toBe('Zo--s-orders--March--errors.csv');
    expect(batchExportName('.csv', 'template')).toBe('batch-template.csv');
    expect(batchExportName(`${'x'.repeat(300)}.hl7`, 'errors')).toMatch(/^x{96}\.csv$/);
    const batchId = await stageFile('a b.csv', 1, 1);
    const { fileName, text } = await exportText(t.api, 'batches.exportErrors', { batchId });
    expect(fileName).toBe('a-b-errors.csv');
    expect(text.split('\r\n')[1]).toMatch(/"Email 'not-an-email' .*"$/);
  });
});
