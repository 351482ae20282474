import { fork } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Papa from 'papaparse';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { verhoeffCheckDigit } from '../../../shared/snomed.js';
import { importFile } from './import-file.js';
import { writeRde011 } from './rde-writer.js';
import { writeTemplateCsv } from './template-csv.js';

/**
 * End-to-end import cost (parse, map, validate; staging comes later) against the floor: a raw papaparse parse of
 * the same CSV, and a raw segment split of the same HL7 batch. Orders go to an `onOrder` consumer that keeps a
 * count only, as staging will write them to SQLite and let them go. Each measurement runs in a child process of
 * its own, so the peak RSS reported is the import's and not the generator's.
 * Run: `npx tsx main/core/importing/import-benchmark.ts`.
 */

export interface BenchmarkLeg {
  records: number;
  orders: number;
  megabytes: number;
  rawMs: number;
  importMs: number;
  ratio: number;
  invalid: number;
}

export interface ImportBenchmarkResult {
  /** Each leg's `peakRssMb` is the peak RSS of the process that ran the import (and nothing else). */
  csv: BenchmarkLeg & { peakRssMb: number };
  hl7: BenchmarkLeg & { peakRssMb: number };
  /** The higher of the two. */
  peakRssMb: number;
}

export interface BenchmarkOptions {
  orders?: number;
  itemsPerOrder?: number;
  messages?: number;
  /** Timed runs per measurement; the fastest counts (the first run also warms the JIT). */
  runs?: number;
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

async function writeInChunks(path: string, count: number, piece: (from: number, to: number) => string): Promise<void> {
  const handle = await open(path, 'w');
  try {
    for (let from = 0; from < count; from += 1000) await handle.write(piece(from, Math.min(count, from + 1000)));
  } finally {
    await handle.close();
  }
}

async function timed(runs: number, action: () => Promise<void>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await action();
    best = Math.min(best, performance.now() - start);
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

type Task = 'csv-raw' | 'csv-import' | 'hl7-raw' | 'hl7-import';
interface TaskResult {
  ms: number;
  records: number;
  orders: number;
  invalid: number;
  peakRssMb: number;
}

const HL7_PROFILE = {
  name: 'bench',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

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
  try {
    const ms = await timed(runs, async () => {
      if (task === 'csv-raw') records = await rawPapaparse(path);
      else if (task === 'hl7-raw') records = await rawSegmentSplit(path);
      else {
        orders = 0;
        invalid = 0;
        const report = await importFile(path, {
          codeLists: DEFAULT_CODE_LISTS,
          today: new Date('2025-06-01T00:00:00Z'),
          ...(task === 'hl7-import' ? { profile: HL7_PROFILE } : {}),
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
    });
    return { ms, records, orders, invalid, peakRssMb: Math.round(peak / MB) };
  } finally {
    clearInterval(sampler);
  }
}

function inChild(task: Task, path: string, runs: number): Promise<TaskResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--task', task, path, String(runs)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let result: TaskResult | undefined;
    child.on('message', (message) => (result = message as TaskResult));
    child.on('error', reject);
    child.on('exit', (code) =>
      result && code === 0 ? resolve(result) : reject(new Error(`${task} failed (exit ${code})`)),
    );
  });
}

export async function runImportBenchmark(options: BenchmarkOptions = {}): Promise<ImportBenchmarkResult> {
  const orders = options.orders ?? 50_000;
  const itemsPerOrder = options.itemsPerOrder ?? 2;
  const messages = options.messages ?? 20_000;
  const runs = options.runs ?? 2;
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
      const raw = await inChild(`${kind}-raw`, path, runs);
      const imported = await inChild(`${kind}-import`, path, runs);
      return {
        records: raw.records,
        orders: imported.orders,
        megabytes: Math.round(((await stat(path)).size / MB) * 10) / 10,
        rawMs: Math.round(raw.ms),
        importMs: Math.round(imported.ms),
        ratio: Math.round((imported.ms / raw.ms) * 100) / 100,
        invalid: imported.invalid,
        peakRssMb: imported.peakRssMb,
      };
    };
    const csv = await leg(csvPath, 'csv');
    const hl7 = await leg(hl7Path, 'hl7');
    return { csv, hl7, peakRssMb: Math.max(csv.peakRssMb, hl7.peakRssMb) };
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
  runImportBenchmark().then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
