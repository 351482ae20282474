import type { Logger } from '../platform/logger.js';
import type { AuditDetails } from '../model/audit-details.js';
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
 * (and so the outage message), the Retry-After gate, the sign-in stop, and who the service last answered (the
 * evidence a poison order needs). It is apart from the loop (EnvironmentRunner) because it is pure bookkeeping of
 * verdicts: no store, no timers; the loop reads it to decide what may go, and commits the events it queues.
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
   * The open outage (null once the service answers again): what its failure said, and whether that failure is one
   * the environment's settings (or the service's certificate) must change to end. One record, so neither outlives
   * the other.
   */
  #outage: { message: string; needsSettings: boolean } | null = null;
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
  }

  /** Why sending waits for a sign-in (null when it does not). */
  get signInMessage(): string | null {
    return this.#signInMessage;
  }

  /** Whether the open outage takes a change of settings (or certificate) to end (false when there is none). */
  get outageNeedsSettings(): boolean {
    return this.#outage?.needsSettings ?? false;
  }

  /** What the failure that opened the breaker said (null once the service answers again). */
  get outageMessage(): string | null {
    return this.#outage?.message ?? null;
  }

  /** No request before this (ms, the clock of `now`). */
  get notBefore(): number {
    return this.#notBefore;
  }

  /** Whether events wait for the next commit. */
  get hasEvents(): boolean {
    return this.#events.length > 0;
  }

  /** The events waiting, handed to the commit that audits them. */
  takeEvents(): EnvironmentEvent[] {
    return this.#events.splice(0);
  }

  /** Ends the wait for sign-in (resume, or a sign-in that succeeded). */
  clearSignIn(): void {
    this.#signInMessage = null;
  }

  /** Takes in what an answer says about the service: the breaker, the Retry-After gate, the sign-in stop. */
  takeIn(work: { id: number; kind: 'create' | 'lookup' | 'cancel' }, verdict: Verdict, nowMs: number): void {
    if (verdict.service === 'up') this.#noteAnswer(work.id, nowMs);
    if (verdict.service === 'down') {
      // A create that keeps failing may be its body's fault (a poison order), so its repeats count once; a
      // lookup or a cancel is the same small request for every order, so each of its failures counts, and so does
      // a create refused before it was sent (else fewer orders than the threshold never made an outage).
      const key = work.kind === 'create' && verdict.unsent !== true ? work.id : undefined;
      this.#serviceFailed(nowMs, key, verdict.message ?? 'the service did not answer', verdict.settings === true);
    } else if (verdict.service !== 'none') this.#serviceAnswered();
    else this.breaker.releaseProbe();
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

  #serviceFailed(nowMs: number, key: number | undefined, message: string, settings: boolean): void {
    const change = this.breaker.failure(nowMs, key);
    if (change !== 'opened') {
      // While open, a probe failing the other way says what it takes now (a certificate put right, the service
      // still down; or the other way round). Nothing more is audited or notified.
      if (this.#outage !== null && settings !== this.#outage.needsSettings) {
        this.#outage = { message, needsSettings: settings };
      }
      return;
    }
    // Once per outage: the probes that fail after this change nothing anyone needs to hear about.
    this.#outage = { message, needsSettings: settings };
    this.#events.push({
      action: 'outbox.service-unavailable',
      details: { errorKind: 'retryable', errorMessage: clip(message) },
      attention: {
        kind: 'service-unavailable',
        environmentId: this.#environmentId,
        message,
        ...(settings ? { needsSettings: true } : {}),
      },
    });
    this.#logger.warn('service unavailable: sending stopped, probing', { environmentId: this.#environmentId });
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
