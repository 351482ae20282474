import { ORDER_STATE_NAMES } from '../../../shared/order-views.js';

/** The words the outbox speaks: local order states, create routes, attempt operations and outcomes. */

/**
 * - ready: staged from an import, validated, not yet accepted into the outbox.
 * - queued → sending → created | rejected | in_doubt (sent, no answer: reconcile before sending again).
 * - held: accepted but paused (by the admin, or until sign-in returns); withdrawn: removed before sending.
 * - cancel_requested → cancel_sent → cancelled | cancel_refused.
 */
export const ORDER_STATES = ORDER_STATE_NAMES;
export type OrderState = (typeof ORDER_STATES)[number];

/** States in which an order may enter the outbox through `enqueueOrders`. */
export const ENQUEUE_STATES = ['ready', 'queued', 'held'] as const;
export type EnqueueState = (typeof ENQUEUE_STATES)[number];

/**
 * States in which an order waits for a person: refused by the service, held (locked out, set aside after failures),
 * or a cancel the pharmacy refused. So does an order whose lookups need one (not found at the service, or listed there under other ids), whatever its state
 * (OrderFilter.needsAttention, OrderQueries.countNeedingAttention).
 */
export const ATTENTION_STATES: readonly OrderState[] = ['rejected', 'held', 'cancel_refused'];

/** States whose (environment, clinic, clinicOrderId) need not be unique: nothing exists at the service for them. */
export const NOT_ACCEPTED_STATES = ['ready', 'rejected', 'withdrawn'] as const satisfies readonly OrderState[];

/** States in which the service holds the order, so the pharmacy order id must be known. */
export const AT_SERVICE_STATES = [
  'created',
  'cancel_requested',
  'cancel_sent',
  'cancelled',
  'cancel_refused',
] as const satisfies readonly OrderState[];

/** v1 create-with-clinic, v2 create, or the HL7 create; the request body is stored exactly as it will be sent. */
export const ORDER_ROUTES = ['v1', 'v2', 'hl7'] as const;
export type OrderRoute = (typeof ORDER_ROUTES)[number];

export const ATTEMPT_OPERATIONS = ['create', 'lookup', 'status', 'cancel'] as const;
export type AttemptOperation = (typeof ATTEMPT_OPERATIONS)[number];

/** `ok`, or the ServiceError kind the call ended with. */
export const ATTEMPT_OUTCOMES = ['ok', 'retryable', 'in-doubt', 'auth', 'rejected'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export const CANCELLATION_STATES = ['requested', 'sent', 'cancelled', 'refused'] as const;
export type CancellationState = (typeof CANCELLATION_STATES)[number];

export const BATCH_KINDS = ['csv', 'hl7', 'json'] as const;
export type BatchKind = (typeof BATCH_KINDS)[number];

/** A staged order (main/core/staging/) waits for review, or has been accepted into the outbox. */
export const STAGED_ORDER_STATES = ['staged', 'accepted'] as const;
export type StagedOrderState = (typeof STAGED_ORDER_STATES)[number];

/** HL7 order control of a staged order: a new order, or a cancel of one sent earlier. */
export const ORDER_CONTROLS = ['NW', 'CA'] as const;
