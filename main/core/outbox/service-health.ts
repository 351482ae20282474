import type { Logger } from '../platform/logger.js';
import type { AuditDetails } from '../model/audit-details.js';
import { accessRefusedMessage, ForbiddenAnswers } from './access-refusal.js';
import type { AttentionEvent } from './attention.js';
import { retryDelayMs } from './backoff.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { clip, type Verdict } from './step.js';
import type { OutboxTuning } from './tuning.js';

/** An environment-level fact judged from answers (outage, restored, sign-in), audited with the loop's next commit. */
export interface EnvironmentEvent {
  action: string;
  details?: AuditDetails;
  attention?: AttentionEvent;
}

/**
 * What the answers say about the service of one environment, as opposed to about one order: the circuit breaker
 * (and so the outage message), the Retry-After gate, the sign-in stop, who the service last answered (the
 * evidence a poison order needs), and whether a 403 refuses the order or every request (access-refusal.ts). It is
 * apart from the loop (EnvironmentRunner) because it is pure bookkeeping of verdicts: no store, no timers; the loop
 * reads it to decide what may go, and commits the events it queues.
 */
export class ServiceHealth {
  /** The loop reads it directly for what may go now (state, allowance, probe). */
  readonly breaker: CircuitBreaker;
  readonly #environmentId: string;
  /** The runner's own tuning object (its pace changes in place); the backoff settings are read from it. */
  readonly #tuning: OutboxTuning;
  readonly #random: () => number;
  readonly #logger: Logger;
  #signInMessage: string | null = null;
  /**
   * The open outage (null once the service answers again): what its failure said, whether that failure is one
   * the environment's settings (or the service's certificate) must change to end, and whether it is a refusal of
   * every request (403) rather than no answer. One record, so none outlives the others.
   */
  #outage: { message: string; needsSettings: boolean; refused: boolean } | null = null;
  /** How each plain 403 was taken: the order's own refusal, or the environment's. */
  readonly #forbidden: ForbiddenAnswers;
  /** Creates held for a 403 that a refusal of every request has since explained: put back at the next commit. */
  readonly #requeue: number[] = [];
  /** No request before this (ms): the service's Retry-After applies to the caller, not just one order. */
  #notBefore = 0;
  /** The latest answer from the service, and the latest about a different order: evidence it works for others. */
  #lastAnswer = { orderId: 0, atMs: Number.NEGATIVE_INFINITY };
  #lastAnswerOther = { orderId: 0, atMs: Number.NEGATIVE_INFINITY };
  /** Facts judged since the last commit, waiting to be audited (and their attention events emitted) with it. */
  readonly #events: EnvironmentEvent[] = [];

  constructor(deps: { environmentId: string; tuning: OutboxTuning; random: () => number; logger: Logger }) {
    this.#environmentId = deps.environmentId;
    this.#tuning = deps.tuning;
    this.#random = deps.random;
    this.#logger = deps.logger;
    this.breaker = new CircuitBreaker({
      threshold: deps.tuning.breakerThreshold,
      cooldownMs: deps.tuning.breakerCooldownMs,
      maxCooldownMs: deps.tuning.maxDelayMs,
    });
    this.#forbidden = new ForbiddenAnswers(() => this.#tuning.breakerThreshold);
  }

  /** Why sending waits for a sign-in (null when it does not). */
  get signInMessage(): string | null {
    return this.#signInMessage;
  }

  /** Whether the open outage takes a change of settings (or certificate) to end (false when there is none). */
  get outageNeedsSettings(): boolean {
    return this.#outage?.needsSettings ?? false;
  }

  /** Whether the open outage is the service (or something in front of it) refusing every request with 403. */
  get outageAccessRefused(): boolean {
    return this.#outage?.refused ?? false;
  }

  /** Whether the order's latest plain 403 was taken as the environment's (StepContext.forbiddenByEnvironment). */
  forbiddenByEnvironment(orderId: number): boolean {
    return this.#forbidden.byEnvironment(orderId);
  }

  /** What the failure that opened the breaker said (null once the service answers again). */
  get outageMessage(): string | null {
    return this.#outage?.message ?? null;
  }

  /** No request before this (ms, the clock of `now`). */
  get notBefore(): number {
    return this.#notBefore;
  }

  /** Whether events (or orders to put back) wait for the next commit. */
  get hasEvents(): boolean {
    return this.#events.length > 0 || this.#requeue.length > 0;
  }

  /** The events waiting, handed to the commit that audits them. */
  takeEvents(): EnvironmentEvent[] {
    return this.#events.splice(0);
  }

  /** Held orders to put back in the queue (access-refusal.ts requeueHeld), handed to the next commit. */
  takeRequeue(): number[] {
    return this.#requeue.splice(0);
  }

  /** Ends the wait for sign-in (resume, or a sign-in that succeeded). */
  clearSignIn(): void {
    this.#signInMessage = null;
  }

