import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import type { Configuration } from 'app-builder-lib';
import { DebugLogger } from 'builder-util';
import { describe, expect, it } from 'vitest';

/**
 * Packaging cannot run here (no Electron download), so the configuration is checked the way electron-builder
 * itself loads and validates it: `extends` resolved, then its JSON schema, offline.
 */

const root = resolve(import.meta.dirname, '../..');

function load(file: string): Promise<Configuration> {
  return getConfig(root, file, null);
}

async function validate(config: Configuration): Promise<void> {
  await validateConfiguration(structuredClone(config), new DebugLogger(false));
}

function targetsOf(config: Configuration, platform: 'linux' | 'win' | 'mac'): unknown {
  return config[platform]?.target;
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('electron-builder.yml (release)', () => {
  it("passes electron-builder's own schema", async () => {
    await expect(validate(await load('electron-builder.yml'))).resolves.toBeUndefined();
  });

  it('is really checked: a misplaced option fails the same validation', async () => {
    const config = await load('electron-builder.yml');
    await expect(validate({ ...config, linux: { ...config.linux, title: 'misplaced' } as never })).rejects.toThrow(
      /title/,
    );
  });

  it('builds AppImage and deb, NSIS and dmg, under the app id and product name', async () => {
    const config = await load('electron-builder.yml');
    expect(config.appId).toBe('uk.co.rxbatch.desktop');
    expect(config.productName).toBe('Rx Batch');
    expect(targetsOf(config, 'linux')).toEqual(['AppImage', 'deb']);
    expect(targetsOf(config, 'win')).toEqual(['nsis']);
    expect(targetsOf(config, 'mac')).toEqual(['dmg']);
    expect(config.publish).toBeNull();
  });

  it('sets the release fuses: no RunAsNode, NODE_OPTIONS or inspector; asar integrity and asar-only loading', async () => {
    const { electronFuses } = await load('electron-builder.yml');
    expect(electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('packs the built app, rebuilds nothing and unpacks SQLite from the archive', async () => {
    const config = await load('electron-builder.yml');
    const packageJson = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
      main: string;
      optionalDependencies: Record<string, string>;
      allowScripts: Record<string, boolean>;
    };
    expect(packageJson.main.startsWith('out/')).toBe(true);
    const files = JSON.stringify(config.files);
    expect(files).toContain('"out/**"');
    expect(config.asarUnpack).toContain('**/node_modules/better-sqlite3/**');
    // better-sqlite3 is N-API: its prebuilt binary loads in Electron as it is (test/e2e/packaging.spec.ts packs it).
    expect(config.npmRebuild).toBe(false);
    // Nor on install: npm ci would run node-gyp for it (the lockfile loses its gypfile: false) unless denied here.
    expect(packageJson.allowScripts['better-sqlite3']).toBe(false);
    expect(config.asar).not.toBe(false);
    // The Node binaries the scripts and tests run on are optional dependencies, so production ones: each is left out.
    for (const name of Object.keys(packageJson.optionalDependencies)) {
      expect(files, name).toContain(`"!**/node_modules/${name}/**"`);
    }
  });

  it('builds the core host as its own file in out/main, which the packed files include', async () => {
    const { default: viteConfig } = await import('../../electron.vite.config.js');
    const entries = (viteConfig as { main: { build: { lib: { entry: Record<string, string> } } } }).main.build.lib
      .entry;
    expect(entries['core-host']).toBe(resolve(root, 'main/host/core-host.ts'));
    const config = await load('electron-builder.yml');
    expect(JSON.stringify(config.files)).toContain('"out/**"');
    expect(JSON.stringify(config.files)).not.toMatch(/!out|core-host/);
  });

  it('has a 512×512 PNG icon for every platform', async () => {
    const config = await load('electron-builder.yml');
    for (const platform of ['linux', 'win', 'mac'] as const) {
      const icon = config[platform]?.icon;
      expect(icon, platform).toBe('build/icon.png');
      expect(pngSize(resolve(root, icon as string))).toEqual({ width: 512, height: 512 });
    }
  });
});

describe('electron-builder.test.yml (test build)', () => {
  it('is the release configuration with only the inspect fuse turned on, built elsewhere', async () => {
    const release = await load('electron-builder.yml');
    const testBuild = await load('electron-builder.test.yml');
    await expect(validate(testBuild)).resolves.toBeUndefined();
    expect(testBuild.electronFuses).toEqual({ ...release.electronFuses, enableNodeCliInspectArguments: true });
    expect(testBuild.directories?.output).toBe('dist/test-build');
    const strip = ({ electronFuses: _fuses, directories: _dirs, extends: _extends, ...rest }: Configuration) => rest;
    expect(strip(testBuild)).toEqual(strip(release));
  });
});
