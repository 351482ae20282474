import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where the core host's entry is, seen from `base` (the caller's `import.meta.url`): the built file beside the
 * bundle (out/main/core-host.js, electron.vite.config.ts), else the source (main/host/core-host.ts), which a child
 * runs through tsx (tests, browser mode from sources, the Electron double).
 */
export function coreHostEntry(base: string | URL): string {
  for (const name of ['core-host.js', 'core-host.ts', '../host/core-host.ts']) {
    const path = fileURLToPath(new URL(name, base));
    if (existsSync(path)) return path;
  }
  throw new Error('the core host (core-host.js) is not installed beside the app');
}

/** The Node options a child needs to run `entry`: tsx's loader for TypeScript sources, nothing for built files. */
export function entryExecArgv(entry: string): string[] {
  return entry.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [];
}
