import type { OrderDetail } from '../../../../shared/order-views.js';
import { formatDate, formatTime } from '../format/format-date.js';
import type { Tone } from './tone.js';

/** One line of an order's history, as the detail view lists it. */
export interface TimelineEvent {
  key: string;
  at: string;
  title: string;
  /** What happened and what happens next, in words. */
  details: string[];
  /** The wire's own account (the client's error text, HTTP status, time taken): behind a disclosure. */
  technical?: string[];
  tone: Tone;
  /** The origin step of an order whose original text is kept: the view offers "Show source" on it. */
  showSource?: boolean;
}

type Origin = OrderDetail['origin'];

/** `line 4`, `lines 2–3`, `lines 2, 5 and 9`: a CSV order's records, contiguous runs joined. */
export function describeLines(lines: readonly number[]): string {
  if (lines.length === 0) return '';
  if (lines.length === 1) return `line ${lines[0]}`;
  const contiguous = lines.every((line, index) => index === 0 || line === lines[index - 1]! + 1);
  if (contiguous) return `lines ${lines[0]}–${lines[lines.length - 1]}`;
  return `lines ${lines.slice(0, -1).join(', ')} and ${lines[lines.length - 1]}`;
}

/** The first step: the file, and the order's place in it (CSV lines, HL7 message and control id, JSON entry). */
function originEvent(origin: Origin): TimelineEvent {
  const place =
    origin.format === 'csv' && origin.lines.length > 0
      ? `, ${describeLines(origin.lines)}`
      : origin.format === 'hl7' && origin.message !== null
        ? `, HL7 message ${origin.message}${origin.controlId ? ` (control id ${origin.controlId})` : ''}`
        : origin.format === 'json' && origin.position !== null
          ? `, order ${origin.position} of the JSON array`
          : '';
  const details: string[] = [];
  if (origin.position === null) {
    details.push(
      'No line or message was recorded: this order was imported before the app kept where each order came from.',
    );
  } else if (!origin.sourceKept) {
    details.push(
      origin.format === 'json'
        ? 'A JSON import: the app keeps no original text of it to show.'
        : 'The original text of this order was not kept.',
    );
  }
  if (origin.edited) details.push('Edited in the app before it was accepted; the source shows the file as it was.');
  return {
    key: 'origin',
    at: origin.importedAt,
    title: `Imported from ${origin.fileName}${place}`,
    details,
    tone: 'neutral',
    ...(origin.sourceKept ? { showSource: true } : {}),
  };
}

type Attempt = OrderDetail['attempts'][number];

function attemptFacts(attempt: Attempt): string[] {
  const facts: string[] = [];
  if (attempt.httpStatus !== null) facts.push(`HTTP ${attempt.httpStatus}`);
  if (attempt.latencyMs !== null) facts.push(`${attempt.latencyMs} ms`);
  return facts.length ? [facts.join(', ')] : [];
}

/**
 * `plain`: what happened in words (shown); `extra`: the service's own words where they are the point (a refusal);
 * the client's error text (ECONNRESET, timeouts) goes behind the disclosure with the attempt's facts.
 */
type Described = Pick<TimelineEvent, 'title' | 'tone'> & { plain?: string; extra?: string | undefined };

const NOTHING_TWICE = 'The app looks the order up before sending anything again, so nothing is sent twice.';

function describeCreate(attempt: Attempt, message: string | undefined): Described {
  switch (attempt.outcome) {
    case 'ok':
      return {
        title: `Created at the service, pharmacy order id ${attempt.remoteId ?? 'not given'}`,
        tone: 'good',
      };
    case 'retryable':
      return {
        title: 'Sending failed; it will be sent again',
        tone: 'waiting',
        plain:
          'The service did not take the order (it could not be reached, or asked the app to wait). It is sent again by itself; nothing is lost or sent twice.',
      };
    case 'in-doubt':
      return attempt.httpStatus !== null
        ? {
            title: 'Sent, but the service failed without saying whether it was created (in doubt): looked up first',
            tone: 'waiting',
            plain: `The service answered with an error, so whether it created the order is unknown. ${NOTHING_TWICE}`,
          }
        : {
            title: 'Sent, but no answer came back (in doubt)',
            tone: 'waiting',
            plain: `The connection was cut while the order was being sent, so whether the service received it is unknown. ${NOTHING_TWICE}`,
          };
    case 'auth':
      return {
        title: 'Not sent: sign-in required',
        tone: 'attention',
        plain: 'The service no longer accepted this computer’s sign-in. Sign in again; sending then goes on by itself.',
      };
    case 'rejected':
      return { title: 'Rejected by the service', tone: 'attention', extra: message };
  }
}

