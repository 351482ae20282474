import type { CliContext } from '../cli-context.js';
import { EXIT } from '../cli-errors.js';
import { listedDifferentlyNote } from '../../core/tracking/listed-differently.js';
import { lostAtServiceReason } from '../../core/tracking/lost-at-service.js';
import type { PollRound } from '../../core/tracking/status-poller.js';
import { ATTENTION_STATES } from './attention-states.js';

const PAGE = 1000;

/**
 * Why a refresh stopped with the service unavailable: answers that came back unreadable are not silence (a gateway's
 * sign-in page, a cut listing), and the last one's reason is what the admin needs to find what stands in the way.
 */
export function refreshStoppedWords(environmentId: string, round: PollRound): string {
  if (round.unreadable !== undefined) {
    return `${environmentId}: the service's answers could not be read (the last: ${round.unreadable}); statuses are as last seen`;
  }
  // A 5xx is an answer too: "did not answer" only for silence, and the reason either way.
  return round.failure !== undefined
    ? `${environmentId}: statuses could not be refreshed (${round.failure}); they are as last seen`
    : `${environmentId}: the service did not answer; statuses are as last seen`;
}

/**
 * Every order (of one environment with --env): clinic, clinic order id, local state, pharmacy order id and
 * the service's status, with why when it needs a person (refused, held, no longer found at the service, or listed
 * there under other ids: exit 1).
 * `--refresh` first asks the service (one lookup per open order, plus the date-range
 * endpoint for dispatch information). JSON output is one array, written as it is read.
 */
export async function status(ctx: CliContext, options: { refresh: boolean; environmentId?: string }): Promise<number> {
  const { registry, store, poller } = ctx.services;
  if (options.environmentId) ctx.environment(options.environmentId);
  let blocked = false;
  if (options.refresh) {
    const targets = options.environmentId ? [options.environmentId] : registry.configured().map((e) => e.id);
    for (const environmentId of targets) {
      await ctx.embeddedSandboxFor(environmentId);
      if (
        store.orders.list({
          environmentId,
          states: ['created', 'cancel_requested', 'cancel_sent', 'cancel_refused'],
          limit: 1,
        }).length === 0
      ) {
        continue;
      }
      const round = await poller.refresh(environmentId);
      if (round.stoppedBy === 'sign-in-required') {
        blocked = true;
        ctx.warn(`${environmentId}: sign-in required to refresh statuses (rx-batch login ${environmentId})`);
      } else if (round.stoppedBy === 'service-unavailable') {
        blocked = true;
        ctx.warn(refreshStoppedWords(environmentId, round));
      }
    }
  }

  let attention = 0;
  let first = true;
  if (ctx.options.json) ctx.jsonText('[');
  for (let afterId = 0; ;) {
    const page = store.orders.list({
      ...(options.environmentId ? { environmentId: options.environmentId } : {}),
      afterId,
      limit: PAGE,
    });
    for (const order of page) {
      // An order the service no longer finds, or lists under other ids, needs a person as much as a refused one,
      // whatever its state says.
      const serviceNote = lostAtServiceReason(order) ?? listedDifferentlyNote(order);
      if (ATTENTION_STATES.includes(order.state) || serviceNote) attention += 1;
      if (ctx.options.json) {
        const row = {
          id: order.id,
          environmentId: order.environmentId,
          batchId: order.batchId,
          clinicCode: order.clinicCode,
          clinicOrderId: order.clinicOrderId,
          state: order.state,
          pharmacyOrderId: order.pharmacyOrderId,
          remoteStatus: order.remoteStatus,
          dispatchDate: order.dispatchDate,
          trackingId: order.trackingId,
          lastError: order.lastError,
          notFoundAtService: order.notFound?.flaggedAt ? { ...order.notFound, reason: serviceNote } : null,
          listedDifferently: order.listedDifferently ? { ...order.listedDifferently, reason: serviceNote } : null,
        };
        ctx.jsonText(`${first ? '' : ','}\n${JSON.stringify(row)}`);
      } else {
        if (first) ctx.line('clinic          clinic order id          state             pharmacy id  remote status');
        ctx.line(
          [
            order.clinicCode.padEnd(15),
            order.clinicOrderId.padEnd(24),
            order.state.padEnd(17),
            String(order.pharmacyOrderId ?? '-').padEnd(12),
            order.remoteStatus ?? '-',
            order.trackingId ? `(${order.trackingId})` : '',
            order.lastError && ATTENTION_STATES.includes(order.state)
              ? `: ${order.lastError.message}${order.lastError.field ? ` (field ${order.lastError.field})` : ''}`
              : '',
            serviceNote ? `: ${serviceNote}` : '',
          ]
            .filter((part) => part !== '')
            .join(' '),
        );
      }
      first = false;
    }
    if (page.length < PAGE) break;
    afterId = page[page.length - 1]!.id;
  }
  if (ctx.options.json) ctx.jsonText(first ? ']\n' : '\n]\n');
  else if (first) ctx.line('No orders.');
  return attention > 0 || blocked ? EXIT.attention : EXIT.ok;
}
