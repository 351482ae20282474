import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../core/store/open-database.js';
import { STORE_FILE } from '../core/store/store.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

// `rx-batch retention` (issue #16): the setting shown and changed (audited), applied on request, and the one-time
// switch of an older store to incremental auto-vacuum, after which the log still verifies. Real data directories.
describe('rx-batch retention', () => {
  let dir: string;
  let dataDir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-retention-'));
    dataDir = join(dir, 'data');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);

  it('shows and changes how long staging copies are kept, and applies it on request', async () => {
    const shown = await cli('retention');
    expect(shown).toMatchObject({ code: 0 });
    expect(shown.stdout).toContain('kept 90 days after an order is accepted and finished');
    expect(shown.stdout).toContain('given back to the file system');

    expect(JSON.parse((await cli('retention', '--staged-days', '30', '--json')).stdout)).toMatchObject({
      stagedDays: 30,
      autoVacuum: 'incremental',
    });
    expect(JSON.parse((await cli('retention', '--staged-days', 'never', '--run', '--json')).stdout)).toEqual({
      stagedDays: null,
      autoVacuum: 'incremental',
      freePages: 0,
      // Nothing to compact; the few pages a new store's migrations left free (tables rebuilt) are given back too.
      run: {
        compacted: 0,
        bodiesPacked: 0,
        deleted: 0,
        batchesFinished: 0,
        pagesReturned: expect.any(Number) as number,
      },
    });
    for (const wrong of ['0', '36501', '1.5', 'soon']) {
      const refused = await cli('retention', '--staged-days', wrong);
      expect(refused.code, wrong).toBe(2);
      expect(refused.stderr).toContain('--staged-days takes a number of days from 1 to 36500, or never');
    }
    const log = await cli('log', 'export', '--format', 'jsonl');
    const changes = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; details: Record<string, unknown> })
      .filter((entry) => entry.action === 'retention.changed');
    // The same audited change as the Settings screen's, with the days before (no `via`: not through the contract).
    expect(changes.map((entry) => entry.details)).toEqual([
      { retentionDays: 30, previousRetentionDays: 90 },
      { outcome: 'kept for ever', previousRetentionDays: 30 },
    ]);
  });

  it('switches a store made before incremental auto-vacuum once (--vacuum); the log still verifies', async () => {
    // A file that already had pages when the store first configured it: as every store before this version.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const db = openDatabase(join(dataDir, STORE_FILE));
    db.exec('CREATE TABLE earlier (x); DROP TABLE earlier;');
    db.close();
    await cli('retention', '--staged-days', '45');
    expect(JSON.parse((await cli('retention', '--json')).stdout)).toMatchObject({ autoVacuum: 'none' });
    expect((await cli('retention')).stdout).toContain('rx-batch retention --vacuum gives it back');

    const switched = await cli('retention', '--vacuum', '--json');
    expect(switched.code).toBe(0);
    expect(JSON.parse(switched.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      stagedDays: 45,
      autoVacuum: 'incremental',
    });
    expect(await cli('log', 'verify')).toMatchObject({ code: 0 });
  });
});
