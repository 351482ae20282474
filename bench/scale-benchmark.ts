import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { exportAuditLog } from '../main/core/audit/export-log.js';
import { applyRetention } from '../main/core/store/retention-runner.js';
import { buildStagedScaleStore } from './scale-staged-build.js';
import { verifyAuditChain, verifyAuditChainStreaming } from '../main/core/audit/verify-chain.js';
import { recoverInterrupted, recoverUnclear } from '../main/core/outbox/recovery.js';
import type { Store } from '../main/core/store/store.js';
import { openKeyedStore } from './scale-audit-key.js';
import { buildScaleStore } from '../main/core/store/testing/scale-store.js';
import { LOCAL, manualClock, removeDir, tempDataDir } from '../main/core/store/testing/store-fixtures.js';

/**
 * Issue #16's scale benchmark: a store shaped like a busy year, built through the app's own store APIs
 * (`main/core/store/testing/scale-store.ts`: realistic states, status history, cancels, rejections, about 5 audit
 * entries an order), then each call a screen, the submitter or the poller makes against it, timed (p50/p95 over
 * repeated calls), start-up (store open and recovery), the poller's round, `log verify` (whole, and incremental
 * after 1,000 new entries) and `log export`, against
 * the targets: ≤ 100 ms p95 a call, start-up ≤ 1 s.
 *
 *   npm run bench:scale                       50,000 orders (for CI)
 *   npm run bench:scale -- --orders 2000000   the size (builds for a long while)
 *   --keep DIR                                build into DIR and keep it; a later run with --keep DIR reuses it
 *   --repeat N                                calls a screen's call is timed (default 30)
 *   --staged                                  each batch imported into staging and accepted there, as the app
 *                                             receives it (the staged copies retention compacts)
 *   --retention                               after the timings: where the bytes go (per table and index), then
 *                                             retention applied (today's clock: every batch is past 90 days:
 *                                             staged copies compacted, finished orders' bodies packed), the
 *                                             freed pages given back, the bytes again and log verify
 *
 * Writes `scale` into bench/results.json (the rest of the file is kept).
 */

const argument = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const ORDERS = Number(argument('orders') ?? 50_000);
const REPEAT = Number(argument('repeat') ?? 30);
const KEEP = argument('keep');
const STAGED = process.argv.includes('--staged');
const RETENTION = process.argv.includes('--retention');
const CALL_TARGET_MS = 100;
const START_TARGET_MS = 1000;
const OUT = fileURLToPath(new URL('./results.json', import.meta.url));

interface Timing {
  name: string;
  p50: number;
  p95: number;
  rows: number;
  target: string;
  verdict: string;
}

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

function time(name: string, call: () => number, repeat = REPEAT, target = CALL_TARGET_MS): Timing {
  const samples: number[] = [];
  let rows = 0;
  for (let i = 0; i < repeat; i += 1) {
    const start = process.hrtime.bigint();
    rows = call();
    samples.push(ms(start));
  }
  samples.sort((a, b) => a - b);
  const p95 = quantile(samples, 0.95);
  return {
    name,
    p50: Number(quantile(samples, 0.5).toFixed(2)),
    p95: Number(p95.toFixed(2)),
    rows,
    target: `≤ ${target} ms p95`,
    verdict: p95 <= target ? 'met' : 'NOT MET',
  };
}

async function build(dataDir: string): Promise<{ buildMs: number }> {
  const clock = manualClock('2025-01-01T06:00:00.000Z');
  const { store } = openKeyedStore(dataDir, clock.now);
  const start = process.hrtime.bigint();
  try {
    store.environments.upsert(LOCAL);
    let reported = 0;
    const shape = {
      orders: ORDERS,
      environmentId: LOCAL.id,
      onBatch: (built: number) => {
        if (built - reported >= 50_000 || built === ORDERS) {
          reported = built;
          console.log(`  built ${built.toLocaleString('en-GB')} orders, ${(ms(start) / 1000).toFixed(0)} s`);
        }
      },
    };
    if (STAGED) {
      const csvDir = `${dataDir}/scale-csv`;
      mkdirSync(csvDir, { recursive: true });
      try {
        await buildStagedScaleStore(store, shape, clock, csvDir);
      } finally {
        removeDir(csvDir);
      }
    } else {
      buildScaleStore(store, shape, clock);
    }
    // A crash mid-send: a few orders left claimed, for start-up recovery to find.
    store.orders.claimForSending(LOCAL.id, 4);
  } finally {
    store.close();
  }
  return { buildMs: ms(start) };
}

