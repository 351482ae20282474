import { existsSync, readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listPackage } from '@electron/asar';
import type BetterSqlite3 from 'better-sqlite3';
import { getConfig } from 'app-builder-lib/out/util/config/config.js';
import { expect, test } from '@playwright/test';
import { Arch, Platform, build } from 'electron-builder';
import { REPO_ROOT } from './support/browser-mode.js';

/**
 * The packaged app's layout, made by electron-builder itself from the built app (`out/`) and electron-builder.yml,
 * with a stand-in for the Electron binary (none can be downloaded here) and so without the fuses, which are flipped
 * in that binary. What it proves: nothing is rebuilt (better-sqlite3's N-API build is the one Electron loads), the
 * module is unpacked from the asar archive complete with its prebuilt binary and loads from there, and neither the
 * Node binaries the tests run on nor SQLite's C sources are shipped. Linux only: the stand-in is a Linux layout.
 */

test.describe.configure({ mode: 'serial' });
test.skip(process.platform !== 'linux', 'the stand-in Electron distribution is a Linux layout');

let work: string;
let resources: string;
let asarFiles: string[];

test.beforeAll(async () => {
  test.setTimeout(180_000);
  work = await mkdtemp(join(tmpdir(), 'rxbatch-pack-'));
  const electronDist = join(work, 'electron-dist');
  mkdirSync(electronDist);
  writeFileSync(join(electronDist, 'electron'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const electronVersion = (
    JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const { electronFuses: _fuses, ...release } = await getConfig(REPO_ROOT, 'electron-builder.yml', null);
  const configFile = join(work, 'electron-builder.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      ...release,
      electronDist,
      electronVersion,
      directories: { ...release.directories, output: join(work, 'dist') },
    }),
  );
  await build({
    projectDir: REPO_ROOT,
    config: configFile,
    targets: Platform.LINUX.createTarget('dir', Arch[process.arch as 'x64' | 'arm64']),
    publish: 'never',
  });
  resources = join(work, 'dist', process.arch === 'arm64' ? 'linux-arm64-unpacked' : 'linux-unpacked', 'resources');
  asarFiles = listPackage(join(resources, 'app.asar'), { isPack: false });
});

test.afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

test('the archive holds the built app and its production dependencies, not the Node binaries', () => {
  expect(asarFiles).toContain('/out/main/index.js');
  expect(asarFiles).toContain('/out/preload/preload.cjs');
  expect(asarFiles).toContain('/node_modules/better-sqlite3/package.json');
  expect(asarFiles).toContain('/node_modules/oidc-provider/package.json');
  expect(asarFiles.filter((file) => /^\/node_modules\/node-(linux|win|darwin)-/.test(file))).toEqual([]);
  expect(asarFiles.filter((file) => /^\/node_modules\/better-sqlite3\/(deps|src)\//.test(file))).toEqual([]);
  // The Node binary alone is over 100 MB; the app with its dependencies is well under that.
  expect(statSync(join(resources, 'app.asar')).size).toBeLessThan(100 * 1024 * 1024);
});

test('better-sqlite3 is unpacked with its prebuilt N-API binary, nothing compiled, and it loads from there', () => {
  const unpacked = join(resources, 'app.asar.unpacked', 'node_modules', 'better-sqlite3');
  expect(existsSync(join(unpacked, 'prebuilds', `linux-${process.arch}.node`))).toBe(true);
  expect(existsSync(join(unpacked, 'build'))).toBe(false);
  const Database = createRequire(import.meta.url)(unpacked) as typeof BetterSqlite3;
  const db = new Database(':memory:');
  try {
    expect(db.prepare('select 6 * 7 as answer').get()).toEqual({ answer: 42 });
  } finally {
    db.close();
  }
});
