import { Writable } from 'node:stream';
import type { CallHandlers } from '../../shared/contract.js';
import type { Environment } from '../../shared/environment.js';
import { ContractError, type ServiceResult } from '../../shared/errors.js';
import type { AppServices } from './app-services.js';
import { exportAuditLog } from './audit/export-log.js';
import { checkConnection } from './connection-check.js';
import { identityChange, type DesktopIntegration } from './desktop-handlers.js';
import { buildEnrichmentHandlers } from './enrichment/enrichment-handlers.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import { identityOf, sameIdentity } from './environments/registry.js';
import { lookUpOrders } from './lookup/order-lookup.js';
import { refreshOrder } from './lookup/refresh-order.js';
import { buildStagingHandlers } from './staging/staging-handlers.js';
import type { CallOutcome } from './service/client.js';
import { orderDetail, toAuditView, toOrderSummary, toProgressView, viewOrderSource } from './views.js';

/** Calls whose handlers the caller builds: app.info and the desktop calls (desktop-handlers.ts). */
type LegacyHandlers = Pick<CallHandlers, 'app.info' | 'files.choose' | 'import.takeRequested' | 'app.openDataFolder'>;

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

function productRef(productId: number | undefined, dmdCode: string | undefined) {
  return { ...(productId !== undefined ? { productId } : {}), ...(dmdCode !== undefined ? { dmdCode } : {}) };
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
export function buildHandlers(
  services: AppServices,
  base: LegacyHandlers,
  desktop?: Pick<DesktopIntegration, 'confirmIdentityChange'>,
): CallHandlers {
  const { registry, store, outbox, signin } = services;
  const known = (environmentId: string) => registry.get(environmentId);

  return {
    ...base,
    ...buildStagingHandlers(services),
    ...buildEnrichmentHandlers(services),
    'environments.list': () => Promise.resolve(registry.list()),
    'connection.check': ({ environmentId }) =>
      checkConnection(environmentId, registry.client(environmentId, 'anonymous'), registry.session(environmentId)),
    'couriers.priceList': async ({ environmentId }) =>
      notConfigured(registry.get(environmentId)) ??
      result(await registry.client(environmentId, 'secured').courierPriceList()),
    'products.search': async ({ environmentId, searchTerm }) =>
      result(await registry.client(environmentId, 'anonymous').searchProducts(searchTerm)),
    'products.stock': async ({ environmentId, productId, dmdCode }) =>
      notConfigured(registry.get(environmentId)) ??
      result(await registry.client(environmentId, 'secured').stockCheck(productRef(productId, dmdCode))),
    'products.price': async ({ environmentId, productId, dmdCode, totalPacks }) =>
      notConfigured(registry.get(environmentId)) ??
      result(await registry.client(environmentId, 'secured').priceCheck(productRef(productId, dmdCode), totalPacks)),

    'environments.save': async ({ environment, create }) => {
      const existing = registry.find(environment.id);
      if (create && existing) {
        throw new ContractError({
          code: 'invalid-input',
          message: `there is already an environment with the id "${environment.id}"`,
        });
      }
      if (!create && !existing) {
        throw new ContractError({ code: 'invalid-input', message: `no environment with id "${environment.id}"` });
      }
      if (create && environment.kind !== 'remote') {
        throw new ContractError({ code: 'invalid-input', message: 'only remote environments can be added' });
      }
      // The local sandbox's URLs, client and grant are filled in by the app each time it starts the sandbox.
      const profile =
        existing?.kind === 'local-sandbox' || existing?.id === LOCAL_SANDBOX_ID
          ? {
              ...environment,
              kind: existing.kind,
              apiBaseUrl: existing.apiBaseUrl,
              issuer: existing.issuer,
              clientId: existing.clientId,
              grant: existing.grant,
            }
          : { ...environment, kind: existing?.kind ?? environment.kind };
      const repointed = existing !== undefined && !sameIdentity(identityOf(existing), identityOf(profile));
      if (repointed || !existing) {
        // Script in the page must not add or re-point an environment alone: the desktop asks the admin.
        const confirmed = desktop ? await desktop.confirmIdentityChange(identityChange(existing, profile)) : true;
        if (!confirmed) {
          throw new ContractError({
            code: 'forbidden',
            message: existing
              ? `${existing.name} was not changed: its new address or client was not confirmed.`
              : `${profile.name} was not added: its address was not confirmed.`,
          });
        }
      }
      await registry.update(profile);
      // Orders queued for the old address must not leave for the new one unless the admin says so (a page's script
      // could re-point and sign in at a server of its own): sending waits for an explicit resume.
      if (repointed) {
        outbox.pause(
          profile.id,
          `${profile.name} now points to ${identityOf(profile).apiOrigin}: check the address, then resume to send queued orders there.`,
        );
      }
      store.audit.append({
        actor: 'user',
        action: create ? 'environment.added' : 'environment.edited',
        environmentId: profile.id,
        details: { grant: profile.grant },
      });
      // A profile that can now sign in starts sending and tracking (sign-in required until someone signs in).
      if (profile.clientId) services.startEnvironment(profile.id);
      const environments = registry.list();
      services.events.emit('environments.changed', environments);
      const saved = environments.find((candidate) => candidate.id === profile.id);
      if (!saved) throw new Error(`environment ${profile.id} was not stored`);
      return saved;
    },

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

    'orders.list': ({
      environmentId,
      states,
      clinicCode,
      clinicOrderId,
      remoteStatus,
      createdFrom,
      createdTo,
      patientSurname,
      afterId,
      limit,
    }) => {
      const pageSize = limit ?? 100;
      const orders = store.orders.list({
        ...(environmentId !== undefined ? { environmentId } : {}),
        ...(states !== undefined ? { states } : {}),
        ...(clinicCode !== undefined ? { clinicCode } : {}),
        ...(clinicOrderId !== undefined ? { clinicOrderId } : {}),
        ...(remoteStatus !== undefined ? { remoteStatus } : {}),
        ...(createdFrom !== undefined ? { createdFrom } : {}),
        ...(createdTo !== undefined ? { createdTo } : {}),
        ...(patientSurname !== undefined ? { patientSurname } : {}),
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
    'orders.source': async ({ orderId }) => {
      // Which front end asked is what app.info says of this core (the desktop app, browser mode, direct calls).
      const { transport } = await base['app.info']({});
      const source = viewOrderSource(store, orderId, transport);
      if (source) return source;
      const known = store.orders.get(orderId) !== undefined;
      throw new ContractError({
        code: 'invalid-input',
        message: known
          ? `order ${orderId} has no kept source text (imported from JSON or before the app kept each order's source)`
          : `there is no order ${orderId}`,
      });
    },
    'orders.cancel': ({ orderIds, reason }) => Promise.resolve({ results: services.cancelOrders(orderIds, reason) }),
    'orders.refresh': async ({ environmentId, orderId }) => {
      known(environmentId);
      if (orderId !== undefined) {
        const order = store.orders.get(orderId);
        if (order?.environmentId !== environmentId) {
          throw new ContractError({
            code: 'invalid-input',
            message: `there is no order ${orderId} in ${environmentId}`,
          });
        }
        const one = await refreshOrder(store, registry.client(environmentId, 'secured'), orderId, () => new Date());
        if (one.changed.length > 0) services.events.emit('orders.changed', { environmentId, orderIds: one.changed });
        return {
          checked: one.checked,
          changed: one.changed.length,
          stoppedBy: one.stoppedBy,
          at: new Date().toISOString(),
        };
      }
      const round = await services.poller.refresh(environmentId);
      return {
        checked: round.checked,
        changed: round.changed.length,
        stoppedBy: round.stoppedBy ?? null,
        at: new Date().toISOString(),
      };
    },
    'orders.lookup': ({ environmentId, query }) => {
      const environment = known(environmentId);
      const refused = notConfigured(environment);
      if (refused && !refused.ok) return Promise.resolve({ windows: [], records: [], error: refused.error });
      return lookUpOrders(store, environmentId, registry.client(environmentId, 'secured'), query);
    },

    'log.list': ({ environmentId, orderId, action, search, beforeSeq, limit }) => {
      const pageSize = limit ?? 100;
      const entries = store.audit.search({
        ...(environmentId !== undefined ? { environmentId } : {}),
        ...(orderId !== undefined ? { orderId } : {}),
        ...(action !== undefined ? { action } : {}),
        ...(search !== undefined ? { search } : {}),
        ...(beforeSeq !== undefined ? { beforeSeq } : {}),
        limit: pageSize,
      });
      return Promise.resolve({
        entries: entries.map(toAuditView),
        nextBeforeSeq: entries.length === pageSize ? entries[entries.length - 1]!.seq : null,
      });
    },
    'log.verify': () => Promise.resolve(services.verifyAuditLog()),
    'log.export': async ({ format, unmask }) => {
      const sink = new TextSink();
      const { count } = await exportAuditLog(store, sink, { format, unmask: unmask ?? false });
      // After the snapshot: the export records itself, with whether identifiers were shown and how many entries.
      store.audit.append({
        actor: 'user',
        action: 'log.exported',
        details: { format, masked: !unmask, rowCount: count },
      });
      return { format, masked: !unmask, count, text: sink.chunks.join('') };
    },
  };
}
