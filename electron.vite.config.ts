import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

const root = import.meta.dirname;

/**
 * The dev server injects inline scripts (React refresh) and inline styles (CSS hot reload), which the
 * renderer's policy forbids. Only `electron-vite dev` gets the relaxed policy; builds keep index.html's own.
 */
function devServerCsp(): Plugin {
  return {
    name: 'rx-batch:dev-server-csp',
    apply: 'serve',
    transformIndexHtml: (html) =>
      html
        .replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
        .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
        .replace("connect-src 'self'", "connect-src 'self' ws://localhost:*"),
  };
}

export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      // Dependencies (better-sqlite3 above all: a native module) load from node_modules at run time.
      externalizeDeps: true,
      lib: {
        entry: {
          index: resolve(root, 'main/electron/app.ts'),
          // The core runs in a utility process of its own (main/host/): main forks this file beside the bundle.
          'core-host': resolve(root, 'main/host/core-host.ts'),
          // Imports write their rows in a worker thread, which loads this file beside the bundle.
          'staged-rows-worker': resolve(root, 'main/core/staging/staged-rows-worker.ts'),
        },
        formats: ['es'],
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      // A sandboxed preload is one CommonJS file that may require only `electron`: bundle everything else.
      externalizeDeps: false,
      lib: { entry: { preload: resolve(root, 'main/electron/preload.ts') }, formats: ['cjs'] },
      rolldownOptions: { output: { entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    plugins: [react(), devServerCsp()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      rolldownOptions: { input: resolve(root, 'renderer/index.html') },
    },
  },
});
