// Says which Node runs the project's scripts, and stops when it is not Node 24, the LTS that the pinned Electron
// bundles. `npm test` runs it first (pretest) and `.ci/run` before the tests. Where the npm registry has a Node
// package for the platform (Linux x64 and arm64, Windows x64), `npm install` puts it in node_modules/.bin, which npm
// scripts find before the machine's `node`; elsewhere the machine's Node must be 24. See README "Toolchain choices".
import { createRequire } from 'node:module';
import { resolve, sep } from 'node:path';
import { realpathSync } from 'node:fs';

const REQUIRED_MAJOR = 24;
const root = resolve(import.meta.dirname, '..');
const major = Number(process.versions.node.split('.')[0]);
const own = realpathSync(process.execPath).startsWith(resolve(root, 'node_modules') + sep);

let pinned = null;
try {
  const platformPackage = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  pinned = createRequire(import.meta.url)(`${platformPackage}/package.json`).version;
} catch {
  // No Node package for this platform on the registry (macOS): the machine's Node is used.
}

console.log(
  `Node ${process.version} (${own ? "the project's own, from node_modules" : "the machine's"}: ${process.execPath})`,
);
if (major !== REQUIRED_MAJOR) {
  console.error(
    `Rx Batch runs and is tested on Node ${REQUIRED_MAJOR}, not ${process.version}. ` +
      (pinned
        ? `The project's own Node ${pinned} is in node_modules/.bin, where npm scripts find it: run this through npm (npm test, npm run …).`
        : `There is no Node ${REQUIRED_MAJOR} package for ${process.platform}-${process.arch} on the npm registry: install Node ${REQUIRED_MAJOR} LTS.`),
  );
  process.exit(1);
}
