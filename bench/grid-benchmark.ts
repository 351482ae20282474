import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEMPLATE_COLUMNS } from '../main/core/model/field-catalogue.js';
import { REPO_ROOT, startBrowserMode } from '../test/e2e/support/browser-mode.js';
import { launchChromium } from '../test/support/browser.js';
import type { Page } from '@playwright/test';

/**
 * The preview grid at 100,000 rows, in Chromium against browser mode (the built renderer, the real core):
 * - `interactiveMs`: from the moment the import's answer reaches the page (the `rxbatch:import-finished` mark the
 *   Import screen sets) to the grid showing its first rows and answering a key press (ArrowDown moves the focus
 *   to another cell). Target ≤ 1,000 ms.
 * - `longestFrameMs`: the longest gap between animation frames while the grid is scrolled through the whole batch
 *   (a jump a frame over the full height, then a steady read-speed scroll), with the longest task Chromium
 *   reports as `longestTaskMs`. Target ≤ 50 ms.
 * The batch is a template CSV generated in a temp dir (50,000 orders of two items; every 50th order has a bad
 * postcode, so problem cells are rendered too) and imported through the Import screen by its path.
 * Run: `npx tsx bench/grid-benchmark.ts` (builds the renderer first when out/renderer is missing).
 * `--renderer DIR` serves another build of the renderer (a copy of out/renderer) to the page, so two builds can be
 * compared run by run on a shared machine; `--trace FILE` writes a Chromium performance trace of the scroll (open
 * it in DevTools' Performance panel to see what the long tasks spent their time on); `--cpu-slowdown N` runs the
 * scroll on a CPU slowed N times (Chromium's throttling), which makes a change's effect stand out above the noise
 * of a shared machine (the targets are for an unthrottled run).
 */

export interface GridBenchmarkResult {
  rows: number;
  orders: number;
  importMs: number;
  interactiveMs: number;
  longestFrameMs: number;
  /** The three longest gaps between frames, longest first (one slow frame shows apart from several). */
  longestFramesMs: number[];
  /** 95th percentile of the gaps between frames (a single slow frame on a busy machine shows apart from a trend). */
  p95FrameMs: number;
  longestTaskMs: number;
  frames: number;
  targets: { interactiveMs: number; longestFrameMs: number };
}

const TARGETS = { interactiveMs: 1_000, longestFrameMs: 50 };

function row(order: number, item: number): string {
  const values: Record<string, string> = {
    clinicCode: 'BENCH-CLINIC',
    clinicOrderId: `GRID-${String(order).padStart(6, '0')}`,
    title: 'Ms',
    firstName: 'Alex',
    surname: `Example${order}`,
    dateOfBirth: '1980-01-15',
    gender: 'Female',
    telephone: '07700900123',
    homeAddress1: `${order} High Street`,
    homeCity: 'Leeds',
    homePostCode: order % 50 === 0 ? 'NOT A POSTCODE' : 'LS1 4AP',
    homeCountryCode: 'GBR',
    paymentType: 'Account',
    courierCode: 'RMT24',
    currencyCode: 'GBP',
    repeatsAllowed: '0',
    prescriberRegistrationNumber: '7123456',
    prescriberName: 'Dr Jane Smith',
    clinicName: 'Bench Clinic',
    clinicAddress1: '10 Market Street',
    clinicPostcode: 'YO1 7HH',
    clinicCountryCode: 'GBR',
    dmdCode: item === 0 ? '42109611000001109' : '322236009',
    medication: item === 0 ? 'Paracetamol 500mg tablets' : 'Paracetamol 500mg capsules',
    dosageInstructions: 'Two tablets up to four times a day',
    quantity: String(16 + (order % 32)),
    pack: '1',
  };
  return TEMPLATE_COLUMNS.map((column) => values[column] ?? '').join(',');
}

async function writeBatch(path: string, orders: number): Promise<void> {
  const lines = [TEMPLATE_COLUMNS.join(',')];
  for (let order = 1; order <= orders; order += 1) lines.push(row(order, 0), row(order, 1));
  await writeFile(path, `${lines.join('\r\n')}\r\n`);
}

