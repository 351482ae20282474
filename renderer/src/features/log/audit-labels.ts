import type { OrderStateName } from '../../../../shared/order-views.js';
import { ORDER_STATE_TEXT } from '../orders/order-states.js';
import { fieldOfPath } from '../preview/order-fields.js';
import { ROUTE_TEXT } from '../preview/route-text.js';

/**
 * Plain words for the audit log's actions. Every action the app writes has one (test/lint/audit-action-labels.test.ts
 * reads the sources for them); one from a newer version shows as it is stored.
 */
const ACTION_LABELS: Record<string, string> = {
  'batch.imported': 'Batch imported',
  'batch.accepted': 'Batch accepted',
  'batch.accepting': 'Batch being accepted (a step)',
  'batch.enriched': 'Batch checked with the service',
  'batch.template.exported': 'Batch exported (template)',
  'batch.errors.exported': 'Orders to fix exported',
  'batch.undone': 'Change undone',
  'batch.redone': 'Change redone',
  'batch.discarded': 'Batch discarded',
  'batch.replaced': 'Find and replace applied',
  'batch.replacing': 'Find and replace under way (a step)',
  'batch.route-changed': 'Sending route changed',
  'order.accepted': 'Order accepted',
  'order.attempt': 'Call to the service',
  'order.created': 'Order created',
  'order.rejected': 'Order rejected',
  'order.held': 'Order held',
  'order.edited': 'Order edited',
  'order.in-doubt': 'Sent, no answer (in doubt)',
  'order.awaiting-sign-in': 'Waiting for sign-in',
  'order.awaiting-access': 'Waiting: every request refused (403)',
  'order.set-aside': 'Order set aside',
  'order.retry-scheduled': 'Retry scheduled',
  'order.retry-now': 'Retry requested',
  'order.reconciled': 'Order found after no answer',
  'order.not-found': 'Order not found after no answer',
  'order.interrupted': 'Send interrupted',
  'order.withdrawn': 'Order withdrawn',
  'order.cancel-requested': 'Cancel requested',
  'order.cancel-sent': 'Cancel sent',
  'order.cancel-confirmed': 'Cancel confirmed',
  'order.cancel-refused': 'Cancel refused',
  'order.cancel-declined': 'Cancel not possible',
  'order.cancelled-by-pharmacy': 'Cancelled by the pharmacy',
  'order.status-changed': 'Status changed',
  'order.lost-at-service': 'Order not found at the service on repeated lookups',
  'order.found-at-service': 'Order found at the service again',
  'order.listed-differently': 'Order listed by the service under other ids',
  'order.source.viewed': 'Order source viewed',
  'outbox.paused': 'Sending paused',
  'outbox.resumed': 'Sending resumed',
  'outbox.sign-in-required': 'Sign-in required',
  'outbox.service-unavailable': 'Service unavailable',
  'outbox.service-restored': 'Service back',
  'outbox.access-refused': 'Service refuses every request (403)',
  'signin.signed-in': 'Signed in',
  'signin.signed-out': 'Signed out',
  'signin.ended': 'Sign-in ended',
  'signin.failed': 'Sign-in failed',
  'environment.added': 'Environment added',
  'environment.edited': 'Environment edited',
  'environment.updated': 'Environment updated',
  'environment.identity-changed': 'Environment re-pointed (signed out)',
  'environment.removed': 'Environment removed',
  'environment.client-secret-unverified': 'Client secret kept unchecked',
  'intake.started': 'Live intake started in the app',
  'intake.stopped': 'Live intake stopped',
  'intake.accepted': 'Live HL7 message accepted',
  'intake.staged': 'Live HL7 message staged',
  'intake.refused': 'Live HL7 message refused',
  'intake.resent': 'Live HL7 message received again',
  'intake.frame.refused': 'Live HL7 frame refused',
  'intake.peer.refused': 'Live HL7 connection refused',
  'intake.sender.refused': 'Live HL7 message refused: sender not accepted from that address',
  'intake.file.imported': 'Watched file imported',
  'intake.file.duplicate': 'Watched file already imported',
  'intake.file.failed': 'Watched file not imported',
  'intake.file.changed': 'Watched file changed while read: read again later',
  'intake.rules.changed': 'Live intake rules changed',
  'intake.binding.changed': 'Live intake: who may send as a sender changed',
  'intake.cancel.held': 'Cancel from another sender held for review',
  'log.exported': 'Log exported',
  'retention.changed': 'Imported file copies: keeping time changed',
  'retention.applied': 'Imported file copies dropped (retention)',
  // Written by releases before the log export was named log.exported.
  'audit.exported': 'Log exported',
};

export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action;
}

/** The kinds the log screen filters by: an action prefix each. */
export const ACTION_KINDS = [
  { prefix: '', label: 'All' },
  { prefix: 'order.', label: 'Orders' },
  { prefix: 'batch.', label: 'Batches' },
  { prefix: 'outbox.', label: 'Sending' },
  { prefix: 'signin.', label: 'Sign-in' },
  { prefix: 'environment.', label: 'Settings' },
  { prefix: 'intake.', label: 'Live intake' },
  { prefix: 'log.', label: 'Log exports' },
] as const;

