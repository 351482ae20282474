#!/usr/bin/env node
// The `rx-batch` command: runs the CLI's TypeScript through tsx, resolved from this package, not the caller's cwd.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = createRequire(import.meta.url).resolve('tsx');
const result = spawnSync(process.execPath, ['--import', tsx, join(root, 'main', 'cli.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(result.status ?? 2);
