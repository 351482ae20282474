// Builds better-sqlite3 for Electron's ABI into .native/electron-<abi>/, leaving node_modules' Node build alone,
// so `npm test` (Node) and `npm start` (Electron) never rebuild over each other. See README "Native SQLite".
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const electronDir = dirname(require.resolve('electron/package.json'));
const electronVersion = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
const abi = readFileSync(join(electronDir, 'abi_version'), 'utf8').trim();
const target = join(root, '.native', `electron-${abi}`, 'better_sqlite3.node');

if (existsSync(target)) process.exit(0);

const source = dirname(require.resolve('better-sqlite3/package.json'));
const work = join(root, '.native', 'work', 'better-sqlite3');
rmSync(work, { recursive: true, force: true });
mkdirSync(dirname(work), { recursive: true });
cpSync(source, work, { recursive: true, filter: (path) => !path.startsWith(join(source, 'build')) });

console.log(`Building better-sqlite3 for Electron ${electronVersion} (ABI ${abi}); this happens once.`);
const env = { ...process.env, npm_config_nodedir: '' };
const bin = (name) => join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
try {
  // Electron prebuilds exist for most platforms: fetch one if the network allows, else compile from source.
  execFileSync(bin('prebuild-install'), ['--runtime', 'electron', '--target', electronVersion], {
    cwd: work,
    env,
    stdio: 'inherit',
  });
} catch {
  execFileSync(
    bin('node-gyp'),
    [
      'rebuild',
      '--release',
      '--runtime=electron',
      `--target=${electronVersion}`,
      '--dist-url=https://electronjs.org/headers',
    ],
    { cwd: work, env, stdio: 'inherit' },
  );
}
mkdirSync(dirname(target), { recursive: true });
cpSync(join(work, 'build', 'Release', 'better_sqlite3.node'), target);
rmSync(join(root, '.native', 'work'), { recursive: true, force: true });
console.log(`Electron build of better-sqlite3 ready: ${target}`);
