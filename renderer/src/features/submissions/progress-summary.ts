import type { OrderStateName } from '../../../../shared/order-views.js';
import type { OutboxProgressView } from '../../../../shared/outbox-views.js';
import { formatCount } from '../format/format-time.js';

export interface ProgressSummary {
  /** Accepted orders (staged and withdrawn ones are not part of the batch's progress). */
  total: number;
  /** Orders the service has answered for good: created (and what followed), rejected, held. */
  settled: number;
  /** Still to go: queued, being sent, or in doubt. */
  waiting: number;
  /** Settled as created (or cancelled afterwards). */
  succeeded: number;
  /** Need a person: rejected, held, cancel refused, and `noted` others (their lookups need one). */
  needsAttention: number;
  /** 0 to 1; 1 when there is nothing to do. */
  fraction: number;
}

const WAITING: readonly OrderStateName[] = ['queued', 'sending', 'in_doubt'];
const SUCCEEDED: readonly OrderStateName[] = [
  'created',
  'cancel_requested',
  'cancel_sent',
  'cancelled',
  'cancel_refused',
];
const ATTENTION: readonly OrderStateName[] = ['rejected', 'held', 'cancel_refused'];
const OUTSIDE: readonly OrderStateName[] = ['ready', 'withdrawn'];

const sum = (counts: OutboxProgressView['counts'], states: readonly OrderStateName[]) =>
  states.reduce((total, state) => total + (counts[state] ?? 0), 0);

export function summarizeProgress(counts: OutboxProgressView['counts'], noted = 0): ProgressSummary {
  const all = Object.values(counts).reduce((total, n) => total + (n ?? 0), 0);
  const total = all - sum(counts, OUTSIDE);
  const waiting = sum(counts, WAITING);
  const settled = total - waiting;
  return {
    total,
    settled,
    waiting,
    succeeded: sum(counts, SUCCEEDED),
    needsAttention: sum(counts, ATTENTION) + noted,
    fraction: total === 0 ? 1 : settled / total,
  };
}

/** The orders that wait for a person (as the list below the progress line shows them), as that line says them. */
export function needPerson(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'needs' : 'need'} a person (below)`;
}

/** Orders per second for the eye: one decimal below 10, whole numbers above. */
export function formatRate(ordersPerSecond: number): string {
  if (ordersPerSecond <= 0) return '0 orders/s';
  return `${ordersPerSecond < 10 ? ordersPerSecond.toFixed(1) : Math.round(ordersPerSecond)} orders/s`;
}

/**
 * The sentence for requests waiting on a slow service (in flight longer than 5 s), or null when none is. Each such
 * request holds one of the environment's request slots until it is answered or times out, so it says whether
 * sending still goes on beside them.
 */
export function slowServiceSentence(slow: OutboxProgressView['slow']): string | null {
  if (!slow) return null;
  const { requests, slots } = slow;
  const longest = Math.max(1, Math.round(slow.longestMs / 1000));
  const waiting =
    requests === 1
      ? `1 request is waiting on a slow service (longest ${longest} s).`
      : `${requests} requests are waiting on a slow service (longest ${longest} s).`;
  const free = slots - requests;
  const rest =
    free > 0
      ? ` Sending goes on in the other ${free === 1 ? 'slot' : `${free} slots`} meanwhile.`
      : ` ${slots === 1 ? 'The only sending slot is' : `All ${slots} sending slots are`} taken, so nothing else goes until the service answers or the request times out.`;
  return `${waiting}${rest} Nothing is sent twice: an order without an answer is looked up before it is sent again.`;
}
