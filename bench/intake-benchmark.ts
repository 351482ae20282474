import Database from 'better-sqlite3';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rename } from 'node:fs/promises';
import { mkdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
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
import { GroupCommit } from '../main/core/store/group-commit.js';
import { openStore, type Store } from '../main/core/store/store.js';
import { LOCAL, removeDir, tempDataDir } from '../main/core/store/testing/store-fixtures.js';

/**
 * Live intake's MLLP throughput (issue #17): messages per second through the listener with the durable-before-ACK
 * rule (each message read by the importer, recorded with its outcome and ACK, the ACK written only once that commit
 * is fsync'd; then appended to its sender's batch of the day and, under "send valid orders as they arrive",
 * accepted into the outbox; a leg's time includes that staging of its last messages), on 1 and 4 connections, against a bare loop in the same run that
 * frames, stores the raw message with the same fsync policy (GroupCommit: a commit each, one fsync of the WAL
 * shared by the commits made meanwhile, the ACK after it) and ACKs without parsing; the same bare loop with a
 * synchronous=FULL commit per message (the policy before group commit), for reference; the ACK latency (p50, p99)
 * at 100 messages/s offered; and a 100,000-row CSV through a watched folder against the importer's own time for it.
 * `npx tsx bench/intake-benchmark.ts [messages] [--no-folder]`; the load average is reported with the figures.
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

/**
 * Messages per second over `connections`; `cpuMs` (when given) gets this process's CPU time per message (server
 * and client share the process; the client's part is the same for every leg), which the machine's load does not
 * stretch as it stretches wall time.
 */
export async function run(
  port: number,
  connections: number,
  perConnection: number,
  prefix: string,
  cpuMs?: number[],
  /** Waited for within the time: the intake's staging, which follows the ACKs. */
  settle?: () => Promise<void>,
): Promise<number> {
  const batches = Array.from({ length: connections }, (_, c) => messages(perConnection, `${prefix}${c}`));
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(batches.map((texts) => sendAll(port, texts)));
  await settle?.();
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  cpuMs?.push((used.user + used.system) / 1000 / (connections * perConnection));
  return (connections * perConnection) / seconds;
}

export async function intakeServer(dir: string, mode: IntakeMode) {
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
    staged: () => intake.staged(),
    close: async () => {
      await listener.close();
      await intake.close();
      store.close();
    },
  };
}

/**
 * The floor: frame, INSERT the raw bytes, write a fixed ACK. `group`: the intake's fsync policy (GroupCommit, the
 * ACK once the commit is durable); `each`: a synchronous=FULL commit per message, the ACK after it.
 */
