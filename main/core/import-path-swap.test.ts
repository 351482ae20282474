import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readdirSync, readlinkSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from './app-core.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import { importFolders, type ImportPathPolicy } from './import-path-policy.js';
import { silentLogger } from './platform/logger.js';
import { MemorySecretStore } from './platform/secret-store.js';

/**
 * Import by path (docs/security.md): whoever can write in an `--import-dir` folder swaps what the policy approved
 * for a link out of the folder, a folder on the way for a link to another folder, or a FIFO, in the moment after the
 * check. The policy here is the real one, with that moment made reachable: the swap runs once it has answered.
 */

const TEMPLATE = join(import.meta.dirname, '../../test/fixtures/import/template-example.csv');

let dir: string;
let allowed: string;
let outside: string;
let core: Core;
let swap: (() => Promise<void>) | undefined;
const fifos: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rxbatch-path-swap-'));
  allowed = join(dir, 'batches');
  outside = join(dir, 'private');
  await mkdir(allowed);
  await mkdir(outside);
  // What an attacker aims for: a readable file of the admin's, here one the importer would read as orders.
  await copyFile(TEMPLATE, join(outside, 'orders.csv'));
  const policy = await importFolders([allowed]);
  const swapping: ImportPathPolicy = {
    folders: policy.folders!,
    async allow(path, purpose) {
      const answer = await policy.allow(path, purpose);
      await swap?.();
      swap = undefined;
      return answer;
    },
  };
  core = await createCore({
    dataDir: join(dir, 'data'),
    appVersion: '9.9.9',
    transport: 'browser',
    secrets: new MemorySecretStore(),
    logger: silentLogger,
    startLocalSandbox: false,
    startOutbox: false,
    importPaths: swapping,
  });
});

afterEach(() => {
  swap = undefined;
  // Should an open ever wait on a FIFO (the old code did), a writer lets it go, so the run ends.
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader waiting
    }
  }
});

afterAll(async () => {
  await core.close();
  await rm(dir, { recursive: true, force: true });
});

const importByPath = (path: string) =>
  core.handlers['import.file']({ environmentId: LOCAL_SANDBOX_ID, path, importId: `swap-${Math.random()}` });

const batches = () => core.handlers['batches.list']({ environmentId: LOCAL_SANDBOX_ID });

/** Descriptors of this process still open on a file under `folder` (Linux; none elsewhere). */
function descriptorsUnder(folder: string): number {
  if (!existsSync('/proc/self/fd')) return 0;
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(folder);
    } catch {
      return false;
    }
  }).length;
}

describe.skipIf(process.platform === 'win32')('a file swapped after the import path check', () => {
  it('does not follow a link put in its place', async () => {
    const path = join(allowed, 'monday.csv');
    await copyFile(TEMPLATE, path);
    // Through the same policy with nothing swapped, the file is imported.
    expect(await importByPath(path)).toMatchObject({ status: 'staged' });
    swap = async () => {
      await rm(path);
      await symlink(join(outside, 'orders.csv'), path);
    };
    const before = (await batches()).length;
    expect(await importByPath(path)).toMatchObject({
      status: 'refused',
      problems: [{ severity: 'error', code: 'file.link', file: 'monday.csv' }],
    });
    expect(await batches()).toHaveLength(before);
    expect(descriptorsUnder(allowed) + descriptorsUnder(outside)).toBe(0);
  });

  it('refuses the file when a folder on its way is swapped for a link to another folder', async () => {
    await mkdir(join(allowed, 'tuesday'));
    await copyFile(TEMPLATE, join(allowed, 'tuesday', 'orders.csv'));
    swap = async () => {
      await rename(join(allowed, 'tuesday'), join(allowed, 'tuesday.old'));
      await symlink(outside, join(allowed, 'tuesday'));
    };
    const before = (await batches()).length;
    expect(await importByPath(join(allowed, 'tuesday', 'orders.csv'))).toMatchObject({
      status: 'refused',
      problems: [{ severity: 'error', code: 'file.replaced', file: 'orders.csv' }],
    });
    expect(await batches()).toHaveLength(before);
    expect(descriptorsUnder(allowed) + descriptorsUnder(outside)).toBe(0);
  });

  it('refuses a FIFO put in its place at once, without waiting for a writer', async () => {
    const path = join(allowed, 'wednesday.csv');
    await copyFile(TEMPLATE, path);
    swap = async () => {
      await rm(path);
      execFileSync('mkfifo', [path]);
      fifos.push(path);
    };
    expect(await importByPath(path)).toMatchObject({
      status: 'refused',
      problems: [
        {
          code: 'file.notRegular',
          text: 'The file is a named pipe (FIFO), not a CSV or HL7 text file; only regular files are read.',
        },
      ],
    });
    expect(descriptorsUnder(allowed) + descriptorsUnder(outside)).toBe(0);
  });
});
