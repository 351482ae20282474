import type { CallHandlers } from '../../../shared/contract.js';
import type { AppServices } from '../app-services.js';
import { toProgressView } from '../views.js';

type OutboxCallName = 'outbox.progress' | 'outbox.pause' | 'outbox.resume' | 'outbox.retryNow';

/** The outbox calls of the contract: its progress, pause and resume, and "retry now". */
export function buildOutboxHandlers(services: AppServices): Pick<CallHandlers, OutboxCallName> {
  const { registry, outbox } = services;
  const known = (environmentId: string) => registry.get(environmentId);
  return {
    'outbox.progress': ({ environmentId }) => {
      known(environmentId);
      return Promise.resolve(toProgressView(outbox.progress(environmentId)));
    },
    'outbox.pause': ({ environmentId }) => {
      known(environmentId);
      // The outbox audits the pause and the resume itself.
      outbox.pause(environmentId, 'Paused by the admin.');
      return Promise.resolve(toProgressView(outbox.progress(environmentId)));
    },
    'outbox.resume': ({ environmentId }) => {
      known(environmentId);
      outbox.resume(environmentId);
      return Promise.resolve(toProgressView(outbox.progress(environmentId)));
    },
    'outbox.retryNow': ({ orderIds }) => Promise.resolve({ count: services.retryNow(orderIds) }),
  };
}
