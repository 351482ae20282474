import { Agent, request } from 'node:http';
import { Outbox } from '../main/core/outbox/outbox.js';
import { createOrderServiceClient } from '../main/core/service/client.js';
import type { NewOrder } from '../main/core/store/orders-repo.js';
import { enqueueOrders, openStore, type Store } from '../main/core/store/store.js';
import { LOCAL, removeDir, sampleOrder, tempDataDir } from '../main/core/store/testing/store-fixtures.js';
import { requestClientCredentialsToken } from '../test/support/client-credentials.js';
import type { SandboxProcess } from './sandbox-process.js';

/**
 * Submit throughput: the outbox (claim, send, record attempt + state + audit in SQLite, per order) against a raw
 * loop that only PUTs the same stored bodies with a bearer token and the same concurrency, against the same
 * sandbox endpoint. Rounds alternate raw / outbox so both see the same machine noise; medians are compared. The
 * outbox side is one store and one outbox for all rounds, as in the app: each round accepts a batch and sends it.
 *
 * The raw loop opens a fresh connection per request, as the client does on purpose (it is how a request lost
 * before sending is told from one lost after: see main/core/service/http-exchange.ts; the client opens its
 * connections a little ahead, still one per request); a keep-alive raw loop is reported beside it, to show what
 * that choice costs.
 */

export interface SubmitBenchmark {
  ordersPerRound: number;
  rounds: number;
  concurrency: number;
  sandboxLatencyMs: number;
  rawOrdersPerSecond: number;
  rawKeepAliveOrdersPerSecond: number;
  outboxOrdersPerSecond: number;
  /** outbox ÷ raw (fresh connection per request, like the client). */
  ratio: number;
  /** outbox ÷ raw with keep-alive connections. */
  ratioVsKeepAlive: number;
  /**
   * This process's CPU time per order (main thread, GC and thread pool together; the sandbox is another process),
   * medians over the counted rounds: what each side spends beside the service.
   */
  cpuMsPerOrder: { raw: number; outbox: number };
  /**
   * The sandbox's CPU time over the wall time of each side's rounds (medians): how busy each side kept the
   * service. The raw loop keeps the sandbox's one thread saturated at +0 ms, so any time the outbox's own process
   * holds all the requests (answers waiting behind its work, new requests not yet written) shows here.
   */
  serviceBusy: { raw: number; outbox: number };
  /** Every counted round, orders per second: for judging the noise. */
  samples: { raw: number[]; rawKeepAlive: number[]; outbox: number[] };
  /** The rounds run first and not counted (the JIT and the sandbox warming up), orders per second. */
  warmup: { raw: number[]; outbox: number[] };
}

interface Measured {
  perSecond: number;
  /** This process's CPU milliseconds per order. */
  cpuMs: number;
  /** The sandbox's CPU time over the wall time. */
  serviceBusy: number;
}

/** Runs `work` (which returns orders per second) and reports the CPU both processes spent on it. */
async function measured(sandbox: SandboxProcess, orders: number, work: () => Promise<number>): Promise<Measured> {
  const serviceBefore = await sandbox.cpuMs();
  const before = process.cpuUsage();
  const perSecond = await work();
  const used = process.cpuUsage(before);
  const serviceMs = (await sandbox.cpuMs()) - serviceBefore;
  const wallMs = (orders / perSecond) * 1000;
  return { perSecond, cpuMs: (used.user + used.system) / 1000 / orders, serviceBusy: serviceMs / wallMs };
}

