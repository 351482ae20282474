import type { OutboxProgressView } from '../../../shared/outbox-views.js';
import type { OutboxProgress } from '../../core/outbox/progress.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError } from '../cli-errors.js';
import { ordersNeedingAttention } from './attention-states.js';
import { plural } from '../../../shared/count-words.js';

/** Progress lines at most this often on stderr. */
const PROGRESS_LINE_MS = 1000;

/**
 * Sends the environment's queued orders and cancel commands. With `--until-idle` it returns when nothing is
 * queued, sending or in doubt, or as soon as sending is blocked (sign-in required, service unavailable): a
 * scheduled run never hangs on an outage, and the next run carries on. Without it, it keeps sending and
 * tracking statuses until interrupted (SIGINT/SIGTERM), then stops cleanly.
 *
 * Stopping: requests still unanswered after a moment are abandoned (a create that may have arrived is recorded in
 * doubt and looked up by the next run), the summary is read, and the services close (the store, then the data
 * directory's lock) before the summary is printed: "Stopped." means nothing of this process writes any more.
 */
export async function submit(ctx: CliContext, environmentId: string, untilIdle: boolean): Promise<number> {
  const { outbox, poller, events, store } = ctx.services;
  await ctx.embeddedSandboxFor(environmentId);
  const environment = ctx.environment(environmentId);
  if (!environment.clientId) throw new InputError(`${environmentId} has no client id: run rx-batch env add`);

  let lastLine = 0;
  const offProgress = events.subscribe('outbox.progress', (progress) => {
    const now = Date.now();
    if (progress.environmentId !== environmentId || now - lastLine < PROGRESS_LINE_MS || ctx.options.json) return;
    lastLine = now;
    ctx.warn(progressLine(progress));
  });
  const offAttention = events.subscribe('attention', (attention) => {
    if (attention.environmentId === environmentId) ctx.warn(`attention: ${attention.message}`);
  });
  try {
    let outcome: 'idle' | 'blocked' | 'stopped' | 'interrupted';
    if (untilIdle) {
      try {
        outcome = (await outbox.runUntilIdle(environmentId, { signal: ctx.io.signal, stopWhenBlocked: true })).outcome;
      } catch (error) {
        if (!ctx.io.signal.aborted) throw error;
        outcome = 'interrupted';
      }
    } else {
      outbox.start(environmentId);
      poller.start(environmentId);
      if (!ctx.options.json) ctx.line(`Sending and tracking ${environmentId} until interrupted (Ctrl+C).`);
      // The outbox and poller sleep on timers that do not hold the process open when there is nothing to do:
      // a daemon must stay until it is told to stop.
      const keepAlive = setInterval(() => undefined, 60_000);
      await new Promise<void>((resolve) => {
        if (ctx.io.signal.aborted) resolve();
        else ctx.io.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      clearInterval(keepAlive);
      outcome = 'interrupted';
    }
    await outbox.stop();
    const progress = outbox.progress(environmentId);
    const attention = ordersNeedingAttention(store, environmentId);
    offProgress();
    offAttention();
    await ctx.close();
    if (ctx.options.json) {
      ctx.json({ environmentId, outcome, state: progress.state, message: progress.message, counts: progress.counts });
    } else {
      ctx.line(`${outcomeText(outcome)} ${progressLine(progress)}`);
      if (progress.message) ctx.line(progress.message);
      if (attention > 0)
        ctx.line(`${plural(attention, 'order')} ${attention === 1 ? 'needs' : 'need'} attention: see rx-batch status.`);
    }
    return outcome === 'idle' && attention === 0 ? EXIT.ok : EXIT.attention;
  } finally {
    offProgress();
    offAttention();
  }
}

function outcomeText(outcome: string): string {
  switch (outcome) {
    case 'idle':
      return 'Done.';
    case 'blocked':
      return 'Stopped: sending is blocked.';
    default:
      return 'Stopped.';
  }
}

function progressLine(progress: OutboxProgress | OutboxProgressView): string {
  const c = progress.counts;
  const parts = [
    `${c.created ?? 0} created`,
    `${c.queued ?? 0} queued`,
    `${(c.sending ?? 0) + (c.in_doubt ?? 0)} in flight or in doubt`,
    `${c.rejected ?? 0} rejected`,
    `${c.held ?? 0} held`,
  ];
  const { slow } = progress;
  const waiting = slow
    ? `; ${slow.requests} waiting on a slow service (longest ${Math.round(slow.longestMs / 1000)} s)`
    : '';
  return `[${progress.state}] ${parts.join(', ')} (${progress.ordersPerSecond}/s${waiting})`;
}
