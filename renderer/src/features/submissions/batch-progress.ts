import type { OutboxProgressView } from '../../../../shared/outbox-views.js';
import { formatCount, formatRemaining } from '../format/format-time.js';
import { formatRate, summarizeProgress, type ProgressSummary } from './progress-summary.js';

export type BatchProgressView = NonNullable<OutboxProgressView['batches']>[number];

export interface BatchLine {
  batchId: number;
  /** "tuesday.csv (batch 12)", or "Batch 12" when its file is not known. */
  name: string;
  summary: ProgressSummary;
  /** "45 of 200 settled (22%) · 155 to go · 3.2 orders/s · about 0:48 left". */
  text: string;
  /** The time left in words, for a screen reader; null when there is none to say. */
  timeLeftWords: string | null;
}

/**
 * One batch's own progress: its N of M, its rate and the time left at that rate. Batches go out oldest first, so
 * the time left for a newer batch is counted after the older ones still sending (`ahead`: orders still to go in
 * older batches).
 */
export function describeBatch(batch: BatchProgressView, ahead = 0, held: string | null = null): BatchLine {
  const summary = summarizeProgress(batch.counts);
  const percent = Math.floor(summary.fraction * 100);
  const name = batch.fileName ? `${batch.fileName} (batch ${batch.batchId})` : `Batch ${batch.batchId}`;
  let left: { clock: string; words: string } | null = null;
  let when: string;
  if (summary.waiting === 0) when = 'done';
  else if (held) when = held;
  else if (batch.ordersPerSecond > 0) {
    left = formatRemaining(((summary.waiting + ahead) / batch.ordersPerSecond) * 1000);
    when = `about ${left.clock} left`;
  } else when = ahead > 0 ? 'waiting for the batches before it' : 'time left not known yet';
  const settled = `${formatCount(summary.settled)} of ${formatCount(summary.total)} settled (${percent}%)`;
  // Once done, the rate of its last seconds says nothing more.
  const parts =
    summary.waiting === 0
      ? [settled, when]
      : [settled, `${formatCount(summary.waiting)} to go`, formatRate(batch.ordersPerSecond), when];
  return {
    batchId: batch.batchId,
    name,
    summary,
    text: parts.join(' · '),
    timeLeftWords: left ? `about ${left.words} left` : null,
  };
}

/**
 * The batches as shown, newest first, each one's time left counting the older batches still to go; `held` says
 * why nothing goes now (paused, waiting for sign-in or the service) instead of a time left.
 */
export function describeBatches(batches: readonly BatchProgressView[], held: string | null = null): BatchLine[] {
  const oldestFirst = [...batches].sort((a, b) => a.batchId - b.batchId);
  let ahead = 0;
  const lines = oldestFirst.map((batch) => {
    const line = describeBatch(batch, ahead, held);
    ahead += line.summary.waiting;
    return line;
  });
  return lines.reverse();
}