function ensureBuilt(): void {
  if (existsSync(join(REPO_ROOT, 'out', 'renderer', 'index.html'))) return;
  const build = spawnSync(
    process.execPath,
    [join(REPO_ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
    {
      cwd: REPO_ROOT,
      stdio: 'inherit',
    },
  );
  if (build.status !== 0) throw new Error('the renderer build failed');
}

/*
 * The in-page measurements are plain JavaScript text: a function handed to page.evaluate would carry the helper
 * calls tsx adds to compiled functions (`__name`), which do not exist in the page.
 */

/** In the page: from the import mark to rows on screen that answer ArrowDown. */
const MEASURE_INTERACTIVE = `new Promise((resolve, reject) => {
  const started = performance.getEntriesByName('rxbatch:import-finished')[0]?.startTime;
  if (started === undefined) return reject(new Error('no import mark'));
  const deadline = performance.now() + 60000;
  const waitForRows = () => {
    const cell = [...document.querySelectorAll('[role="grid"] [role="gridcell"][id]')].find(
      (candidate) => candidate.closest('.grid-loading') === null,
    );
    if (!cell) {
      if (performance.now() > deadline) return reject(new Error('the grid never showed rows'));
      return requestAnimationFrame(waitForRows);
    }
    cell.focus();
    const from = document.activeElement;
    cell.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true, cancelable: true }));
    const waitForMove = () => {
      const now = document.activeElement;
      if (now && now !== from && now.getAttribute('role') === 'gridcell') return resolve(performance.now() - started);
      if (performance.now() > deadline) return reject(new Error('the grid did not answer ArrowDown'));
      requestAnimationFrame(waitForMove);
    };
    waitForMove();
  };
  waitForRows();
})`;

/**
 * In the page: scroll the grid through the whole batch (one jump a frame over the full height, then back to the
 * middle and a steady read-speed scroll) and record the gaps between frames and Chromium's long tasks.
 */
const MEASURE_SCROLLING = `new Promise((resolve, reject) => {
  const grid = document.querySelector('[role="grid"]');
  if (!grid) return reject(new Error('no grid'));
  let longestTaskMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longestTaskMs = Math.max(longestTaskMs, entry.duration);
  });
  try { observer.observe({ type: 'longtask', buffered: false }); } catch {}
  const jumpFrames = 180;
  const readFrames = 240;
  let frame = 0;
  let last = 0;
  let longestFrameMs = 0;
  const gaps = [];
  const step = (time) => {
    if (last) {
      longestFrameMs = Math.max(longestFrameMs, time - last);
      gaps.push(time - last);
    }
    last = time;
    const max = grid.scrollHeight - grid.clientHeight;
    if (frame < jumpFrames) grid.scrollTop = (max * (frame + 1)) / jumpFrames;
    else if (frame === jumpFrames) grid.scrollTop = max / 2;
    else grid.scrollTop += 120;
    frame += 1;
    if (frame < jumpFrames + readFrames) requestAnimationFrame(step);
    else {
      observer.disconnect();
      gaps.sort((a, b) => a - b);
      const p95FrameMs = gaps[Math.floor(gaps.length * 0.95)] ?? 0;
      const longestFramesMs = gaps.slice(-3).reverse();
      resolve({ longestFrameMs, longestFramesMs, p95FrameMs, longestTaskMs, frames: frame });
    }
  };
  requestAnimationFrame(step);
})`;

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Serves the renderer's script and style sheets from another build in `dir`: each asset the app's page asks for is
 * answered with the build's asset of the same name before its hash (`index-*.js`). The page itself still comes from
 * the app, so it keeps its origin, headers and local-network rights (a page answered here may not reach the app).
 */
async function serveRendererFrom(page: Page, origin: string, dir: string): Promise<void> {
  const assets = await readdir(join(dir, 'assets'));
  // Vite names an asset `<name>-<8-character hash>.<ext>`, and the hash may hold a '-' itself.
  const stem = (name: string) => name.replace(/-[\w-]{8}(\.[a-z]+)$/, '$1');
  await page.route(
    (url) => url.origin === origin && url.pathname.startsWith('/assets/'),
    async (route) => {
      const wanted = stem(new URL(route.request().url()).pathname.slice('/assets/'.length));
      const file = assets.find((name) => stem(name) === wanted);
      if (!file) return route.fulfill({ status: 404, body: `no ${wanted} in ${dir}` });
      const ext = extname(file);
      await route.fulfill({
        status: 200,
        contentType: CONTENT_TYPES[ext] ?? 'application/octet-stream',
        body: await readFile(join(dir, 'assets', file)),
      });
    },
  );
}

export async function runGridBenchmark(
  options: { orders?: number; rendererDir?: string; tracePath?: string; cpuSlowdown?: number } = {},
): Promise<GridBenchmarkResult> {
  const orders = options.orders ?? 50_000;
  ensureBuilt();
  const app = await startBrowserMode();
  // Over the bridge a path is read only inside the host's --import-dir folders (issue #12, finding 2).
  const file = join(app.importDir, 'grid-benchmark.csv');
  await writeBatch(file, orders);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    if (options.rendererDir) await serveRendererFrom(page, app.origin, options.rendererDir);
    await page.goto(app.url);
    await page
      .getByRole('navigation', { name: 'Workspace' })
      .getByRole('link', { name: 'Import', exact: true })
      .click();
    await page.getByText('Import a file by its path on this computer').click();
    await page.getByLabel('File path').fill(file);
    const importStarted = Date.now();
    await page.getByRole('button', { name: 'Import from path' }).click();
    await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, 'rxbatch:import-finished', {
      timeout: 600_000,
      polling: 100,
    });
    const importMs = Date.now() - importStarted;
    const interactiveMs = await page.evaluate<number>(MEASURE_INTERACTIVE);
    const status = await page.getByRole('status', { name: 'Batch counts' }).textContent();
    if (!status?.includes(orders.toLocaleString('en-GB'))) throw new Error(`the preview shows ${status}`);
    // A slowed CPU (Chromium's throttling) makes the scroll's costs stand out above a shared machine's noise.
    const cdp = options.cpuSlowdown ? await page.context().newCDPSession(page) : undefined;
    await cdp?.send('Emulation.setCPUThrottlingRate', { rate: options.cpuSlowdown ?? 1 });
    if (options.tracePath) {
      await browser.startTracing(page, {
        path: options.tracePath,
        categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing'],
      });
    }
    const scrolling = await page.evaluate<{
      longestFrameMs: number;
      longestFramesMs: number[];
      p95FrameMs: number;
      longestTaskMs: number;
      frames: number;
    }>(MEASURE_SCROLLING);
    if (options.tracePath) await browser.stopTracing();
    await cdp?.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    return {
      rows: orders * 2,
      orders,
      importMs,
      interactiveMs: Math.round(interactiveMs),
      longestFrameMs: Math.round(scrolling.longestFrameMs * 10) / 10,
      longestFramesMs: scrolling.longestFramesMs.map((ms) => Math.round(ms * 10) / 10),
      p95FrameMs: Math.round(scrolling.p95FrameMs * 10) / 10,
      longestTaskMs: Math.round(scrolling.longestTaskMs),
      frames: scrolling.frames,
      targets: TARGETS,
    };
  } finally {
    await browser.close();
    await app.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const rendererDir = flag('--renderer');
  const tracePath = flag('--trace');
  const cpuSlowdown = Number(flag('--cpu-slowdown') ?? 1);
  if (!(cpuSlowdown >= 1)) throw new Error('--cpu-slowdown takes a factor of 1 or more, e.g. 4');
  const result = await runGridBenchmark({
    ...(rendererDir ? { rendererDir: resolve(rendererDir) } : {}),
    ...(tracePath ? { tracePath: resolve(tracePath) } : {}),
    ...(cpuSlowdown > 1 ? { cpuSlowdown } : {}),
  });
  console.table({
    'import (through the UI, for context)': { value: `${result.importMs} ms`, target: '-' },
    'import finished → grid interactive': {
      value: `${result.interactiveMs} ms`,
      target: `≤ ${result.targets.interactiveMs} ms`,
    },
    'longest frame while scrolling': {
      value: `${result.longestFrameMs} ms`,
      target: `≤ ${result.targets.longestFrameMs} ms`,
    },
    'three longest frames while scrolling': { value: `${result.longestFramesMs.join(', ')} ms`, target: '-' },
    '95th percentile frame while scrolling': { value: `${result.p95FrameMs} ms`, target: '-' },
    'longest task while scrolling (≥ 50 ms only)': { value: `${result.longestTaskMs} ms`, target: '-' },
  });
  console.log(JSON.stringify(result));
}
