import { Writable } from 'node:stream';
import type { CallHandlers } from '../../shared/contract.js';
import type { Environment } from '../../shared/environment.js';
import { ContractError, type ServiceResult } from '../../shared/errors.js';
import type { AppServices } from './app-services.js';
import { exportAuditLog } from './audit/export-log.js';
import { verifyAuditChain } from './audit/verify-chain.js';
import { checkConnection } from './connection-check.js';
import type { CallOutcome } from './service/client.js';
import { orderDetail, toAuditView, toOrderSummary, toProgressView } from './views.js';

type LegacyHandlers = Pick<CallHandlers, 'app.info'>;

/** The service's outcome without the call's bookkeeping, as the contract carries it. */
function result<T>(outcome: CallOutcome<T>): ServiceResult<T> {
  return outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.error };
}

/** Secured calls to an environment without a client id cannot succeed: say so without touching the network. */
function notConfigured(environment: Environment): ServiceResult<never> | undefined {
  if (environment.clientId) return undefined;
  return {
    ok: false,
    error: {
      kind: 'auth',
      status: 0,
      message: `${environment.name} has no client id yet: add the one CloudRx issued you, then sign in.`,
    },
  };
}

/** Collects an export into one string (the contract carries text; Electron can later stream to a file). */
class TextSink extends Writable {
  readonly chunks: string[] = [];
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    done();
  }
}

/**
 * One function per contract call, over the core's services. Inputs arrive parsed by the contract; outputs are
 * checked against it by the dispatch, so nothing here can leak a token or a request body by accident.
 */
export function buildHandlers(services: AppServices, base: LegacyHandlers): CallHandlers {
  const { registry, store, outbox, signin } = services;
  const known = (environmentId: string) => registry.get(environmentId);

  return {
    ...base,
    'environments.list': () => Promise.resolve(registry.list()),
    'connection.check': ({ environmentId }) =>
      checkConnection(environmentId, registry.client(environmentId, 'anonymous'), registry.session(environmentId)),
    'couriers.priceList': async ({ environmentId }) =>
      notConfigured(registry.get(environmentId)) ??
      result(await registry.client(environmentId, 'secured').courierPriceList()),
    'products.search': async ({ environmentId, searchTerm }) =>
      result(await registry.client(environmentId, 'anonymous').searchProducts(searchTerm)),

    'signin.status': ({ environmentId }) => {
      known(environmentId);
      return signin.status(environmentId);
    },
    'signin.startDevice': async ({ environmentId }) => {
      const environment = known(environmentId);
      if (environment.grant !== 'device') {
        throw new ContractError({
          code: 'invalid-input',
          message: `${environment.name} signs in with client credentials`,
        });
      }
      if (!environment.clientId) {
        throw new ContractError({ code: 'invalid-input', message: `${environment.name} has no client id yet` });
      }
      const started = await signin.startDevice(environmentId);
      return {
        userCode: started.userCode,
        verificationUri: started.verificationUri,
        verificationUriComplete: started.verificationUriComplete,
        expiresAt: started.expiresAt,
        interval: started.intervalSeconds,
      };
    },
    'signin.cancelDevice': ({ environmentId }) => {
      known(environmentId);
      return Promise.resolve({ cancelled: signin.cancelDevice(environmentId) });
    },
    'signin.clientCredentials': async ({ environmentId, clientSecret }) => {
      const environment = known(environmentId);
      if (environment.grant !== 'client_credentials') {
        throw new ContractError({ code: 'invalid-input', message: `${environment.name} signs in with device sign-in` });
      }
      return signin.clientCredentials(environmentId, clientSecret);
    },
    'signin.signOut': async ({ environmentId }) => {
      known(environmentId);
      await signin.signOut(environmentId);
      return signin.status(environmentId);
    },

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
    'outbox.retryNow': ({ orderIds }) => Promise.resolve({ count: outbox.retryNow(orderIds) }),

    'orders.list': ({ environmentId, states, clinicCode, clinicOrderId, afterId, limit }) => {
      const pageSize = limit ?? 100;
      const orders = store.orders.list({
        ...(environmentId !== undefined ? { environmentId } : {}),
        ...(states !== undefined ? { states } : {}),
        ...(clinicCode !== undefined ? { clinicCode } : {}),
        ...(clinicOrderId !== undefined ? { clinicOrderId } : {}),
        afterId: afterId ?? 0,
        limit: pageSize,
      });
      return Promise.resolve({
        orders: orders.map(toOrderSummary),
        nextAfterId: orders.length === pageSize ? orders[orders.length - 1]!.id : null,
      });
    },
    'orders.get': ({ orderId }) => {
      const detail = orderDetail(store, orderId);
      if (!detail) throw new ContractError({ code: 'invalid-input', message: `there is no order ${orderId}` });
      return Promise.resolve(detail);
    },
    'orders.cancel': ({ orderIds, reason }) => Promise.resolve({ results: services.cancelOrders(orderIds, reason) }),

    'log.list': ({ environmentId, orderId, action, beforeSeq, limit }) => {
      const pageSize = limit ?? 100;
      const entries = store.audit.search({
        ...(environmentId !== undefined ? { environmentId } : {}),
        ...(orderId !== undefined ? { orderId } : {}),
        ...(action !== undefined ? { action } : {}),
        ...(beforeSeq !== undefined ? { beforeSeq } : {}),
        limit: pageSize,
      });
      return Promise.resolve({
        entries: entries.map(toAuditView),
        nextBeforeSeq: entries.length === pageSize ? entries[entries.length - 1]!.seq : null,
      });
    },
    'log.verify': () => Promise.resolve(verifyAuditChain(store)),
    'log.export': async ({ format, unmask }) => {
      const sink = new TextSink();
      const { count } = await exportAuditLog(store, sink, { format, unmask: unmask ?? false });
      // After the snapshot: the export records itself, with whether identifiers were shown.
      store.audit.append({ actor: 'user', action: 'log.exported', details: { format, masked: !unmask } });
      return { format, masked: !unmask, count, text: sink.chunks.join('') };
    },
  };
}
