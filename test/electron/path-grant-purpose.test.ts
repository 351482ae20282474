import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_SANDBOX_ID } from '../../main/core/environments/presets.js';
import { writeTemplateCsv } from '../../main/core/importing/template-csv.js';
import { silentLogger } from '../../main/core/platform/logger.js';
import { MemorySecretStore } from '../../main/core/platform/secret-store.js';
import { DesktopShell } from '../../main/electron/desktop-integration.js';
import { grantedPaths, PathGrants } from '../../main/electron/path-grants.js';
import { CoreClient } from '../../main/host/core-client.js';
import { forkSpawner } from '../../main/host/fork-spawner.js';
import { sampleCreateWithClinic } from '../support/orders.js';

/**
 * Finding 61: a folder dropped on the page (granted for reading) let page script have the intake watch it, and so
 * move its files into done/ and failed/. The desktop's grants as app.ts wires them (`grantedPaths`), a real core
 * host in a child process asking for them over the host protocol, and real folders.
 */

describe('path grants carry their purpose to the core', () => {
  let dir: string;
  let client: CoreClient;
  const grants = new PathGrants();
  let chosenFolder: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-grant-purpose-'));
    chosenFolder = join(dir, 'intake');
    mkdirSync(chosenFolder);
    const shell = new DesktopShell({
      showOpenDialog: () => Promise.resolve([chosenFolder]),
      confirm: () => Promise.resolve(false),
      showSaveDialog: () => Promise.resolve(null),
      openPath: () => Promise.resolve(''),
      dataDir: join(dir, 'data'),
      grants,
      announce: () => {},
      logger: silentLogger,
    });
    await shell.chooseFiles('intake-folder');
    client = new CoreClient({
      spawn: forkSpawner(),
      start: {
        dataDir: join(dir, 'data'),
        appVersion: '9.9.9',
        transport: 'electron',
        secrets: 'shell',
        importPaths: { kind: 'shell' },
        desktop: true,
        localSandbox: { start: false },
      },
      services: { secrets: new MemorySecretStore(), desktop: shell, importPaths: grantedPaths(grants) },
      logger: silentLogger,
    });
    await client.start();
  }, 60_000);

  afterAll(async () => {
    await client?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const watch = (folder: string) =>
    client.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, onArrival: 'hold', port: 0, folders: [folder] });

  it('refuses to watch a folder granted for import (a drop), and leaves its files where they are', async () => {
    const dropped = join(dir, 'dropped');
    mkdirSync(dropped);
    writeFileSync(join(dropped, 'monday.csv'), writeTemplateCsv([sampleCreateWithClinic()]));
    // What ipc.ts grants for a path the preload reports for a dropped File.
    grants.add([dropped], 'import');
    expect(await watch(dropped)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readdirSync(dropped)).toEqual(['monday.csv']);
    expect(existsSync(join(dropped, 'done'))).toBe(false);
  });

  it('watches the folder chosen in the intake dialog, which is not importable by path for it', async () => {
    expect(await client.call('import.file', { environmentId: LOCAL_SANDBOX_ID, path: chosenFolder })).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    const started = await watch(chosenFolder);
    expect(started).toMatchObject({ ok: true, value: { running: true } });
    await client.call('intake.stop', {});
  });
});
