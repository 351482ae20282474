import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Papa from 'papaparse';
import { DEFAULT_CODE_LISTS } from '../shared/environment.js';
import type { CreateWithClinicV1Input } from '../shared/orders.js';
import { verhoeffCheckDigit } from '../shared/snomed.js';
import { importFile } from '../main/core/importing/import-file.js';
import { writeRde011 } from '../main/core/importing/rde-writer.js';
import type { StagingService } from '../main/core/staging/staging-service.js';
import type { Store } from '../main/core/store/store.js';
import { writeTemplateCsv } from '../main/core/importing/template-csv.js';
import { inChild } from './in-child.js';

/**
 * End-to-end import cost (parse, map, validate, and stage: every order written to SQLite and committed as a batch,
 * as the app and the CLI do it) against its floor (issue #14): a raw parse of the same file (papaparse for the CSV,
 * a segment split for the HL7 batch) plus a bare insert of the same stored rows. `parseMs` is the same import
 * without staging (orders to a counting `onOrder`), so the staging share shows. Each measurement runs in a child
 * process of its own, so the peak RSS reported is the import's and not the generator's; the measurements of a leg
 * are interleaved round by round (raw, parse, import, insert, then again), and each figure is the median of the
 * rounds, so a load that comes and goes on a shared machine weighs on the import and its floor alike.
 * Run: `npx tsx bench/import-benchmark.ts [rounds]`.
 */

export interface BenchmarkLeg {
  records: number;
  orders: number;
  megabytes: number;
  /** Each time below is the median over the rounds. */
  rawMs: number;
  /** Parse, map, validate and stage (the end-to-end number). */
  importMs: number;
  /** The same without staging. */
  parseMs: number;
  /**
   * The floor's second part: a bare better-sqlite3 insert of the rows this import stores (the same texts, read back
   * from a staged copy), with the staging worker's pragmas and write pattern: a transaction per 500 rows, a
   * checkpoint per 16 MB and at the end.
   */
  rawInsertMs: number;
  /** importMs ÷ rawMs. */
  ratio: number;
  /** The floor of issue #14: rawMs + rawInsertMs. */
  floorMs: number;
  /** The median over the rounds of each round's import ÷ (raw + raw insert); target ≤ 1.2. */
  floorRatio: number;
  /** Process CPU time (every thread) of the same runs: the import's, and the raw parse's plus the raw insert's. */
  importCpuMs: number;
  floorCpuMs: number;
  rounds: number;
  invalid: number;
}

export interface ImportBenchmarkResult {
  /** Each leg's `peakRssMb` is the peak RSS of the process that ran the import (and nothing else). */
  csv: BenchmarkLeg & { peakRssMb: number };
  hl7: BenchmarkLeg & { peakRssMb: number };
  /** The higher of the two. */
  peakRssMb: number;
  /** os.loadavg() (1, 5 and 15 minutes) when the benchmark started and when it ended. */
  loadAverage: { start: number[]; end: number[] };
}

export interface BenchmarkOptions {
  orders?: number;
  itemsPerOrder?: number;
  messages?: number;
  /** Timed runs per measurement; the fastest counts (the first run also warms the JIT). */
  runs?: number;
  /** Rounds of interleaved measurements per leg; each figure is the median over them. */
  rounds?: number;
}

const MB = 1024 * 1024;

/** A valid long-format dm+d code (partition 10, namespace 1000001) for a running number. */
export function dmdCodeFor(n: number): string {
  const body = `${n + 100_000}1000001` + '10';
  return `${body}${verhoeffCheckDigit(body)}`;
}

export function benchmarkOrder(n: number, items: number): CreateWithClinicV1Input {
  const address = { address1: `${n} Test Street`, city: 'Leeds', postCode: 'LS1 4AP', countryCode: 'GBR' };
  return {
    customer: {
      title: 'Ms',
      firstName: 'Alex',
      surname: `Example${n}`,
      dateOfBirth: '1980-01-15',
      gender: 'Female',
      telephone: '07700900123',
      email: `patient${n}@example.test`,
    },
    homeAddress: address,
    deliveryAddress: address,
    prescription: {
      clinicOrderId: `ORD-${n}`,
      paymentType: 'Account',
      courierCode: 'RMT24',
      currencyCode: 'GBP',
      repeatsAllowed: 1,
    },
    prescribedItems: Array.from({ length: items }, (_, i) => ({
      dmdCode: dmdCodeFor(n * items + i),
      medication: 'Paracetamol 500mg tablets',
      dosageInstructions: 'Two tablets up to four times a day',
      quantity: 32,
      pack: 1,
    })),
    prescribingDoctor: { registrationNumber: '7123456', prescriberName: 'Dr Jane Smith' },
    clinicInformation: {
      clinicCode: 'CLINIC-B',
      name: 'Bench Clinic',
      address1: '2 Clinic Road',
      postcode: 'LS2 9JT',
      countryCode: 'GBR',
    },
  };
}

