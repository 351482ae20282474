import type { LookupFailure, ProductInfo } from '../../../shared/enrichment-views.js';
import type { ProductRef } from '../../../shared/products.js';
import type { CallOptions, CancellableOutcome, OrderServiceClient } from '../service/client.js';
import type { AnswerKind, AnswerWrite, EnrichmentRepo, StoredAnswer } from '../store/enrichment-repo.js';
import { COURIERS_KEY, couriersAnswerSchema, priceKey, productAnswerSchema } from './answer-values.js';
import { packsNeeded, type BatchPlan, type CodeNeeds } from './batch-plan.js';
import { CallPacer, pause } from './call-pacer.js';

/**
 * Asks the service everything a batch plan needs, each question once: product search per dm+d code (anonymous,
 * so it works signed out), then stock and the price of each distinct pack count for the codes it finds, and the
 * courier list once. Workers (the environment's concurrency) share one pacer (its rate). Answers are stored as
 * they come, in small transactions; a failed question is stored as a failure beside any older answer.
 *
 * Stopping: a connection that fails twice means offline, and every question still to come is recorded as
 * "not checked: offline" without a call; a 401 (or no sign-in at all) does the same for the secured questions
 * (stock, price, couriers) as "signed out"; 5xx and 429 are retried a few times (Retry-After honoured), then
 * recorded as a service error for that question only. Cancel (the signal) stops waiting at once and aborts the
 * calls in flight (their questions stay unanswered and unrecorded: a cancel is no service failure); answers that
 * arrived are kept.
 */

export interface LookupClients {
  anonymous: Pick<OrderServiceClient, 'searchProducts'>;
  secured: Pick<OrderServiceClient, 'stockCheck' | 'priceCheck' | 'courierPriceList'>;
}

export interface LookupTuning {
  concurrency: number;
  ratePerSecond: number;
  /** Retries of a 5xx / 429 / unreadable answer before it counts as a service error. */
  maxRetries: number;
  /** First retry delay; doubles each time, Retry-After is a floor. */
  retryBaseDelayMs: number;
  /** Longest single wait before a retry (a longer Retry-After means: give up on that question for now). */
  maxRetryWaitMs: number;
}

export interface LookupRunOptions {
  environmentId: string;
  repo: EnrichmentRepo;
  clients: LookupClients;
  /** False: no secured call is sent; stock, price and couriers are recorded as signed out. */
  signedIn: boolean;
  plan: BatchPlan;
  tuning: LookupTuning;
  /** Stored answers younger than this are used as they are. */
  reuseWithinMs: number;
  now: () => Date;
  signal: AbortSignal;
  /** False once the store is closing: stop writing. */
  canWrite: () => boolean;
  onProgress?: (done: number, total: number, calls: number) => void;
}

export interface LookupRunResult {
  /** HTTP requests made (retries included). */
  calls: number;
  reused: number;
  /** Why questions went unanswered this run, if any did. */
  failures: Set<LookupFailure>;
  cancelled: boolean;
}

type Asked<T> = { ok: true; value: T } | { ok: false; failure: LookupFailure; message: string };

/** Pending writes are committed together once there are this many, or this long after the last commit. */
const FLUSH_EVERY_WRITES = 50;
const FLUSH_EVERY_MS = 250;
/** A service message kept with a failure (product lookups carry no patient data; still bounded). */
const MAX_MESSAGE = 200;
/** Failed questions in a row (after their retries) that mean the service is down for this run. */
const SERVICE_ERRORS_TO_STOP = 5;

function toProductInfo(product: {
  productId: number;
  name: string;
  packSize?: number | null | undefined;
  form?: string | null | undefined;
  strength?: string | null | undefined;
}): ProductInfo {
  return {
    productId: product.productId,
    name: product.name,
    packSize: product.packSize ?? null,
    form: product.form ?? null,
    strength: product.strength ?? null,
  };
}