function screens(store: Store): Timing[] {
  const env = LOCAL.id;
  const page = { environmentId: env, newestFirst: true, limit: 100 } as const;
  const list = (filter: Record<string, unknown>) => () => store.orders.list({ ...page, ...filter }).length;
  const newest = store.orders.list({ ...page, limit: 1 })[0]!;
  const middle = Math.floor(newest.id / 2);
  const lastDay = newest.createdAt.slice(0, 10);
  const weekBefore = new Date(Date.parse(lastDay) - 6 * 86_400_000).toISOString().slice(0, 10);
  const someOrder = store.orders.get(middle)!;
  return [
    time('orders: first page, newest first', list({})),
    time('orders: a page in the middle', list({ beforeId: middle })),
    time('orders: state queued', list({ states: ['queued'] })),
    time('orders: in doubt', list({ states: ['in_doubt'] })),
    time('orders: problem orders (rejected, in doubt, held)', list({ states: ['rejected', 'in_doubt', 'held'] })),
    time('orders: problem orders when none (cancel refused)', list({ states: ['cancel_refused'] })),
    time('orders: a clinic', list({ clinicCode: 'CLINIC-B' })),
    time('orders: exact clinic order id', list({ clinicOrderId: someOrder.clinicOrderId })),
    time('orders: remote status', list({ remoteStatus: 'Prescription Dispatched' })),
    time('orders: a 7-day date range', list({ createdFrom: weekBefore, createdTo: lastDay })),
    time('orders: surname prefix', list({ patientSurname: 'pat' })),
    time('order detail and timeline', () => {
      store.orders.get(middle);
      store.orders.origin(middle);
      return store.audit.forOrder(middle).length + store.statusHistory.list(middle).length;
    }),
    time('Submissions counts (countByState + openWork)', () => {
      store.orders.countByState(env);
      store.outboxQueue.openWork(env);
      return 1;
    }),
    time('batches list', () => store.batches.list(env).length),
    time('log: first page', () => store.audit.search({ limit: 100 }).length),
    time('log: one order', () => store.audit.search({ orderId: middle, limit: 100 }).length),
    time(
      'log: by clinic order id',
      () => store.audit.search({ clinicOrderId: someOrder.clinicOrderId, limit: 100 }).length,
    ),
    time('log: an action (order.created)', () => store.audit.search({ action: 'order.created', limit: 100 }).length),
    time('log: every order action (order.)', () => store.audit.search({ action: 'order.', limit: 100 }).length),
    // Free text through the trigram index (migration 017): a clinic order id, a text that is nowhere, a common one,
    // and the index's worst case: pieces found everywhere that never make the text (each candidate is read).
    time(
      'log: free text, a clinic order id',
      () => store.audit.search({ search: someOrder.clinicOrderId, limit: 100 }).length,
    ),
    time('log: free text, nowhere in the log', () => store.audit.search({ search: 'zqxjv', limit: 100 }).length),
    // Common: a clinic code, in a quarter of the entries (status texts are not free text since migration 21).
    time('log: free text, common (a clinic code)', () => store.audit.search({ search: 'clinic-b', limit: 100 }).length),
    time(
      'log: free text, common pieces never together',
      () => store.audit.search({ search: 'clinic-a clinic-b', limit: 100 }).length,
      Math.min(REPEAT, 5),
    ),
    time(
      'poller round: every watched order',
      () => {
        let count = 0;
        for (let afterId = 0; ;) {
          const rows = store.orders.polled(env, afterId, 200);
          count += rows.length;
          if (rows.length < 200) return count;
          afterId = rows[rows.length - 1]!.id;
        }
      },
      Math.min(REPEAT, 5),
      1000,
    ),
  ];
}

interface StoreBytes {
  fileBytes: number;
  byName: Map<string, number>;
}

/** The file's bytes (database and WAL) and, from SQLite's dbstat, each table's and index's. */
function storeBytes(store: Store): StoreBytes {
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const rows = store.db
    .prepare<[], { name: string; bytes: number }>('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name')
    .all();
  const file = store.file;
  const fileBytes = statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
  return { fileBytes, byName: new Map(rows.map((row) => [row.name, row.bytes])) };
}

/**
 * Retention as the app applies it (main/core/store/retention-runner.ts), on the store as built, with today's
 * clock: every batch of the build is older than the default 90 days. Times each step (a short transaction: what
 * the core's loop waits at most), then the bytes again and a full `log verify`.
 */