export async function writeInChunks(
  path: string,
  count: number,
  piece: (from: number, to: number) => string,
): Promise<void> {
  const handle = await open(path, 'w');
  try {
    for (let from = 0; from < count; from += 1000) await handle.write(piece(from, Math.min(count, from + 1000)));
  } finally {
    await handle.close();
  }
}

/** Wall and process CPU milliseconds of one run. */
interface Timing {
  ms: number;
  cpuMs: number;
}

const cpuNow = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Starts both clocks; the function returned reads them. */
function startTiming(): () => Timing {
  const start = performance.now();
  const cpu = cpuNow();
  return () => ({ ms: performance.now() - start, cpuMs: cpuNow() - cpu });
}

/** The fastest of `runs`; an action that returns a Timing reports its own (set-up left out). */
async function timed(runs: number, action: () => Promise<Timing | void>): Promise<Timing> {
  let best: Timing = { ms: Number.POSITIVE_INFINITY, cpuMs: Number.NaN };
  for (let i = 0; i < runs; i += 1) {
    const stop = startTiming();
    const own = (await action()) ?? stop();
    if (own.ms < best.ms) best = own;
  }
  return best;
}

function rawPapaparse(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let rows = 0;
    Papa.parse<string[]>(createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 }), {
      chunk: (results) => {
        rows += results.data.length;
      },
      complete: () => resolve(rows),
      error: reject,
    });
  });
}

async function rawSegmentSplit(path: string): Promise<number> {
  let pending = '';
  let messages = 0;
  for await (const chunk of createReadStream(path, {
    encoding: 'utf8',
    highWaterMark: 256 * 1024,
  }) as AsyncIterable<string>) {
    const lines = (pending + chunk).split(/\r\n|\r|\n/);
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('MSH')) messages += 1;
  }
  return messages;
}

type Task =
  'csv-raw' | 'csv-parse' | 'csv-import' | 'csv-insert' | 'hl7-raw' | 'hl7-parse' | 'hl7-import' | 'hl7-insert';
interface TaskResult {
  ms: number;
  cpuMs: number;
  records: number;
  orders: number;
  invalid: number;
  peakRssMb: number;
}

const TODAY = new Date('2025-06-01T00:00:00Z');