export async function runLookups(o: LookupRunOptions): Promise<LookupRunResult> {
  const { plan, repo, environmentId, signal, tuning } = o;
  const pacer = new CallPacer(tuning.ratePerSecond, signal);
  const result: LookupRunResult = { calls: 0, reused: 0, failures: new Set(), cancelled: false };
  /** Questions of this kind are not sent any more (and why). */
  const blocked: { anonymous: LookupFailure | null; secured: LookupFailure | null } = {
    anonymous: null,
    secured: o.signedIn ? null : 'signed-out',
  };

  let pending: AnswerWrite[] = [];
  let flushedAt = performance.now();
  const flush = () => {
    if (pending.length === 0 || !o.canWrite()) return;
    const writes = pending;
    pending = [];
    repo.write(environmentId, writes);
    flushedAt = performance.now();
  };
  const answer = (kind: AnswerKind, key: string, value: unknown) => pending.push({ kind, key, value });
  const fail = (kind: AnswerKind, key: string, asked: { failure: LookupFailure; message: string }) => {
    result.failures.add(asked.failure);
    pending.push({ kind, key, failure: asked.failure, message: asked.message.slice(0, MAX_MESSAGE) });
  };

  let serviceErrorsInARow = 0;
  const nowMs = o.now().getTime();
  const isFresh = (stored: StoredAnswer | undefined): stored is StoredAnswer & { fetchedAt: string } =>
    o.reuseWithinMs > 0 &&
    stored?.value != null &&
    stored.fetchedAt !== null &&
    nowMs - Date.parse(stored.fetchedAt) <= o.reuseWithinMs;
  const codes = [...plan.codes.values()];
  const storedProducts = repo.answers(environmentId, 'product', plan.codes.keys());
  const storedStock = repo.answers(environmentId, 'stock', plan.codes.keys());

  /** Every call carries the run's signal, so a cancel destroys the request in flight instead of waiting for it. */
  const callOptions: CallOptions = { signal };

  async function ask<T>(
    access: 'anonymous' | 'secured',
    call: () => Promise<CancellableOutcome<T>>,
  ): Promise<Asked<T>> {
    for (let attempt = 0; ; attempt += 1) {
      const stop = blocked[access];
      if (stop) return { ok: false, failure: stop, message: '' };
      await pacer.turn();
      result.calls += 1;
      const outcome = await call();
      if (outcome.ok) {
        serviceErrorsInARow = 0;
        return { ok: true, value: outcome.value };
      }
      const error = outcome.error;
      // Cancelled (only the run's own signal can do that): end this worker the way an aborted wait does, with
      // nothing recorded for the question.
      if (error.kind === 'cancelled') {
        signal.throwIfAborted();
        throw new Error('a call was cancelled but the check was not');
      }
      if (error.kind === 'auth') {
        blocked[access] = 'signed-out';
        return { ok: false, failure: 'signed-out', message: error.message };
      }
      // A refusal (400/403/404) is about this one question, not a sign the service is down.
      if (error.kind !== 'retryable') return { ok: false, failure: 'service-error', message: error.message };
      const network = error.reason === 'network';
      // A dropped connection is tried once more (a blip); 5xx and 429 a few times, Retry-After as a floor.
      if (attempt < (network ? 1 : tuning.maxRetries)) {
        const wait = Math.max(error.retryAfterMs ?? 0, tuning.retryBaseDelayMs * 2 ** attempt);
        if (wait <= tuning.maxRetryWaitMs) {
          await pause(wait, signal);
          continue;
        }
      }
      if (network) {
        // Every question after this one would fail the same way: record them as offline without calling.
        // (Signed out stays the reason for secured questions: signing in is needed whatever the network does.)
        blocked.anonymous = 'offline';
        blocked.secured ??= 'offline';
        return { ok: false, failure: 'offline', message: error.message };
      }
      return serviceError(error.message);
    }
  }

  /** A service failing question after question is down: stop asking it (each question is recorded as such). */
  function serviceError(message: string): Asked<never> {
    serviceErrorsInARow += 1;
    if (serviceErrorsInARow >= SERVICE_ERRORS_TO_STOP) {
      blocked.anonymous ??= 'service-error';
      blocked.secured ??= 'service-error';
    }
    return { ok: false, failure: 'service-error', message };
  }

  async function lookUpCode(needs: CodeNeeds): Promise<void> {
    const { code } = needs;
    let products: ProductInfo[];
    const stored = storedProducts.get(code);
    const reusable = isFresh(stored) ? productAnswerSchema.safeParse(stored.value) : undefined;
    if (reusable?.success) {
      result.reused += 1;
      products = reusable.data.products;
    } else {
      const found = await ask('anonymous', () => o.clients.anonymous.searchProducts(code, callOptions));
      if (!found.ok) return fail('product', code, found);
      // Search matches names too; only products with exactly this code are this code's.
      const answered = productAnswerSchema.parse({
        products: found.value.filter((product) => product.dmdCode === code).map(toProductInfo),
      });
      products = answered.products;
      answer('product', code, answered);
    }
    const [first] = products;
    if (!first) return;
    // One product: ask about exactly it; several packs under one code: let the service take the code.
    const ref: ProductRef = products.length === 1 ? { productId: first.productId, dmdCode: code } : { dmdCode: code };

    if (isFresh(storedStock.get(code))) result.reused += 1;
    else {
      const stock = await ask('secured', () => o.clients.secured.stockCheck(ref, callOptions));
      if (stock.ok) answer('stock', code, { inStock: stock.value.inStock });
      else fail('stock', code, stock);
    }

    const packs = packsNeeded(needs, products);
    const storedPrices = repo.answers(
      environmentId,
      'price',
      packs.map((n) => priceKey(code, n)),
    );
    for (const n of packs) {
      const key = priceKey(code, n);
      if (isFresh(storedPrices.get(key))) {
        result.reused += 1;
        continue;
      }
      const price = await ask('secured', () => o.clients.secured.priceCheck(ref, n, callOptions));
      if (price.ok) {
        const { totalPacks, unitPrice, totalPrice, currencyCode } = price.value;
        answer('price', key, { totalPacks, unitPrice, totalPrice, currencyCode });
      } else fail('price', key, price);
    }
  }

  async function lookUpCouriers(): Promise<void> {
    if (isFresh(repo.answers(environmentId, 'couriers', [COURIERS_KEY]).get(COURIERS_KEY))) {
      result.reused += 1;
      return;
    }
    const list = await ask('secured', () => o.clients.secured.courierPriceList(callOptions));
    if (list.ok) answer('couriers', COURIERS_KEY, couriersAnswerSchema.parse({ options: list.value }));
    else fail('couriers', COURIERS_KEY, list);
  }

  const tasks: Array<() => Promise<void>> = [
    ...(plan.courierCodes.size > 0 ? [lookUpCouriers] : []),
    ...codes.map((needs) => () => lookUpCode(needs)),
  ];
  let next = 0;
  let done = 0;
  o.onProgress?.(0, tasks.length, 0);

  async function worker(): Promise<void> {
    while (next < tasks.length && !signal.aborted && o.canWrite()) {
      const task = tasks[next]!;
      next += 1;
      await task();
      done += 1;
      if (pending.length >= FLUSH_EVERY_WRITES || performance.now() - flushedAt >= FLUSH_EVERY_MS) flush();
      o.onProgress?.(done, tasks.length, result.calls);
    }
  }

  try {
    const workers = Math.max(1, Math.min(tuning.concurrency, tasks.length));
    const settled = await Promise.allSettled(Array.from({ length: workers }, () => worker()));
    for (const outcome of settled) {
      // A worker stops by the abort (its wait rejects); anything else is a bug and must not pass silently.
      if (outcome.status === 'rejected' && !signal.aborted) throw outcome.reason;
    }
  } finally {
    flush();
  }
  result.cancelled = signal.aborted || !o.canWrite();
  return result;
}