async function measureRetention(dataDir: string, orders: number) {
  const { store, key } = openKeyedStore(dataDir);
  try {
    const before = storeBytes(store);
    const freeBefore = store.retention.vacuumStep(0);
    // Each step's own time (a short transaction: what the core's loop waits at most), compaction and vacuum apart.
    const steps = { compact: [] as number[], pack: [] as number[], vacuum: [] as number[] };
    let stepAt = process.hrtime.bigint();
    const startAt = stepAt;
    let pagesSoFar = 0;
    let packedSoFar = 0;
    const result = await applyRetention(store, {
      onStep: (progress) => {
        const kind =
          progress.pagesReturned > pagesSoFar ? 'vacuum' : progress.bodiesPacked > packedSoFar ? 'pack' : 'compact';
        steps[kind].push(ms(stepAt));
        pagesSoFar = progress.pagesReturned;
        packedSoFar = progress.bodiesPacked;
      },
      pause: () =>
        new Promise<void>((resolve) =>
          setImmediate(() => {
            stepAt = process.hrtime.bigint();
            resolve();
          }),
        ),
    });
    const totalMs = ms(startAt);
    const after = storeBytes(store);
    const verifyAt = process.hrtime.bigint();
    const verified = verifyAuditChain(store, { keys: [key] });
    const verifyMs = ms(verifyAt);
    const stepTimes = (samples: number[]) => {
      samples.sort((a, b) => a - b);
      return samples.length === 0
        ? { count: 0 }
        : {
            count: samples.length,
            p50Ms: Number(quantile(samples, 0.5).toFixed(2)),
            p95Ms: Number(quantile(samples, 0.95).toFixed(2)),
            maxMs: Number(samples[samples.length - 1]!.toFixed(2)),
          };
    };
    const names = [...before.byName.keys()].sort((x, y) => (before.byName.get(y) ?? 0) - (before.byName.get(x) ?? 0));
    const perOrder = (bytes: number | undefined) => Math.round((bytes ?? 0) / orders);
    const breakdown = names
      .filter((name) => (before.byName.get(name) ?? 0) / orders >= 1 || (after.byName.get(name) ?? 0) / orders >= 1)
      .map((name) => ({ name, before: perOrder(before.byName.get(name)), after: perOrder(after.byName.get(name)) }));
    breakdown.push({
      name: 'file (database + WAL)',
      before: perOrder(before.fileBytes),
      after: perOrder(after.fileBytes),
    });
    return {
      autoVacuum: freeBefore.autoVacuum,
      compacted: result.compacted,
      bodiesPacked: result.bodiesPacked,
      deleted: result.deleted,
      batchesFinished: result.batchesFinished,
      steps: result.steps,
      pagesReturned: result.pagesReturned,
      freePagesLeft: result.freePages,
      ms: Math.round(totalMs),
      compactSteps: stepTimes(steps.compact),
      packSteps: stepTimes(steps.pack),
      vacuumSteps: stepTimes(steps.vacuum),
      bytesPerOrderBefore: perOrder(before.fileBytes),
      bytesPerOrderAfter: perOrder(after.fileBytes),
      verify: { ms: Math.round(verifyMs), ok: verified.ok },
      breakdown,
    };
  } finally {
    store.close();
  }
}

