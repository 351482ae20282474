import Database from 'better-sqlite3';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rename } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { FolderWatcher } from '../main/core/intake/folder-watcher.js';
import { writeTemplateCsv } from '../main/core/importing/template-csv.js';
import { IntakeRepo } from '../main/core/store/intake-repo.js';
import { benchmarkOrder } from './import-benchmark.js';
import { open } from 'node:fs/promises';
import { IntakeService, type IntakeMode } from '../main/core/intake/intake-service.js';
import { MllpFramer, mllpFrame } from '../main/core/intake/mllp-framer.js';
import { MllpListener } from '../main/core/intake/mllp-listener.js';
import { writeRde011 } from '../main/core/importing/rde-writer.js';
import { StagingService } from '../main/core/staging/staging-service.js';
import { HL7_PROFILE, uniqueOrder } from '../main/core/staging/testing/staging-fixtures.js';
import { inProcessRowSink } from '../main/core/store/staged-batch-writer.js';
import { openStore } from '../main/core/store/store.js';
import { LOCAL, removeDir, tempDataDir } from '../main/core/store/testing/store-fixtures.js';

/**
 * Live intake's MLLP throughput (issue #17): messages per second through the listener with the durable-before-ACK
 * rule (each message committed with synchronous=FULL before its ACK, then staged with the importer, accepted into
 * the outbox under "send valid orders as they arrive", and its outcome committed), on 1 and 4 connections, against a
 * bare loop in the same run that frames, stores the raw message with the same fsync policy (WAL, synchronous=FULL,
 * one commit per message) and ACKs without parsing; the ACK latency (p50, p99) at 100 messages/s offered; and a
 * 100,000-row CSV through a watched folder against the importer's own time for it.
 * `npx tsx bench/intake-benchmark.ts [messages]`.
 */

const SENDER = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' };

function messages(count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, i) =>
    writeRde011(uniqueOrder({}, prefix), { controlId: `${prefix}-${i}`, ...SENDER }),
  );
}