function bodies(prefix: string, count: number): NewOrder[] {
  return Array.from({ length: count }, (_, index) =>
    sampleOrder({ clinicCode: 'BENCH-CLINIC', clinicOrderId: `${prefix}-${index}` }),
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** PUTs every body with `concurrency` workers; resolves with orders per second. Throws on any non-200. */
async function rawLoop(
  sandbox: SandboxProcess,
  token: string,
  orders: readonly NewOrder[],
  concurrency: number,
  agent: Agent | false,
): Promise<number> {
  const url = new URL('api/v1/Order/create-with-clinic', sandbox.apiUrl);
  let next = 0;
  const put = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'PUT',
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json; charset=utf-8',
            'content-length': String(Buffer.byteLength(body)),
            accept: 'application/json',
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            res.statusCode === 200
              ? resolve()
              : reject(new Error(`raw create failed: ${res.statusCode} ${Buffer.concat(chunks).toString()}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const worker = async () => {
    while (next < orders.length) {
      const order = orders[next]!;
      next += 1;
      await put(order.requestBody);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (orders.length / (performance.now() - started)) * 1000;
}

/**
 * The app's side: one store and one outbox for the whole benchmark, as the app keeps them for a session, each
 * round a batch accepted into it and sent.
 */
interface OutboxSide {
  store: Store;
  outbox: Outbox;
  dataDir: string;
}

function openOutboxSide(sandbox: SandboxProcess, token: string, concurrency: number): OutboxSide {
  const dataDir = tempDataDir('rx-bench-submit-');
  const store = openStore({ dataDir });
  store.environments.upsert({
    ...LOCAL,
    apiBaseUrl: sandbox.apiUrl,
    issuer: sandbox.issuer,
    clientId: sandbox.serviceClient.clientId,
  });
  // The same token as the raw loop, so neither pays for a token request inside the timing.
  const client = createOrderServiceClient({
    apiBaseUrl: sandbox.apiUrl,
    tokens: { getAccessToken: () => Promise.resolve(token), refresh: () => Promise.resolve(false) },
    timeoutMs: 30_000,
    userAgent: 'RxBatch/bench',
    createWithClinicVersion: 'v1',
    // As the app's clients (main/core/environments/registry.ts).
    warmConnections: 4,
  });
  // No rate limit here: the raw loop has none either; the comparison is the work per order.
  const outbox = new Outbox({ store, clientFor: () => client }, { concurrency, ratePerSecond: 1_000_000 });
  return { store, outbox, dataDir };
}

async function closeOutboxSide(side: OutboxSide): Promise<void> {
  try {
    await side.outbox.stop();
  } finally {
    side.store.close();
    removeDir(side.dataDir);
  }
}

/** Enqueues the orders as a batch (not timed), then times the outbox from start to idle (and its CPU per order). */
async function outboxRun(sandbox: SandboxProcess, side: OutboxSide, orders: readonly NewOrder[]): Promise<Measured> {
  const { store, outbox } = side;
  const batch = store.batches.create({
    environmentId: LOCAL.id,
    sourceFileName: 'bench.json',
    kind: 'json',
    rowCount: orders.length,
    invalidCount: 0,
  });
  // As accept enqueues them: each body checked once as it is stored, so the send skips that check.
  enqueueOrders(
    store,
    batch.id,
    orders.map((order) => ({ ...order, checkBody: true })),
  );
  const createdBefore = store.orders.countByState(LOCAL.id).created;
  let result: Awaited<ReturnType<Outbox['runUntilIdle']>> | undefined;
  const timed = await measured(sandbox, orders.length, async () => {
    const started = performance.now();
    result = await outbox.runUntilIdle(LOCAL.id);
    return (orders.length / (performance.now() - started)) * 1000;
  });
  const created = (result?.counts.created ?? 0) - createdBefore;
  if (created !== orders.length) throw new Error(`the outbox created ${created} of ${orders.length} orders`);
  return timed;
}

export async function benchmarkSubmit(
  sandbox: SandboxProcess,
  o: {
    ordersPerRound?: number;
    rounds?: number;
    warmupRounds?: number;
    concurrency?: number;
    sandboxLatencyMs?: number;
  } = {},
): Promise<SubmitBenchmark> {
  const ordersPerRound = o.ordersPerRound ?? 400;
  const rounds = o.rounds ?? 5;
  const warmupRounds = o.warmupRounds ?? 1;
  const concurrency = o.concurrency ?? 4;
  const sandboxLatencyMs = o.sandboxLatencyMs ?? 0;
  await sandbox.setFaults({ latencyMs: sandboxLatencyMs });
  const token = await requestClientCredentialsToken({ issuer: sandbox.issuer, ...sandbox.serviceClient });
  const keepAlive = new Agent({ keepAlive: true, maxSockets: concurrency });
  const raw: number[] = [];
  const rawKeepAlive: number[] = [];
  const outbox: number[] = [];
  const rawCpu: number[] = [];
  const outboxCpu: number[] = [];
  const rawBusy: number[] = [];
  const outboxBusy: number[] = [];
  const warmup = { raw: [] as number[], outbox: [] as number[] };
  const tag = `L${sandboxLatencyMs}-C${concurrency}-${Date.now().toString(36)}`;
  const side = openOutboxSide(sandbox, token, concurrency);
  try {
    // The first rounds warm everything up (JIT, SQLite pages, the sandbox) and are not counted.
    for (let round = 0; round < warmupRounds + rounds; round += 1) {
      const rawBodies = bodies(`RAW-${tag}-${round}`, ordersPerRound);
      const r = await measured(sandbox, ordersPerRound, () => rawLoop(sandbox, token, rawBodies, concurrency, false));
      const k = await rawLoop(sandbox, token, bodies(`KA-${tag}-${round}`, ordersPerRound), concurrency, keepAlive);
      const s = await outboxRun(sandbox, side, bodies(`OUT-${tag}-${round}`, ordersPerRound));
      if (round < warmupRounds) {
        warmup.raw.push(Math.round(r.perSecond));
        warmup.outbox.push(Math.round(s.perSecond));
        continue;
      }
      raw.push(r.perSecond);
      rawCpu.push(r.cpuMs);
      rawBusy.push(r.serviceBusy);
      rawKeepAlive.push(k);
      outbox.push(s.perSecond);
      outboxCpu.push(s.cpuMs);
      outboxBusy.push(s.serviceBusy);
    }
  } finally {
    keepAlive.destroy();
    await closeOutboxSide(side);
  }
  const rawOrdersPerSecond = median(raw);
  const rawKeepAliveOrdersPerSecond = median(rawKeepAlive);
  const outboxOrdersPerSecond = median(outbox);
  const round2 = (value: number) => Math.round(value * 100) / 100;
  const round3 = (value: number) => Math.round(value * 1000) / 1000;
  return {
    ordersPerRound,
    rounds,
    concurrency,
    sandboxLatencyMs,
    rawOrdersPerSecond: Math.round(rawOrdersPerSecond),
    rawKeepAliveOrdersPerSecond: Math.round(rawKeepAliveOrdersPerSecond),
    outboxOrdersPerSecond: Math.round(outboxOrdersPerSecond),
    ratio: round2(outboxOrdersPerSecond / rawOrdersPerSecond),
    ratioVsKeepAlive: round2(outboxOrdersPerSecond / rawKeepAliveOrdersPerSecond),
    cpuMsPerOrder: { raw: round3(median(rawCpu)), outbox: round3(median(outboxCpu)) },
    serviceBusy: { raw: round2(median(rawBusy)), outbox: round2(median(outboxBusy)) },
    samples: { raw: raw.map(Math.round), rawKeepAlive: rawKeepAlive.map(Math.round), outbox: outbox.map(Math.round) },
    warmup,
  };
}
