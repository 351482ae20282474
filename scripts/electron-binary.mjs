import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Where the Electron binary is, or null, decided from files only. Importing the `electron` package is not an
 * option: since Electron 45 its entry point tries to download a missing binary, and nothing may download at
 * run time (this machine installs with ELECTRON_SKIP_BINARY_DOWNLOAD=1 and has no route to the download host).
 */
export function electronBinary() {
  const dir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const override = join(
      process.env.ELECTRON_OVERRIDE_DIST_PATH,
      process.platform === 'win32' ? 'electron.exe' : 'electron',
    );
    return existsSync(override) ? override : null;
  }
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}
