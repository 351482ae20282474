import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import type { Core } from '../app-core.js';
import { openCore } from '../testing/test-core.js';
import { templateCsv, uniqueOrder } from './testing/staging-fixtures.js';

/**
 * docs/security.md, finding 39: browser mode imports a file by writing the page's upload to
 * `<data dir>/import-uploads/` and removes it when the import ends. A core that died mid-import (a crash, a kill,
 * the power) left it there, and only a later upload removed it, an hour on at the soonest: with none (the admin went
 * back to the desktop app, which imports by path), the whole file, patient data, stayed for good, past the retention
 * time that drops its staged copies. A real core on a real data directory.
 */

let dir: string | undefined;
let open: Core | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const uploads = (dataDir: string) => join(dataDir, 'import-uploads');
const left = (dataDir: string) => (existsSync(uploads(dataDir)) ? readdirSync(uploads(dataDir)) : []);

describe('uploads a core left behind', () => {
  it('are removed when the next core starts, and an upload still imports and leaves nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-upload-leftovers-'));
    const dataDir = join(dir, 'data');
    await (await openCore(dataDir, { transport: 'browser' })).core.close();
    // What an import that never ended leaves: the page's file, written just now.
    mkdirSync(uploads(dataDir), { recursive: true, mode: 0o700 });
    writeFileSync(join(uploads(dataDir), 'died-mid-import.upload'), templateCsv([uniqueOrder({}, 'LEFT')]), {
      mode: 0o600,
    });

    const { core, api } = await openCore(dataDir, { transport: 'browser' });
    open = core;
    expect(left(dataDir)).toEqual([]);

    const imported = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name: 'clinic.csv', content: templateCsv([uniqueOrder({}, 'UP')]) },
    });
    expect(imported).toMatchObject({ status: 'staged' });
    expect(left(dataDir)).toEqual([]);
  });
});
