import { REQUEUEABLE } from '../../core/outbox/outbox.js';
import type { OrderRecord } from '../../core/store/orders-repo.js';
import type { OrderState } from '../../core/store/order-state.js';
import { plural } from '../../../shared/count-words.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError, UsageError } from '../cli-errors.js';

/** As the app's order lists take a clinic order id. */
const MAX_CLINIC_ORDER_ID = 64;
/** Held orders read a page at a time (`--held`): a firewall's 403 storm may have held every order of a day. */
const PAGE = 500;

export interface RetryArgs {
  clinicOrderIds: string[];
  held: boolean;
  environmentId?: string;
  clinicCode?: string;
}

interface RetryResult {
  orderId: number;
  environmentId: string;
  clinicCode: string;
  clinicOrderId: string;
  /** `released`: back in the queue; `not-held`: its state is not one retry releases; `not-released`: refused. */
  outcome: 'released' | 'not-held' | 'not-released';
  /** Its state before. */
  from: OrderState;
  /** Its state now. */
  state: OrderState;
  reason?: string;
}

/**
 * Releases held orders (and rejected ones named by clinic order id) back to the queue, or to be looked up first when
 * a send of one once got no clear answer: the app's "Send again now",
 * through the same core call (AppServices.retryNow: its state rules and its `order.retry-now` audit entry, the
 * admin as actor). Nothing is sent here: `submit` or `serve` sends them.
 */
export function retry(ctx: CliContext, args: RetryArgs): number {
  if (args.held && args.clinicOrderIds.length > 0) {
    throw new UsageError('give CLINIC_ORDER_ID... or --held, not both');
  }
  if (!args.held && args.clinicOrderIds.length === 0) {
    throw new UsageError('rx-batch retry takes CLINIC_ORDER_ID... or --held --env ENV');
  }
  for (const [option, value] of [
    ['--env', args.environmentId],
    ['--clinic', args.clinicCode],
  ] as const) {
    if (value === '') throw new UsageError(`${option} was given an empty value`);
  }
  if (args.held && !args.environmentId)
    throw new UsageError('--held needs --env ENV: the environment whose held orders to release');
  if (args.environmentId) ctx.environment(args.environmentId);

  const results = args.held ? releaseAllHeld(ctx, args.environmentId!, args.clinicCode) : releaseNamed(ctx, args);
  report(ctx, results, args);
  return results.every((result) => result.outcome === 'released') ? EXIT.ok : EXIT.attention;
}

/** Every clinic order id resolved first: one unknown or ambiguous and nothing is released (exit 2). */
function releaseNamed(ctx: CliContext, args: RetryArgs): RetryResult[] {
  const orders: OrderRecord[] = [];
  for (const clinicOrderId of new Set(args.clinicOrderIds)) orders.push(...ordersOf(ctx, clinicOrderId, args));
  return orders.map((order) => release(ctx, order));
}

function ordersOf(ctx: CliContext, clinicOrderId: string, args: RetryArgs): OrderRecord[] {
  if (clinicOrderId.length === 0 || clinicOrderId.length > MAX_CLINIC_ORDER_ID) {
    throw new UsageError(
      `CLINIC_ORDER_ID is 1 to ${MAX_CLINIC_ORDER_ID} characters, not ${clinicOrderId.length} ("${clinicOrderId.slice(0, 40)}")`,
    );
  }
  const matches = ctx.services.store.orders.list({
    clinicOrderId,
    ...(args.environmentId ? { environmentId: args.environmentId } : {}),
    ...(args.clinicCode ? { clinicCode: args.clinicCode } : {}),
    limit: 100,
  });
  if (matches.length === 0) {
    const where = [args.environmentId, args.clinicCode].filter(Boolean).join(' / ');
    throw new InputError(`no order has clinic order id ${clinicOrderId}${where ? ` in ${where}` : ''}`);
  }
  const places = new Set(matches.map((o) => `${o.environmentId} / ${o.clinicCode}`));
  if (places.size > 1) {
    throw new InputError(
      `clinic order id ${clinicOrderId} is in ${[...places].join(', ')}: say which with --env and --clinic`,
    );
  }
  return matches;
}

/** Page by page: a released order leaves `held`, and the next page starts after the last id seen. */
function releaseAllHeld(ctx: CliContext, environmentId: string, clinicCode: string | undefined): RetryResult[] {
  const results: RetryResult[] = [];
  for (let afterId = 0; ;) {
    const page = ctx.services.store.orders.list({
      environmentId,
      states: ['held'],
      ...(clinicCode ? { clinicCode } : {}),
      afterId,
      limit: PAGE,
    });
    for (const order of page) results.push(release(ctx, order));
    if (page.length < PAGE) return results;
    afterId = page[page.length - 1]!.id;
  }
}

function release(ctx: CliContext, order: OrderRecord): RetryResult {
  const base = {
    orderId: order.id,
    environmentId: order.environmentId,
    clinicCode: order.clinicCode,
    clinicOrderId: order.clinicOrderId,
    from: order.state,
  };
  // Only held and rejected ones are given to the core: for a queued or in-doubt order "retry now" would clear its
  // wait, which is not a release and not what the admin asked for.
  if (!REQUEUEABLE.includes(order.state)) return { ...base, outcome: 'not-held', state: order.state };
  const released = ctx.services.retryNow([order.id]) === 1;
  const state = ctx.services.store.orders.get(order.id)?.state ?? order.state;
  if (released) return { ...base, outcome: 'released', state };
  // The core skips a rejected order whose clinic order id was accepted again meanwhile (the newer one goes).
  return {
    ...base,
    outcome: 'not-released',
    state,
    reason:
      state === order.state
        ? `another order with clinic order id ${order.clinicOrderId} of ${order.clinicCode} is in the outbox`
        : `it became ${state} meanwhile`,
  };
}

/** What a released order waits for: its state after the release (outbox.ts `retryNow`). */
function releasedTo(state: OrderState): string {
  return state === 'in_doubt'
    ? 'to be looked up first (a send of it once got no clear answer), and sent again only if the service does not have it'
    : 'queued again';
}

function report(ctx: CliContext, results: RetryResult[], args: RetryArgs): void {
  const released = results.filter((result) => result.outcome === 'released');
  const environments = [...new Set(released.map((result) => result.environmentId))];
  const sentBy = environments.map((id) => `rx-batch submit --env ${id} --until-idle (or serve --env ${id})`);
  if (ctx.options.json) {
    ctx.json({ released: released.length, orders: results, sentBy });
    return;
  }
  if (args.held && results.length === 0) {
    ctx.line(`No held orders in ${args.environmentId}${args.clinicCode ? ` / ${args.clinicCode}` : ''}.`);
    return;
  }
  for (const result of results) {
    const text =
      result.outcome === 'released'
        ? `released (it was ${result.from}): ${releasedTo(result.state)}`
        : result.outcome === 'not-held'
          ? `not held: it is ${result.state}`
          : `not released: ${result.reason ?? ''}`;
    ctx.line(
      `${result.clinicOrderId} (order ${result.orderId}, ${result.environmentId} / ${result.clinicCode}): ${text}`,
    );
  }
  if (released.length === 0) ctx.line('Nothing released.');
  else
    ctx.line(
      `${plural(released.length, 'order')} released, not sent; ${sentBy.join('; ')} sends ${released.length === 1 ? 'it' : 'them'}.`,
    );
}