/** One connection sending its messages one at a time, each after the previous ACK. */
async function sendAll(port: number, texts: readonly string[], latencies?: number[], intervalMs = 0): Promise<void> {
  const socket: Socket = await new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
  socket.setNoDelay(true);
  const framer = new MllpFramer(1 << 20);
  let waiting: (() => void) | undefined;
  let acks = 0;
  socket.on('data', (chunk: Buffer) => {
    for (const event of framer.push(chunk)) if (event.kind === 'message') acks += 1;
    waiting?.();
  });
  const start = performance.now();
  for (const [i, text] of texts.entries()) {
    if (intervalMs > 0) {
      const due = start + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const sent = performance.now();
    const want = acks + 1;
    socket.write(mllpFrame(text));
    while (acks < want) await new Promise<void>((r) => (waiting = r));
    latencies?.push(performance.now() - (intervalMs > 0 ? Math.min(sent, start + i * intervalMs) : sent));
  }
  socket.destroy();
}

async function run(port: number, connections: number, perConnection: number, prefix: string): Promise<number> {
  const batches = Array.from({ length: connections }, (_, c) => messages(perConnection, `${prefix}${c}`));
  const start = performance.now();
  await Promise.all(batches.map((texts) => sendAll(port, texts)));
  return (connections * perConnection) / ((performance.now() - start) / 1000);
}

async function intakeServer(dir: string, mode: IntakeMode) {
  const store = openStore({ dataDir: dir });
  store.environments.upsert(LOCAL);
  const staging = new StagingService({
    store,
    codeListsFor: (id) => store.environments.get(id)!.codeLists,
    openRowSink: inProcessRowSink,
  });
  staging.saveProfile({
    ...HL7_PROFILE,
    name: 'EPR',
    hl7Sender: { application: 'EPR-7', facility: 'CLINIC-H', messageType: 'RDE^O11' },
  });
  const intake = new IntakeService({ store, staging, environmentId: LOCAL.id, rules: { mode } });
  const listener = new MllpListener({ port: 0, handle: (raw, peer) => intake.handle(raw, peer) });
  const { port } = await listener.listen();
  return {
    port,
    close: async () => {
      await listener.close();
      await intake.close();
      store.close();
    },
  };
}

/** The floor: frame, INSERT the raw bytes (WAL, synchronous=FULL, a commit each), write a fixed ACK. */
async function bareServer(dir: string) {
  const db = new Database(join(dir, 'bare.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE m (id INTEGER PRIMARY KEY, peer TEXT, at TEXT, raw BLOB)');
  const insert = db.prepare('INSERT INTO m (peer, at, raw) VALUES (?, ?, ?)');
  const ack = mllpFrame('MSH|^~\\&|A|B|C|D|20260101000000||ACK^O11^ACK|1|P|2.5\rMSA|AA|1\r');
  const server: Server = createServer((socket) => {
    const framer = new MllpFramer(1 << 20);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      for (const event of framer.push(chunk)) {
        if (event.kind !== 'message') continue;
        insert.run(`${socket.remoteAddress}:${socket.remotePort}`, new Date().toISOString(), event.bytes);
        socket.write(ack);
      }
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      db.close();
    },
  };
}

/** A fresh store with the local environment and a staging service writing through its worker thread, as serve's folders do. */
function folderStore(dir: string) {
  const store = openStore({ dataDir: dir });
  store.environments.upsert(LOCAL);
  const staging = new StagingService({ store, codeListsFor: (id) => store.environments.get(id)!.codeLists });
  return { store, staging };
}

/**
 * Folder intake of a 100,000-row CSV (50,000 orders of 2 items): the importer's own time for the file
 * (StagingService.importFile into a fresh store) against the time from the file being renamed into a watched folder
 * (polled every 500 ms) to its move to done/ (target: the importer's time plus at most 1 s).
 */
async function folderLeg(root: string, orders = 50_000) {
  const source = join(root, 'big.csv.part');
  const handle = await open(source, 'w');
  for (let from = 0; from < orders; from += 1000) {
    const csv = writeTemplateCsv(
      Array.from({ length: Math.min(1000, orders - from) }, (_, i) => benchmarkOrder(from + i, 2)),
    );
    await handle.write(from === 0 ? csv : csv.slice(csv.indexOf('\n') + 1));
  }
  await handle.close();

  const direct = folderStore(join(root, 'direct'));
  const start = performance.now();
  const outcome = await direct.staging.importFile({ environmentId: LOCAL.id, path: source });
  const importMs = performance.now() - start;
  direct.store.close();

  const watched = folderStore(join(root, 'watched'));
  // The watcher's own import of the file, timed, so its overhead is told apart from the import's run-to-run spread.
  let watchedImportMs = 0;
  const importFile = watched.staging.importFile.bind(watched.staging);
  watched.staging.importFile = async (request) => {
    const began = performance.now();
    try {
      return await importFile(request);
    } finally {
      watchedImportMs = performance.now() - began;
    }
  };
  const inbox = join(root, 'inbox');
  mkdirSync(inbox);
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const watcher = new FolderWatcher({
    dir: inbox,
    environmentId: LOCAL.id,
    store: watched.store,
    staging: watched.staging,
    repo: new IntakeRepo(watched.store.db, watched.store.now),
    mode: 'hold',
    onFile: () => finished(),
  });
  watcher.start();
  const placed = performance.now();
  await rename(source, join(inbox, 'big.csv'));
  await done;
  const folderMs = performance.now() - placed;
  await watcher.stop();
  watched.store.close();
  return {
    orders: outcome.status === 'staged' ? outcome.orders : 0,
    importMs: Math.round(importMs),
    folderMs: Math.round(folderMs),
    watchedImportMs: Math.round(watchedImportMs),
    /** Placed → moved to done/, less the watcher's own import: polling, hashing, moving, recording. */
    overheadMs: Math.round(folderMs - watchedImportMs),
    targetOverheadMs: 1000,
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export async function runIntakeBenchmark(count = 400) {
  const root = tempDataDir('rx-intake-bench-');
  try {
    const bare = await bareServer(root);
    await run(bare.port, 1, 50, 'WB'); // warm-up
    const bare1 = await run(bare.port, 1, count, 'B1-');
    const bare4 = await run(bare.port, 4, count / 4, 'B4-');
    await bare.close();

    const send = await intakeServer(join(root, 'send'), 'send');
    await run(send.port, 1, 50, 'W');
    const intake1 = await run(send.port, 1, count, 'I1-');
    const intake4 = await run(send.port, 4, count / 4, 'I4-');
    // ACK latency at 100 messages/s offered: 4 connections at 25/s each, for 4 s.
    const latencies: number[] = [];
    await Promise.all(Array.from({ length: 4 }, (_, c) => sendAll(send.port, messages(100, `L${c}-`), latencies, 40)));
    await send.close();

    const hold = await intakeServer(join(root, 'hold'), 'hold');
    const hold1 = await run(hold.port, 1, count, 'H1-');
    await hold.close();

    const folder = await folderLeg(root);
    const r = (n: number) => Math.round(n);
    return {
      oneConnection: { intakePerSecond: r(intake1), barePerSecond: r(bare1), ratio: +(intake1 / bare1).toFixed(3) },
      fourConnections: { intakePerSecond: r(intake4), barePerSecond: r(bare4), ratio: +(intake4 / bare4).toFixed(3) },
      holdOneConnection: { intakePerSecond: r(hold1) },
      ackLatencyAt100PerSecond: {
        p50Ms: +percentile(latencies, 50).toFixed(1),
        p99Ms: +percentile(latencies, 99).toFixed(1),
        messages: latencies.length,
      },
      folderCsv100kRows: folder,
      targets: { perSecond: 1000, ratio: 0.5, p99Ms: 50 },
    };
  } finally {
    removeDir(root);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const count = Number(process.argv[2] ?? 400);
  console.log(JSON.stringify(await runIntakeBenchmark(count), null, 2));
}