const HL7_PROFILE = {
  name: 'bench',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

type StagedOutcome = Extract<Awaited<ReturnType<StagingService['importFile']>>, { status: 'staged' }>;

/**
 * Imports `path` as the app does, through staging into a fresh store (its own temp data directory, the preset
 * environment, the HL7 profile for HL7), and hands the store, the outcome and the import's milliseconds (from its
 * start to its commit; opening and removing the store are left out) to `read` before the store is removed.
 */
async function importIntoFreshStore<T>(
  path: string,
  hl7: boolean,
  read: (store: Store, outcome: StagedOutcome, timing: Timing) => T,
  onProgress?: () => void,
): Promise<T> {
  const { openStore } = await import('../main/core/store/store.js');
  const { StagingService } = await import('../main/core/staging/staging-service.js');
  const { presetEnvironments } = await import('../main/core/environments/presets.js');
  const dir = await mkdtemp(join(tmpdir(), 'rx-stage-bench-'));
  const store = openStore({ dataDir: dir, now: () => TODAY });
  try {
    const environment = presetEnvironments()[0]!;
    store.environments.upsert(environment);
    if (hl7) store.mappingProfiles.save(HL7_PROFILE);
    const staging = new StagingService({
      store,
      codeListsFor: () => DEFAULT_CODE_LISTS,
      now: () => TODAY,
      ...(onProgress ? { onProgress } : {}),
    });
    const stop = startTiming();
    const outcome = await staging.importFile({
      environmentId: environment.id,
      path,
      ...(hl7 ? { profile: HL7_PROFILE.name } : {}),
    });
    const timing = stop();
    if (outcome.status !== 'staged') throw new Error(`the benchmark file was not staged: ${outcome.status}`);
    return read(store, outcome, timing);
  } finally {
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The import as the app runs it, committed as one batch, and its time. */
function stageForBenchmark(
  path: string,
  hl7: boolean,
  onProgress: () => void,
): Promise<{ timing: Timing; records: number; orders: number; invalid: number }> {
  return importIntoFreshStore(
    path,
    hl7,
    (_store, outcome, timing) => ({
      timing,
      records: outcome.summary.rowsRead,
      orders: outcome.orders,
      invalid: outcome.invalid,
    }),
    onProgress,
  );
}

/** The rows an import of `path` stores, as the staging worker receives them (ROW_WIDTH values each). */
function stagedRowsOf(path: string, hl7: boolean): Promise<{ values: unknown[]; count: number }> {
  return importIntoFreshStore(path, hl7, (store, outcome) => {
    const rows = store.db
      .prepare(
        `SELECT position, clinic_code, clinic_order_id, order_control, body, valid, problems, provenance, source
         FROM staged_orders WHERE batch_id = ? ORDER BY position`,
      )
      .raw()
      .all(outcome.batchId) as unknown[][];
    return { values: rows.flat(), count: rows.length };
  });
}

/**
 * The informative floor of staging: `rows` inserted into a fresh store's `staged_orders` by a bare prepared
 * statement on a connection with the import worker's pragmas (openImportConnection), a transaction per 500 rows,
 * a PASSIVE checkpoint per CHECKPOINT_CHARS and one at the end, as the worker does. No parsing, no serialising, no
 * posting. Timed from the first insert to the last checkpoint.
 */
async function rawInsert(rows: readonly unknown[]): Promise<Timing> {
  const { openStore } = await import('../main/core/store/store.js');
  const { CHECKPOINT_CHARS, ROW_WIDTH, openImportConnection } =
    await import('../main/core/store/staged-batch-writer.js');
  const { presetEnvironments } = await import('../main/core/environments/presets.js');
  const dir = await mkdtemp(join(tmpdir(), 'rx-raw-insert-'));
  const store = openStore({ dataDir: dir, now: () => TODAY });
  try {
    const environment = presetEnvironments()[0]!;
    store.environments.upsert(environment);
    const batchId = store.batches.beginImport({ environmentId: environment.id, sourceFileName: 'raw', route: 'v1' });
    const db = openImportConnection(store.db.name);
    try {
      const insert = db.prepare(
        `INSERT INTO staged_orders (batch_id, position, clinic_code, clinic_order_id, order_control, body, valid,
           problems, provenance, source, state)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'staged')`,
      );
      const step = 500 * ROW_WIDTH;
      const chunk = db.transaction((from: number) => {
        const to = Math.min(rows.length, from + step);
        for (let i = from; i < to; i += ROW_WIDTH) {
          insert.run(
            batchId,
            rows[i],
            rows[i + 1],
            rows[i + 2],
            rows[i + 3],
            rows[i + 4],
            rows[i + 5],
            rows[i + 6],
            rows[i + 7],
            rows[i + 8],
          );
        }
      });
      const stop = startTiming();
      let sinceCheckpoint = 0;
      for (let from = 0; from < rows.length; from += step) {
        chunk.immediate(from);
        for (let i = from; i < Math.min(rows.length, from + step); i += 1) {
          const value = rows[i];
          if (typeof value === 'string') sinceCheckpoint += value.length;
        }
        if (sinceCheckpoint >= CHECKPOINT_CHARS) {
          db.pragma('wal_checkpoint(PASSIVE)');
          sinceCheckpoint = 0;
        }
      }
      db.pragma('wal_checkpoint(PASSIVE)');
      return stop();
    } finally {
      db.close();
    }
  } finally {
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One measurement, run in a fresh process so its peak RSS is its own. The peak is taken over the first run only
 * (one import per process, as in the app); later runs only improve the timing (warm JIT).
 */
async function runTask(task: Task, path: string, runs: number): Promise<TaskResult> {
  let peak = process.memoryUsage.rss();
  let sampling = true;
  const sample = () => {
    if (sampling) peak = Math.max(peak, process.memoryUsage.rss());
  };
  const sampler = setInterval(sample, 5);
  let records = 0;
  let orders = 0;
  let invalid = 0;
  // The rows to insert are staged once before timing (their store is not the one timed).
  const insertRows =
    task === 'csv-insert' || task === 'hl7-insert' ? await stagedRowsOf(path, task === 'hl7-insert') : undefined;
  try {
    const { ms, cpuMs } = await timed(runs, async () => {
      let own: Timing | undefined;
      if (insertRows) {
        own = await rawInsert(insertRows.values);
        orders = insertRows.count;
        records = insertRows.count;
      } else if (task === 'csv-raw') records = await rawPapaparse(path);
      else if (task === 'hl7-raw') records = await rawSegmentSplit(path);
      else if (task === 'csv-import' || task === 'hl7-import') {
        const staged = await stageForBenchmark(path, task === 'hl7-import', sample);
        ({ records, orders, invalid } = staged);
        own = staged.timing;
      } else {
        orders = 0;
        invalid = 0;
        const report = await importFile(path, {
          codeLists: DEFAULT_CODE_LISTS,
          today: TODAY,
          ...(task === 'hl7-parse' ? { profile: HL7_PROFILE } : {}),
          onProgress: sample,
          onOrder: (order) => {
            orders += 1;
            if (!order.valid) invalid += 1;
          },
        });
        records = report.rowsRead;
      }
      if (sampling) peak = Math.max(peak, process.memoryUsage.rss(), process.resourceUsage().maxRSS * 1024);
      sampling = false;
      return own;
    });
    return { ms, cpuMs, records, orders, invalid, peakRssMb: Math.round(peak / MB) };
  } finally {
    clearInterval(sampler);
  }
}

const taskInChild = (task: Task, path: string, runs: number) =>
  inChild<TaskResult>(fileURLToPath(import.meta.url), ['--task', task, path, String(runs)], task);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const loadNow = (): number[] => loadavg().map((load) => Math.round(load * 100) / 100);

export async function runImportBenchmark(options: BenchmarkOptions = {}): Promise<ImportBenchmarkResult> {
  const loadAtStart = loadNow();
  const orders = options.orders ?? 50_000;
  const itemsPerOrder = options.itemsPerOrder ?? 2;
  const messages = options.messages ?? 20_000;
  const runs = options.runs ?? 2;
  const rounds = Math.max(1, options.rounds ?? 3);
  const dir = await mkdtemp(join(tmpdir(), 'rx-import-bench-'));
  const csvPath = join(dir, 'bench.csv');
  const hl7Path = join(dir, 'bench.hl7');
  try {
    await writeInChunks(csvPath, orders, (from, to) => {
      const csv = writeTemplateCsv(
        Array.from({ length: to - from }, (_, i) => benchmarkOrder(from + i, itemsPerOrder)),
      );
      return from === 0 ? csv : csv.slice(csv.indexOf('\n') + 1);
    });
    await writeInChunks(hl7Path, messages, (from, to) => {
      const head = from === 0 ? 'FHS|^~\\&|RXBATCH\rBHS|^~\\&|RXBATCH\r' : '';
      const body = Array.from({ length: to - from }, (_, i) =>
        writeRde011(benchmarkOrder(from + i, 1), { timestamp: '20250101120000', controlId: `M${from + i}` }),
      ).join('\r');
      const tail = to === messages ? `\rBTS|${messages}\rFTS|1\r` : '\r';
      return head + body + tail;
    });
    const leg = async (path: string, kind: 'csv' | 'hl7'): Promise<BenchmarkLeg & { peakRssMb: number }> => {
      const each: Record<'raw' | 'parsed' | 'imported' | 'inserted', TaskResult[]> = {
        raw: [],
        parsed: [],
        imported: [],
        inserted: [],
      };
      for (let round = 0; round < rounds; round += 1) {
        each.raw.push(await taskInChild(`${kind}-raw`, path, runs));
        each.parsed.push(await taskInChild(`${kind}-parse`, path, runs));
        each.imported.push(await taskInChild(`${kind}-import`, path, runs));
        each.inserted.push(await taskInChild(`${kind}-insert`, path, runs));
      }
      const ms = (task: keyof typeof each) => Math.round(median(each[task].map((result) => result.ms)));
      const cpu = (task: keyof typeof each) => Math.round(median(each[task].map((result) => result.cpuMs)));
      const floorRatios = each.imported.map((imported, i) => imported.ms / (each.raw[i]!.ms + each.inserted[i]!.ms));
      const importMs = ms('imported');
      return {
        records: each.raw[0]!.records,
        orders: each.imported[0]!.orders,
        megabytes: Math.round(((await stat(path)).size / MB) * 10) / 10,
        rawMs: ms('raw'),
        importMs,
        parseMs: ms('parsed'),
        rawInsertMs: ms('inserted'),
        ratio: Math.round((importMs / ms('raw')) * 100) / 100,
        floorMs: ms('raw') + ms('inserted'),
        floorRatio: Math.round(median(floorRatios) * 100) / 100,
        importCpuMs: cpu('imported'),
        floorCpuMs: cpu('raw') + cpu('inserted'),
        rounds,
        invalid: each.imported[0]!.invalid,
        peakRssMb: Math.max(...each.imported.map((result) => result.peakRssMb)),
      };
    };
    const csv = await leg(csvPath, 'csv');
    const hl7 = await leg(hl7Path, 'hl7');
    return {
      csv,
      hl7,
      peakRssMb: Math.max(csv.peakRssMb, hl7.peakRssMb),
      loadAverage: { start: loadAtStart, end: loadNow() },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const entry = process.argv[1] ? pathToFileURL(process.argv[1]).href : '';
if (import.meta.url === entry && process.argv[2] === '--task') {
  const [task, path, runs] = process.argv.slice(3) as [Task, string, string];
  runTask(task, path, Number(runs)).then(
    (result) => process.send?.(result, () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else if (import.meta.url === entry) {
  const rounds = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  runImportBenchmark(rounds !== undefined && Number.isInteger(rounds) && rounds > 0 ? { rounds } : {}).then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