async function bareServer(dir: string, policy: 'group' | 'each') {
  const file = join(dir, `bare-${policy}.sqlite`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE m (id INTEGER PRIMARY KEY, peer TEXT, at TEXT, raw BLOB)');
  const insert = db.prepare('INSERT INTO m (peer, at, raw) VALUES (?, ?, ?)');
  // GroupCommit reads only the connection and its file's name from a store.
  const commits = new GroupCommit({ db, file } as Store);
  const ack = mllpFrame('MSH|^~\\&|A|B|C|D|20260101000000||ACK^O11^ACK|1|P|2.5\rMSA|AA|1\r');
  const store = (peer: string, raw: Buffer) => insert.run(peer, new Date().toISOString(), raw);
  const server: Server = createServer((socket) => {
    const framer = new MllpFramer(1 << 20);
    const peer = `${socket.remoteAddress}:${socket.remotePort}`;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      for (const event of framer.push(chunk)) {
        if (event.kind !== 'message') continue;
        if (policy === 'each') {
          store(peer, event.bytes);
          socket.write(ack);
          continue;
        }
        const { commit } = commits.commit(() => store(peer, event.bytes));
        void (async () => {
          while (!commits.isDurable(commit)) await commits.sync();
          socket.write(ack);
        })();
      }
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      commits.close();
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
    rules: { mode: 'hold' },
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

/**
 * The main thread's time runnable but not running (waiting for a core), in ms since it started: Linux's
 * schedstat, undefined elsewhere. On this shared machine most of the ACK latency's p99 is this when the load is
 * high (bench/README.md, "ACK latency stalls").
 */
function runQueueWaitMs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return undefined;
  }
}

/** ACK latency with `connections` senders, each sending `perConnection` messages at `perSecond` / connections. */
async function latencyAt(port: number, perSecond: number, seconds: number, prefix: string, connections = 4) {
  const latencies: number[] = [];
  const waitedBefore = runQueueWaitMs();
  const each = Math.round((perSecond * seconds) / connections);
  const intervalMs = (1000 * connections) / perSecond;
  await Promise.all(
    Array.from({ length: connections }, (_, c) =>
      sendAll(port, messages(each, `${prefix}${c}-`), latencies, intervalMs),
    ),
  );
  const waitedAfter = runQueueWaitMs();
  return {
    p50Ms: +percentile(latencies, 50).toFixed(1),
    p99Ms: +percentile(latencies, 99).toFixed(1),
    maxMs: +Math.max(...latencies).toFixed(1),
    messages: latencies.length,
    ...(waitedBefore !== undefined && waitedAfter !== undefined
      ? { mainThreadRunQueueWaitMs: Math.round(waitedAfter - waitedBefore) }
      : {}),
  };
}

function median(values: number[]): number {
  return percentile(values, 50);
}

/**
 * Every server runs for the whole benchmark and the legs take turns, ROUNDS times (bare, intake, bare, intake…),
 * so a change in the machine's load (it is shared) falls on both sides of a ratio; each figure is the median of its
 * rounds.
 */
const ROUNDS = 3;

export async function runIntakeBenchmark(count = 400, options: { folder?: boolean } = {}) {
  const root = tempDataDir('rx-intake-bench-');
  const load = { atStart: loadavg().map((n) => +n.toFixed(2)), atEnd: [] as number[] };
  const servers: Array<{ close(): Promise<void> }> = [];
  try {
    const bare = await bareServer(root, 'group');
    const each = await bareServer(root, 'each');
    const send = await intakeServer(join(root, 'send'), 'send');
    const hold = await intakeServer(join(root, 'hold'), 'hold');
    servers.push(bare, each, send, hold);
    for (const server of [bare, each, send, hold]) await run(server.port, 1, 50, `W${server.port}-`); // warm-up

    const perRound = Math.max(4, Math.round(count / ROUNDS / 4) * 4);
    const leg = () => ({ rates: [] as number[], cpuMs: [] as number[] });
    const legs = {
      bare1: leg(),
      intake1: leg(),
      bare4: leg(),
      intake4: leg(),
      each1: leg(),
      each4: leg(),
      hold1: leg(),
      hold4: leg(),
    };
    const turn = async (
      name: keyof typeof legs,
      server: { port: number; staged?: () => Promise<void> },
      connections: number,
      round: number,
    ) => {
      const l = legs[name];
      const perConnection = perRound / connections;
      l.rates.push(await run(server.port, connections, perConnection, `${name}-${round}-`, l.cpuMs, server.staged));
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      await turn('bare1', bare, 1, round);
      await turn('intake1', send, 1, round);
      await turn('bare4', bare, 4, round);
      await turn('intake4', send, 4, round);
      await turn('each1', each, 1, round);
      await turn('each4', each, 4, round);
      await turn('hold1', hold, 1, round);
      await turn('hold4', hold, 4, round);
    }
    // ACK latency at 100 messages/s offered: 4 connections at 25/s each, for 4 s.
    const latency = await latencyAt(send.port, 100, 4, 'L');
    for (const server of servers.splice(0)) await server.close();

    const folder = options.folder === false ? undefined : await folderLeg(root);
    load.atEnd = loadavg().map((n) => +n.toFixed(2));
    const m = (name: keyof typeof legs) => Math.round(median(legs[name].rates));
    const cpu = (name: keyof typeof legs) => +median(legs[name].cpuMs).toFixed(2);
    const ratio = (a: keyof typeof legs, b: keyof typeof legs) =>
      +(median(legs[a].rates) / median(legs[b].rates)).toFixed(3);
    return {
      messagesPerLegRound: perRound,
      rounds: ROUNDS,
      oneConnection: {
        intakePerSecond: m('intake1'),
        barePerSecond: m('bare1'),
        ratio: ratio('intake1', 'bare1'),
        bareFullCommitEachPerSecond: m('each1'),
        cpuMsPerMessage: { intake: cpu('intake1'), bare: cpu('bare1') },
      },
      fourConnections: {
        intakePerSecond: m('intake4'),
        barePerSecond: m('bare4'),
        ratio: ratio('intake4', 'bare4'),
        bareFullCommitEachPerSecond: m('each4'),
        cpuMsPerMessage: { intake: cpu('intake4'), bare: cpu('bare4') },
      },
      hold: {
        oneConnectionPerSecond: m('hold1'),
        fourConnectionsPerSecond: m('hold4'),
        cpuMsPerMessage: cpu('hold4'),
      },
      ackLatencyAt100PerSecond: latency,
      ...(folder ? { folderCsv100kRows: folder } : {}),
      loadAverage: load,
      targets: { perSecond: 1000, ratio: 0.5, p99Ms: 50 },
    };
  } finally {
    for (const server of servers) await server.close().catch(() => undefined);
    removeDir(root);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const count = Number(args.find((a) => /^\d+$/.test(a)) ?? 400);
  console.log(JSON.stringify(await runIntakeBenchmark(count, { folder: !args.includes('--no-folder') }), null, 2));
}
