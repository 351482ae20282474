import { appendFileSync, existsSync, readFileSync, readdirSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  stagingFixture,
  templateCsv,
  uniqueOrder,
  withField,
  type StagingFixture,
} from '../staging/testing/staging-fixtures.js';
import { IntakeRepo } from '../store/intake-repo.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { FolderWatcher } from './folder-watcher.js';
import type { IntakeMode } from './intake-service.js';

// Issue #17, watched folders: partial writes, the same file twice, a bad file moved to failed/ with its reasons,
// files present at start; nothing the folder holds is deleted.

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

function setUp(mode: IntakeMode = 'hold', intervalMs?: number) {
  const f = (fixture = stagingFixture());
  const dir = join(f.dataDir, 'inbox');
  mkdirSync(dir);
  const watcher = new FolderWatcher({
    dir,
    environmentId: LOCAL.id,
    store: f.store,
    staging: f.staging,
    repo: new IntakeRepo(f.store.db, f.store.now),
    mode,
    ...(intervalMs !== undefined ? { intervalMs } : {}),
  });
  return { f, dir, watcher };
}

const batches = (f: StagingFixture) => f.staging.listBatches(LOCAL.id);

describe('watched folders', () => {
  it('imports a file there at start once it is stable, and moves it to done/', async () => {
    const { f, dir, watcher } = setUp();
    writeFileSync(join(dir, 'orders.csv'), templateCsv([uniqueOrder(), uniqueOrder()]));
    await watcher.pollOnce(); // seen (and done/, failed/ made)
    expect(existsSync(join(dir, 'orders.csv'))).toBe(true);
    await watcher.pollOnce(); // unchanged: complete
    expect(readdirSync(join(dir, 'done'))).toEqual(['orders.csv']);
    expect(existsSync(join(dir, 'orders.csv'))).toBe(false);
    expect(batches(f)).toHaveLength(1);
    expect(batches(f)[0]!.counts).toMatchObject({ valid: 2, invalid: 0 });
    expect(f.store.audit.search({ action: 'intake.file.imported' })).toHaveLength(1);
  });

  it('waits for a file still being written, and for one renamed into place', async () => {
    const { f, dir, watcher } = setUp();
    const text = templateCsv([uniqueOrder(), uniqueOrder(), uniqueOrder()]);
    const path = join(dir, 'partial.csv');
    writeFileSync(path, text.slice(0, 200));
    await watcher.pollOnce();
    appendFileSync(path, text.slice(200, 400));
    await watcher.pollOnce(); // grew: not complete
    expect(batches(f)).toHaveLength(0);
    appendFileSync(path, text.slice(400));
    await watcher.pollOnce();
    expect(batches(f)).toHaveLength(0);
    await watcher.pollOnce();
    expect(batches(f)).toHaveLength(1);
    expect(batches(f)[0]!.counts).toMatchObject({ valid: 3, invalid: 0 });

    writeFileSync(join(dir, 'next.csv.part'), templateCsv([uniqueOrder()]));
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(batches(f)).toHaveLength(1); // a name being written is left alone
    renameSync(join(dir, 'next.csv.part'), join(dir, 'next.csv'));
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(batches(f)).toHaveLength(2);
  });

  it('imports the same content once, whatever its name, and keeps every file', async () => {
    const { f, dir, watcher } = setUp();
    mkdirSync(join(dir, 'done'));
    const text = templateCsv([uniqueOrder()]);
    writeFileSync(join(dir, 'a.csv'), text);
    await watcher.pollOnce();
    await watcher.pollOnce();
    writeFileSync(join(dir, 'b.csv'), text);
    writeFileSync(join(dir, 'a.csv'), text); // the same name again
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(batches(f)).toHaveLength(1);
    expect(readdirSync(join(dir, 'done')).sort()).toEqual([
      'a (2).csv',
      'a (2).csv.duplicate.txt',
      'a.csv',
      'b.csv',
      'b.csv.duplicate.txt',
    ]);
    expect(readFileSync(join(dir, 'done', 'b.csv.duplicate.txt'), 'utf8')).toMatch(/batch \d+/);
  });

  it('moves a bad file to failed/ with its error CSV, a refused one with its problems', async () => {
    const { f, dir, watcher } = setUp('send');
    mkdirSync(join(dir, 'done'));
    mkdirSync(join(dir, 'failed'));
    const good = uniqueOrder();
    const bad = withField(uniqueOrder(), 'homeAddress.postCode', 'NOT A POSTCODE');
    writeFileSync(join(dir, 'mixed.csv'), templateCsv([good, bad]));
    writeFileSync(join(dir, 'empty.csv'), '\n\n');
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(readdirSync(join(dir, 'failed')).sort()).toEqual([
      'empty.csv',
      'empty.csv.problems.txt',
      'mixed.csv',
      'mixed.csv.errors.csv',
    ]);
    expect(readFileSync(join(dir, 'failed', 'mixed.csv.errors.csv'), 'utf8')).toMatch(/errors/);
    expect(readFileSync(join(dir, 'failed', 'mixed.csv.errors.csv'), 'utf8')).toMatch(/postcode|postCode/i);
    expect(readFileSync(join(dir, 'failed', 'empty.csv.problems.txt'), 'utf8').length).toBeGreaterThan(5);
    // "Send valid orders as they arrive": the valid one is queued, the other stays for a person.
    const queued = f.store.db.prepare("SELECT count(*) AS n FROM orders WHERE state = 'queued'").get() as { n: number };
    expect(queued.n).toBe(1);
    expect(f.store.audit.search({ action: 'intake.file.failed' })).toHaveLength(2);
  });

  it('polls by itself once started, and stops cleanly', async () => {
    const { f, dir, watcher } = setUp('hold', 50);
    writeFileSync(join(dir, 'early.csv'), templateCsv([uniqueOrder()]));
    watcher.start();
    for (let i = 0; i < 100 && batches(f).length === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    writeFileSync(join(dir, 'later.csv'), templateCsv([uniqueOrder()]));
    for (let i = 0; i < 100 && batches(f).length < 2; i += 1) await new Promise((r) => setTimeout(r, 50));
    await watcher.stop();
    expect(batches(f)).toHaveLength(2);
    expect(readdirSync(join(dir, 'done')).sort()).toEqual(['early.csv', 'later.csv']);
  });
});