async function main(): Promise<void> {
  const dataDir = KEEP ?? tempDataDir('rx-scale-');
  const reuse = KEEP !== undefined && existsSync(`${KEEP}/rx-batch.sqlite`);
  console.log(`scale benchmark: ${ORDERS.toLocaleString('en-GB')} orders in ${dataDir}${reuse ? ' (reused)' : ''}`);
  try {
    const built = reuse ? { buildMs: Number.NaN } : await build(dataDir);
    const fileBytes =
      statSync(`${dataDir}/rx-batch.sqlite`).size +
      (existsSync(`${dataDir}/rx-batch.sqlite-wal`) ? statSync(`${dataDir}/rx-batch.sqlite-wal`).size : 0);

    // Start-up: open (migrations are current), recovery of interrupted and unclear sends, first counts.
    const startAt = process.hrtime.bigint();
    const { store, key } = openKeyedStore(dataDir);
    const recovered = recoverInterrupted(store, LOCAL.id, new Date()) + recoverUnclear(store, LOCAL.id, new Date());
    store.orders.countByState(LOCAL.id);
    const startMs = ms(startAt);
    const entries = store.audit.lastSeq();
    const orders = Object.values(store.orders.countByState()).reduce((a, b) => a + b, 0);

    // The free-text index is filled in the background by the app (audit/search-indexer.ts); a store built here,
    // or upgraded to migration 17, starts without it. A search before it is filled reads the log a window a call
    // (audit-repo.ts SCAN_WINDOW): this is one such call, what the Log screen waits for before it shows matches.
    const unindexed = time(
      'log: free text, nowhere in the log, index not filled yet',
      () => store.audit.search({ search: 'zqxjv', limit: 100 }).length,
      Math.min(REPEAT, 5),
    );
    const backlog = store.audit.searchBacklog();
    const indexAt = process.hrtime.bigint();
    while (store.audit.indexForSearch(500) > 0);
    const indexMs = ms(indexAt);
    // Then, as the indexer does once caught up, its segments merged a bounded step at a time.
    const mergeAt = process.hrtime.bigint();
    let mergeSteps = 0;
    while (store.audit.mergeSearchIndex(32)) mergeSteps += 1;
    const mergeMs = ms(mergeAt);

    const timings = [unindexed, ...screens(store)];
    timings.push({
      name: `start-up: open + recovery (${recovered} recovered)`,
      p50: Number(startMs.toFixed(1)),
      p95: Number(startMs.toFixed(1)),
      rows: recovered,
      target: `≤ ${START_TARGET_MS} ms`,
      verdict: startMs <= START_TARGET_MS ? 'met' : 'NOT MET',
    });

    const verifyAt = process.hrtime.bigint();
    const report = verifyAuditChain(store, { keys: [key] });
    const verifyMs = ms(verifyAt);
    // `log verify` on the screen: only what was appended since the prefix found whole (here: 1,000 new entries).
    const prefix = store.audit.newest();
    const appendAt = process.hrtime.bigint();
    for (let i = 0; i < 1000; i += 1) {
      store.audit.append({ actor: 'system', action: 'bench.scale', details: {} });
    }
    const appendMs = ms(appendAt);
    const incrementalAt = process.hrtime.bigint();
    const incremental = verifyAuditChain(store, { keys: [key], verified: prefix });
    const incrementalMs = ms(incrementalAt);
    // The screen's whole-log check: page by page with progress (log.verify { full: true }).
    let streamPages = 0;
    const streamingAt = process.hrtime.bigint();
    const streamed = await verifyAuditChainStreaming(store, { keys: [key], onProgress: () => (streamPages += 1) });
    const streamingMs = ms(streamingAt);
    const searchIndexBytes =
      (
        store.db.prepare("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'audit_search%'").get() as {
          bytes: number | null;
        }
      ).bytes ?? 0;

    let exportedBytes = 0;
    let peakRss = process.memoryUsage().rss;
    const rssBefore = peakRss;
    const sink = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        exportedBytes += chunk.length;
        done();
      },
    });
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
    const exportAt = process.hrtime.bigint();
    const exported = await exportAuditLog(store, sink, { format: 'csv' });
    const exportMs = ms(exportAt);
    clearInterval(sampler);
    store.close();
    const retention = RETENTION ? await measureRetention(dataDir, orders) : undefined;

    const table = timings.map((t) => ({
      call: t.name,
      'p50 ms': t.p50,
      'p95 ms': t.p95,
      rows: t.rows,
      target: t.target,
      verdict: t.verdict,
    }));
    console.table(table);
    const summary = {
      orders,
      auditEntries: entries,
      buildSeconds: Number((built.buildMs / 1000).toFixed(1)),
      fileMB: Number((fileBytes / 1e6).toFixed(1)),
      bytesPerOrder: Math.round(fileBytes / orders),
      verify: { ms: Math.round(verifyMs), ok: report.ok, entries: report.ok ? report.count : null },
      verifyIncremental: { ms: Number(incrementalMs.toFixed(1)), ok: incremental.ok, newEntries: 1000 },
      appendMsPerEntry: Number((appendMs / 1000).toFixed(3)),
      searchIndexing: {
        entries: backlog,
        ms: Math.round(indexMs),
        usPerEntry: Number(((indexMs * 1000) / Math.max(backlog, 1)).toFixed(1)),
        mergeSteps,
        mergeMs: Math.round(mergeMs),
      },
      searchIndexMB: Number((searchIndexBytes / 1e6).toFixed(1)),
      verifyStreaming: { ms: Math.round(streamingMs), ok: streamed.ok, pages: streamPages },
      export: {
        ms: Math.round(exportMs),
        entries: exported.count,
        mb: Number((exportedBytes / 1e6).toFixed(1)),
        rssGrowthMB: Number(((peakRss - rssBefore) / 1e6).toFixed(1)),
      },
    };
    if (retention) {
      Object.assign(summary, { retention });
      console.log('bytes an order by table and index, before and after retention:');
      console.table(retention.breakdown);
    }
    console.log(summary);

    let results: Record<string, unknown> = {};
    if (existsSync(OUT)) {
      try {
        results = JSON.parse(readFileSync(OUT, 'utf8')) as Record<string, unknown>;
      } catch {
        results = {};
      }
    }
    results.scale = { ranAt: new Date().toISOString(), node: process.version, ...summary, calls: timings };
    writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    if (KEEP === undefined) removeDir(dataDir);
  }
}

await main();