  /** Takes in what an answer says about the service: the breaker, the Retry-After gate, the sign-in stop. */
  takeIn(work: { id: number; kind: 'create' | 'lookup' | 'cancel' }, verdict: Verdict, nowMs: number): void {
    if (verdict.service === 'up') this.#noteAnswer(work.id, nowMs);
    if (verdict.service === 'forbidden') this.#forbiddenAnswer(work, verdict, nowMs);
    else if (verdict.service === 'down') {
      // A create that keeps failing may be its body's fault (a poison order), so its repeats count once; a
      // lookup or a cancel is the same small request for every order, so each of its failures counts, and so does
      // a create refused before it was sent (else fewer orders than the threshold never made an outage).
      const key = work.kind === 'create' && verdict.unsent !== true ? work.id : undefined;
      const failure = { message: verdict.message ?? 'the service did not answer', settings: verdict.settings === true };
      this.#serviceFailed(nowMs, key, { ...failure, refused: false });
    } else if (verdict.service !== 'none') {
      this.#forbidden.gotThrough(work.id);
      this.#serviceAnswered();
    } else this.breaker.releaseProbe();
    if (verdict.service === 'rate-limited' || verdict.retryAfterMs !== undefined) {
      const waitMs = verdict.retryAfterMs ?? retryDelayMs(0, this.#tuning, this.#random) + this.#tuning.baseDelayMs;
      this.#notBefore = Math.max(this.#notBefore, nowMs + waitMs);
    }
    if (verdict.service === 'auth') this.#needSignIn(verdict.message ?? 'sign-in required');
  }

  /** Whether, with the breaker closed, the service answered about another order after `sinceMs` (poison rule (a)). */
  othersAnsweredSince(orderId: number, sinceMs: number, nowMs: number): boolean {
    return this.breaker.state(nowMs) === 'closed' && this.#lastAnswerNotFor(orderId) > sinceMs;
  }

  #noteAnswer(orderId: number, atMs: number): void {
    if (orderId !== this.#lastAnswer.orderId) this.#lastAnswerOther = this.#lastAnswer;
    this.#lastAnswer = { orderId, atMs };
  }

  /** When the service last answered about an order other than this one. */
  #lastAnswerNotFor(orderId: number): number {
    return this.#lastAnswer.orderId !== orderId ? this.#lastAnswer.atMs : this.#lastAnswerOther.atMs;
  }

  #serviceAnswered(): void {
    if (this.breaker.success() !== 'closed') return;
    this.#outage = null;
    this.#events.push({ action: 'outbox.service-restored' });
    this.#logger.info('service answering again: sending resumes', { environmentId: this.#environmentId });
  }

  /**
   * A plain 403, judged (access-refusal.ts): the order's own refusal is an answer from the service; the
   * environment's is an outage from the first such answer, with its own message, that the breaker probes and ends
   * when a request gets through. Creates this run held for 403s the streak now explains are put back.
   */
  #forbiddenAnswer(work: { id: number; kind: 'create' | 'lookup' | 'cancel' }, verdict: Verdict, nowMs: number): void {
    // A read of the same order got through: requests do, whatever this run judged before.
    if (verdict.readGotThrough) this.#forbidden.readGotThrough();
    const refusedNow = this.outageAccessRefused && verdict.readGotThrough !== true;
    const taken = this.#forbidden.judge(
      work,
      { serviceWritten: verdict.serviceWritten === true, refusedNow, nowMs },
      (orderId, sinceMs) => this.othersAnsweredSince(orderId, sinceMs, nowMs),
    );
    this.#requeue.push(...taken.requeue);
    if (!taken.environment) {
      this.#serviceAnswered();
      return;
    }
    const message = accessRefusedMessage(verdict.message ?? 'Forbidden');
    this.#serviceFailed(nowMs, work.id, { message, settings: false, refused: true }, true);
  }

  #serviceFailed(
    nowMs: number,
    key: number | undefined,
    failure: { message: string; settings: boolean; refused: boolean },
    atOnce = false,
  ): void {
    const { message, settings, refused } = failure;
    const change = this.breaker.failure(nowMs, key, atOnce);
    if (change !== 'opened') {
      // While open, a probe failing the other way says what it takes now (a certificate put right, the service
      // still down; a firewall's 403 gone, the service down behind it; or the other way round). A refusal is left
      // only by the probe: a request lost on its way before it began says nothing about it. Nothing more is
      // audited or notified.
      const outage = this.#outage;
      const other = outage !== null && (settings !== outage.needsSettings || refused !== outage.refused);
      if (other && (change === 'reopened' || !outage.refused)) {
        this.#outage = { message, needsSettings: settings, refused };
      }
      return;
    }
    // Once per outage: the probes that fail after this change nothing anyone needs to hear about.
    this.#outage = { message, needsSettings: settings, refused };
    this.#events.push({
      action: refused ? 'outbox.access-refused' : 'outbox.service-unavailable',
      details: { errorKind: refused ? 'rejected' : 'retryable', errorMessage: clip(message) },
      attention: {
        kind: 'service-unavailable',
        environmentId: this.#environmentId,
        message,
        ...(settings ? { needsSettings: true } : {}),
        ...(refused ? { accessRefused: true } : {}),
      },
    });
    const what = refused ? 'access refused (403)' : 'service unavailable';
    this.#logger.warn(`${what}: sending stopped, probing`, { environmentId: this.#environmentId });
  }

  #needSignIn(message: string): void {
    if (this.#signInMessage !== null) return;
    this.#signInMessage = message;
    this.#events.push({
      action: 'outbox.sign-in-required',
      details: { errorKind: 'auth', errorMessage: clip(message) },
      attention: { kind: 'sign-in-required', environmentId: this.#environmentId, message },
    });
    this.#logger.warn('sign-in required: sending paused', { environmentId: this.#environmentId });
  }
}