function describeAttempt(attempt: Attempt): Described {
  const message = attempt.errorMessage ?? undefined;
  // Rejections quote the service; any other failure's text is technical (the disclosure has it).
  switch (attempt.operation) {
    case 'create':
      return describeCreate(attempt, message);
    case 'lookup':
      if (attempt.outcome === 'ok') {
        return attempt.remoteId
          ? { title: `Looked up: the service has it, pharmacy order id ${attempt.remoteId}`, tone: 'good' }
          : { title: 'Looked up: the service does not have it, so it will be sent', tone: 'waiting' };
      }
      return {
        title: 'Look-up failed; it will be tried again',
        tone: 'waiting',
        plain:
          'The service could not be asked whether it has the order. It is asked again, and the order is not sent again before it answers.',
      };
    case 'cancel':
      if (attempt.outcome === 'ok') return { title: 'Cancel sent to the service', tone: 'good' };
      // The service's own words, once: the order's panel says the reason in plain words above the timeline.
      if (attempt.outcome === 'rejected') {
        return { title: 'Cancel refused', tone: 'attention', extra: message && `The service said: ${message}` };
      }
      if (attempt.outcome === 'in-doubt') {
        return {
          title: 'Cancel sent, no clear answer: its status is checked before it is sent again',
          tone: 'waiting',
          plain:
            attempt.httpStatus === null
              ? 'The connection was cut while the cancel was being sent, so whether the service received it is unknown; the cancel is not sent twice.'
              : 'The service answered with an error, so whether it took the cancel is unknown; the cancel is not sent twice.',
        };
      }
      return {
        title: 'Sending the cancel failed; it will be sent again',
        tone: 'waiting',
        plain: 'The cancel did not reach the service. It is sent again by itself.',
      };
    case 'status':
      return attempt.outcome === 'ok'
        ? { title: 'Status checked', tone: 'neutral' }
        : {
            title: 'Status check failed',
            tone: 'waiting',
            plain: 'The service could not be asked for the status. It is asked again later.',
          };
  }
}

/** Audit actions worth a line of their own (the others repeat what attempts and statuses already show). */
const AUDIT_TITLES: Record<string, { title: string; tone: Tone }> = {
  'order.accepted': { title: 'Accepted into the outbox', tone: 'neutral' },
  'order.withdrawn': { title: 'Withdrawn before sending', tone: 'neutral' },
  'order.retry-now': { title: 'Sent again on request', tone: 'neutral' },
  'order.held': { title: 'Held: set aside for a person to decide', tone: 'attention' },
  'order.set-aside': { title: 'Set aside after repeated failures', tone: 'attention' },
  'order.awaiting-access': {
    title: 'Waiting: the service refused every request (403), not this order',
    tone: 'waiting',
  },
  'order.cancel-declined': { title: 'Cancel not possible', tone: 'attention' },
  'order.interrupted': { title: 'Interrupted while sending (app stopped); in doubt until looked up', tone: 'waiting' },
  'order.lost-at-service': { title: 'Not found at the service on repeated lookups', tone: 'attention' },
  'order.found-at-service': { title: 'Found at the service again', tone: 'good' },
  'order.listed-differently': { title: 'Listed by the service under other ids (not taken)', tone: 'attention' },
};

/** Order of events at the same instant: the way they happen. */
const RANK: Record<string, number> = { origin: 0, imported: 1, audit: 2, attempt: 3, cancel: 4, status: 5 };

/**
 * The full history of one order from what this computer recorded (readable offline): the file line or HL7 message
 * it came from → accepted from its batch → each attempt → created with its pharmacy id → each remote status with
 * dispatch date and tracking id → cancel.
 */
