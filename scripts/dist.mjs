// `npm run dist`: builds the app and its installers for this platform (electron-builder.yml), with no manual step.
//   node scripts/dist.mjs               release installers into dist/
//   node scripts/dist.mjs --test-build  the same with the inspect fuse on (electron-builder.test.yml), for e2e
//   node scripts/dist.mjs -- --linux deb  anything after `--` goes to electron-builder
// Nothing in node_modules is rebuilt: better-sqlite3's N-API build is the same for Node and Electron.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const separator = args.indexOf('--');
const own = separator === -1 ? args : args.slice(0, separator);
const passThrough = separator === -1 ? [] : args.slice(separator + 1);
const unknown = own.filter((arg) => arg !== '--test-build');
if (unknown.length > 0) {
  console.error(`Unknown option ${unknown[0]}. Usage: node scripts/dist.mjs [--test-build] [-- electron-builder args]`);
  process.exit(2);
}
const config = own.includes('--test-build') ? 'electron-builder.test.yml' : 'electron-builder.yml';

const bin = (name) => join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
function run(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  return result.status ?? 1;
}

let code = run(bin('electron-vite'), ['build']);
if (code === 0) code = run(bin('electron-builder'), ['--config', config, '--publish', 'never', ...passThrough]);
process.exit(code);
