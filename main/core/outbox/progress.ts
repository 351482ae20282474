import type { OrderState } from '../store/order-state.js';
import type { BatchProgress } from './batch-progress.js';

/**
 * - idle: nothing left to send, look up or cancel.
 * - sending: work is open (in flight, due, or waiting for its retry time).
 * - paused: the admin paused this environment.
 * - sign-in-required: the service refused the sign-in and it could not be refreshed; resumes after sign-in.
 * - service-unavailable: the circuit breaker is open (no answer, or every request refused with 403); the outbox
 *   probes and resumes by itself.
 */
export type OutboxState = 'idle' | 'sending' | 'paused' | 'sign-in-required' | 'service-unavailable';

export interface OutboxProgress {
  environmentId: string;
  state: OutboxState;
  /** Why it is paused, needs sign-in or finds the service unavailable; null otherwise. */
  message: string | null;
  /** service-unavailable only: the environment's settings or the service's certificate must change to end it. */
  needsSettings: boolean;
  /**
   * service-unavailable only: the service (or something in front of it: a firewall, an IP allow-list, a gateway)
   * refuses every request with 403, rather than not answering; `message` says so.
   */
  accessRefused: boolean;
  /** Orders per local state (every state present). */
  counts: Record<OrderState, number>;
  /**
   * Orders in no attention state (created, say) whose lookups need a person: not found at the service, or listed
   * there under other ids. With the attention states' counts, the orders that need a person.
   */
  notedOutsideAttention: number;
  /** Cancel commands waiting to be sent. */
  openCancels: number;
  /** Requests in flight now. */
  inFlight: number;
  /** Orders that reached the service per second over the last few seconds. */
  ordersPerSecond: number;
  /** When the next retry or probe is due (ISO), when the outbox is waiting for one; else null. */
  nextAttemptAt: string | null;
  /**
   * Requests waiting on a slow service: how many have been in flight longer than 5 s, the longest wait, and the
   * request slots (the concurrency) they hold; null when none is that slow.
   */
  slow: { requests: number; longestMs: number; slots: number } | null;
  /** The batches last sent from, newest first, each with its own counts and rate (see batch-progress.ts). */
  batches: BatchProgress[];
}

/** What `runUntilIdle` ends with: idle (all done), blocked (only with stopWhenBlocked), or stopped. */
export interface OutboxRunResult extends OutboxProgress {
  outcome: 'idle' | 'blocked' | 'stopped';
}
