// Electron 45 no longer downloads its binary on install; fetch it here so `npm start` opens the desktop app.
// Skipped with ELECTRON_SKIP_BINARY_DOWNLOAD=1 (CI, machines without internet); a failed download is not an
// error: `npm start` then opens the same UI in browser mode.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { electronBinary } from './electron-binary.mjs';

if (!process.env.ELECTRON_SKIP_BINARY_DOWNLOAD && !electronBinary()) {
  const installer = createRequire(import.meta.url).resolve('electron/install.js');
  const result = spawnSync(process.execPath, [installer], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  console.log(
    result.status === 0
      ? 'Electron binary installed.'
      : 'Electron binary could not be downloaded; `npm start` will use browser mode (npm run start:browser).',
  );
}