export function buildTimeline(detail: OrderDetail): TimelineEvent[] {
  const { order } = detail;
  // Orders staged before review (the CLI's older path) are accepted later, with an entry of their own; the
  // others enter the outbox when their batch is accepted.
  const acceptedLater = detail.audit.some((entry) => entry.action === 'order.accepted');
  const events: Array<TimelineEvent & { rank: number }> = [
    { ...originEvent(detail.origin), rank: RANK.origin! },
    {
      key: 'imported',
      rank: RANK.imported!,
      at: order.createdAt,
      title: acceptedLater
        ? `Staged in batch ${order.batchId}`
        : `Accepted into the outbox from batch ${order.batchId}`,
      details: [`Route ${order.route === 'hl7' ? 'HL7' : order.route}`],
      tone: 'neutral',
    },
  ];

  const createRejected = detail.attempts.some((a) => a.operation === 'create' && a.outcome === 'rejected');
  for (const entry of detail.audit) {
    const known = AUDIT_TITLES[entry.action];
    // A rejection without an attempt (say, a duplicate found when accepting) has only its audit entry.
    const lonelyRejection = entry.action === 'order.rejected' && !createRejected;
    if (!known && !lonelyRejection) continue;
    const message = typeof entry.details.errorMessage === 'string' ? [entry.details.errorMessage] : [];
    events.push({
      key: `audit-${entry.seq}`,
      rank: RANK.audit!,
      at: entry.at,
      title: known?.title ?? 'Rejected',
      details: message,
      tone: known?.tone ?? 'attention',
    });
  }

  for (const attempt of detail.attempts) {
    const { title, tone, plain, extra } = describeAttempt(attempt);
    const technical = [...(!extra && attempt.errorMessage ? [attempt.errorMessage] : []), ...attemptFacts(attempt)];
    events.push({
      key: `attempt-${attempt.id}`,
      rank: RANK.attempt!,
      at: attempt.startedAt,
      title,
      details: [...(plain ? [plain] : []), ...(extra ? [extra] : [])],
      ...(technical.length ? { technical } : {}),
      tone,
    });
  }

  for (const status of detail.statusHistory) {
    const details: string[] = [];
    if (status.dispatchDate) details.push(`Dispatch date ${formatDate(status.dispatchDate)}`);
    if (status.trackingId) details.push(`Tracking id ${status.trackingId}`);
    events.push({
      key: `status-${status.id}`,
      rank: RANK.status!,
      at: status.observedAt,
      title: `Status: ${status.status}`,
      details,
      tone:
        status.status === 'Prescription Dispatched' || status.status === 'Prescription Processed' ? 'good' : 'neutral',
    });
  }

  for (const cancellation of detail.cancellations) {
    const outcome: Record<typeof cancellation.state, string> = {
      requested: 'Waiting to be sent',
      sent: 'Sent; waiting for the pharmacy to confirm',
      cancelled: 'Cancelled',
      refused: 'Refused',
    };
    events.push({
      key: `cancel-${cancellation.id}`,
      rank: RANK.cancel!,
      at: cancellation.requestedAt,
      title: 'Cancel requested',
      details: [
        `Reason: ${cancellation.reason}`,
        // A refusal's words are in its "Cancel refused" entry (and in plain words above): not said twice more.
        `Outcome: ${outcome[cancellation.state]}${cancellation.resultMessage && cancellation.state !== 'refused' ? `: ${cancellation.resultMessage}` : ''}`,
      ],
      tone: cancellation.state === 'refused' ? 'attention' : 'neutral',
    });
  }

  return collapseRepeats(
    events
      .map((event, index) => ({ event, index }))
      .sort(
        (a, b) => Date.parse(a.event.at) - Date.parse(b.event.at) || a.event.rank - b.event.rank || a.index - b.index,
      )
      .map(({ event: { rank: _rank, ...event } }) => event),
  );
}

/**
 * Attempts that failed alike one after another (a status check a second through an outage, a create retried) as
 * one line that says how many and until when: an hour's outage is otherwise thousands of the same line between
 * what the admin came to read. The last one's technical details are kept.
 */
function collapseRepeats(events: TimelineEvent[]): TimelineEvent[] {
  const out: Array<TimelineEvent & { repeats: number; lastAt: string }> = [];
  for (const event of events) {
    const previous = out[out.length - 1];
    if (
      previous &&
      event.key.startsWith('attempt-') &&
      previous.key.startsWith('attempt-') &&
      event.tone !== 'good' &&
      previous.title === event.title &&
      previous.details.join('\n') === event.details.join('\n')
    ) {
      previous.repeats += 1;
      previous.lastAt = event.at;
      if (event.technical) previous.technical = event.technical;
      else delete previous.technical;
      continue;
    }
    out.push({ ...event, repeats: 1, lastAt: event.at });
  }
  return out.map(({ repeats, lastAt, ...event }) =>
    repeats === 1
      ? event
      : { ...event, details: [...event.details, `${repeats} times in a row, the last at ${formatTime(lastAt)}.`] },
  );
}
