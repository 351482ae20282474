// `npm start`: the desktop app when Electron's binary is present, otherwise the same UI in browser mode.
import { spawn } from 'node:child_process';
import { electronBinary } from './electron-binary.mjs';

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let code;
if (electronBinary()) {
  code = await run(npm, ['exec', '--', 'electron-vite', 'preview']);
} else {
  console.log(
    'Electron binary not installed (download skipped or not possible here); starting the same UI in browser mode: npm run start:browser',
  );
  code = await run(npm, ['run', 'start:browser', '--', ...process.argv.slice(2)]);
}
process.exit(code);
