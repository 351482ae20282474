import type { EnvironmentRemoval } from '../../../shared/environment-removal.js';
import type { EnvironmentProfile } from '../store/environments-repo.js';
import type { Store } from '../store/store.js';

/**
 * What removing an environment does, worked out from the store: removal is refused while anything of it is
 * unfinished (orders not sent, being sent, in doubt, cancel requests unanswered, batches waiting in Preview), so
 * nothing queued is lost silently; what is already sent is kept, with its history and audit entries.
 */

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

export function removalOf(store: Store, environment: EnvironmentProfile): EnvironmentRemoval {
  const counts = store.orders.countByState(environment.id);
  const stagedBatches = store.batches
    .list(environment.id)
    .filter((batch) => batch.discardedAt === null && store.stagedOrders.counts(batch.id).staged > 0).length;
  const waiting = {
    unsent: counts.ready + counts.queued + counts.held,
    sending: counts.sending,
    inDoubt: counts.in_doubt,
    cancelsOpen: counts.cancel_requested + counts.cancel_sent,
    stagedBatches,
    importing: store.batches.importingCount(environment.id),
  };
  const tracked = counts.created + counts.cancel_refused;
  const kept = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const name = environment.name;
  const found = { environmentId: environment.id, name, waiting, tracked, kept };
  if (environment.kind === 'local-sandbox') {
    return {
      ...found,
      removable: false,
      message: `${name} is the app's own sandbox: it cannot be removed.`,
    };
  }
  const blocking = [
    waiting.unsent && `${plural(waiting.unsent, 'order', 'orders')} not sent yet`,
    waiting.sending && `${plural(waiting.sending, 'order', 'orders')} being sent`,
    waiting.inDoubt && `${plural(waiting.inDoubt, 'order', 'orders')} in doubt (sent, no answer yet)`,
    waiting.cancelsOpen && `${plural(waiting.cancelsOpen, 'cancel request', 'cancel requests')} not answered yet`,
    waiting.stagedBatches &&
      `${plural(waiting.stagedBatches, 'batch', 'batches')} in Preview with orders not accepted or discarded`,
    waiting.importing && `${plural(waiting.importing, 'file', 'files')} being imported`,
  ].filter((text): text is string => typeof text === 'string');
  if (blocking.length > 0) {
    return {
      ...found,
      removable: false,
      message:
        `${name} cannot be removed yet: it has ${blocking.join(', ')}. ` +
        'Let them finish, or cancel or withdraw them on the Orders screen (and accept or discard the batches in ' +
        'Preview), then remove it.',
    };
  }
  const keptText =
    kept === 0
      ? 'It has no orders.'
      : (kept === 1
          ? 'Its 1 order is kept with its history and audit entries: the Log still lists it, and Orders shows it '
          : `Its ${kept} orders are kept with their history and audit entries: the Log still lists them, and Orders ` +
            'shows them ') +
        'again if an environment with the same id is added back.' +
        (tracked > 0
          ? ` The status of ${plural(tracked, 'order', 'orders')} still at the service will no longer be checked.`
          : '');
  return {
    ...found,
    removable: true,
    message: `Removing ${name} signs it out and deletes its saved sign-in and client secret. ${keptText}`,
  };
}
