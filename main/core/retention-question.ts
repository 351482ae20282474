import type { StagedDays } from '../../shared/retention-contract.js';
import type { RetentionDrops } from './store/retention-preview.js';

/**
 * The question before a shorter retention time is saved in the desktop app (docs/security.md, finding 21): what it
 * drops, counted by the store, in words the native dialog shows as they are. The page cannot draw or answer it.
 */

export interface RetentionQuestion {
  /** The shorter time asked for. */
  days: number;
  /** The time now; null: kept for ever. */
  previousDays: number | null;
  /** What saving it drops, and that it cannot be undone. */
  message: string;
}

const numbers = new Intl.NumberFormat('en-GB');
const count = (n: number, one: string, many = `${one}s`) => `${numbers.format(n)} ${n === 1 ? one : many}`;
/** The day in UTC, as the store keeps its times: the same on every machine and in the Log. */
const day = (iso: string) => iso.slice(0, 10);

/** "for ever", "for 1 day", "for 30 days". */
export const keptFor = (days: StagedDays) => (days === null ? 'for ever' : `for ${count(days, 'day')}`);

/** Whether `next` drops copies sooner than `current` does: fewer days, or any days after "for ever". */
export function shortensRetention(current: StagedDays, next: StagedDays): next is number {
  return next !== null && (current === null || next < current);
}

export function retentionQuestion(days: number, previousDays: number | null, drops: RetentionDrops): RetentionQuestion {
  const lines = [
    `Imported file copies would be kept ${keptFor(days)}, not ${previousDays === null ? 'for ever' : count(previousDays, 'day')}.`,
  ];
  if (drops.orders > 0 && drops.firstAcceptedAt && drops.lastAcceptedAt) {
    const first = day(drops.firstAcceptedAt);
    const last = day(drops.lastAcceptedAt);
    const when = first === last ? `accepted on ${first}` : `accepted from ${first} to ${last}`;
    lines.push(
      `Within a few minutes, the copies of ${count(drops.orders, 'finished order')} in ` +
        `${count(drops.batches, 'batch', 'batches')}, ${when}, are dropped: their file lines or HL7 messages, ` +
        'staged bodies, problems and provenance.',
    );
  }
  if (drops.discardedOrders > 0) {
    lines.push(
      `${count(drops.discardedOrders, 'never-accepted order')} of ` +
        `${count(drops.discardedBatches, 'discarded batch', 'discarded batches')} ` +
        `${drops.discardedOrders === 1 ? 'is' : 'are'} deleted.`,
    );
  }
  lines.push(
    drops.orders + drops.discardedOrders > 0
      ? 'They cannot be brought back. The orders, their statuses and the Log stay.'
      : `Nothing is dropped now; from now on, copies go ${count(days, 'day')} after an order is accepted, once it is ` +
          'finished, and cannot be brought back.',
  );
  return { days, previousDays, message: lines.join('\n\n') };
}