/** A log entry's details as one short line (`HTTP: 201 · took: 40 ms`), keys in plain words where known. */
const DETAIL_LABELS: Record<string, string> = {
  operation: 'operation',
  outcome: 'outcome',
  httpStatus: 'HTTP',
  latencyMs: 'took',
  retryAfterMs: 'retry after',
  errorKind: 'error',
  errorMessage: 'message',
  errorField: 'field',
  remoteId: 'pharmacy id',
  remoteStatus: 'status',
  fromState: 'from',
  toState: 'to',
  attempt: 'attempt',
  orderCount: 'orders',
  rowCount: 'rows',
  invalidCount: 'invalid',
  fileName: 'file',
  grant: 'sign-in method',
  previousGrant: 'sign-in method before',
  format: 'format',
  masked: 'masked',
  fileKind: 'file type',
  via: 'via',
  retentionDays: 'days kept',
  previousRetentionDays: 'days before',
  intakeRules: 'rules',
  previousIntakeRules: 'rules before',
  binding: 'binding',
  previousBinding: 'binding before',
  reason: 'why',
  fieldPath: 'field changed',
  route: 'sent as',
  codeCount: 'dm+d codes asked about',
  warningCount: 'service warnings',
  uncheckedCount: 'items not checked',
  apiOrigin: 'API address',
  previousApiOrigin: 'API address before',
  issuer: 'sign-in server',
  previousIssuer: 'sign-in server before',
  clientId: 'client id',
  previousClientId: 'client id before',
  controlId: 'message id (MSH-10)',
};

/** A detail key's name on the Log screen; one from a newer version shows as it is stored. */
export function detailLabel(key: string): string {
  return DETAIL_LABELS[key] ?? key;
}

/** How a call to the service ended (an attempt's outcome, its error kind), as the Submissions screen says it. */
const CALL_OUTCOMES: Record<string, string> = {
  ok: 'answered',
  retryable: 'failed, tried again later',
  'in-doubt': 'no answer (in doubt)',
  auth: 'sign-in needed',
  rejected: 'refused by the service',
};

/**
 * Why live intake refused a connection on connect (`reason`, finding 44), as the Intake screen says it: an entry's
 * `outcome` is `peer` for all of them, and not every refused peer is one the allow-list left out.
 */
const REFUSAL_REASONS: Record<string, string> = {
  'allow-list': 'not in the allow-list',
  http: 'began as an HTTP request (a web page sent to the MLLP port?)',
  'not-mllp': 'did not begin with an MLLP start byte (TLS to a listener without it, or another protocol)',
  tls: 'TLS handshake failed (no certificate the trusted CA issued, or not TLS)',
};

const STATE_KEYS = new Set(['fromState', 'toState']);

/** A value in the admin's words: order states by their label, durations with their unit, yes and no. */
function detailValue(key: string, value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') {
    if (key === 'latencyMs') return `${value.toLocaleString('en-GB')} ms`;
    if (key === 'retryAfterMs') return `${(value / 1000).toLocaleString('en-GB', { maximumFractionDigits: 1 })} s`;
    return String(value);
  }
  if (STATE_KEYS.has(key) && value in ORDER_STATE_TEXT) return ORDER_STATE_TEXT[value as OrderStateName].label;
  if ((key === 'outcome' || key === 'errorKind') && value in CALL_OUTCOMES) return CALL_OUTCOMES[value]!;
  if (key === 'reason' && Object.hasOwn(REFUSAL_REASONS, value)) return REFUSAL_REASONS[value]!;
  if (key === 'route' && Object.hasOwn(ROUTE_TEXT, value)) return ROUTE_TEXT[value as keyof typeof ROUTE_TEXT].label;
  if (key === 'fieldPath') {
    const field = fieldOfPath(value);
    const item = /^prescribedItems\.(\d+)\./.exec(value)?.[1];
    if (field) return item === undefined ? field.label : `${field.label} (item ${Number(item) + 1})`;
  }
  return value;
}

/**
 * Details that read as a phrase rather than `label: value`. `connectionCount`: a listener's refusals of one address
 * for one reason after the first (which has its entry), counted for a minute into this one (security finding 44).
 */
const DETAIL_PHRASES: Record<string, (value: number) => string> = {
  connectionCount: (n) =>
    `${n.toLocaleString('en-GB')} more ${n === 1 ? 'connection' : 'connections'} refused in the minute after the first`,
};

export function detailsLine(details: Record<string, string | number | boolean>): string {
  return Object.entries(details)
    .map(([key, value]) => {
      const phrase = DETAIL_PHRASES[key];
      if (phrase && typeof value === 'number') return phrase(value);
      return `${detailLabel(key)}: ${detailValue(key, value)}`;
    })
    .join(' · ');
}
