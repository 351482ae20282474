import type { EventPayload } from '../../../shared/contract.js';
import { startHostileIdentity, type HostileIdentity } from '../auth/testing/hostile-identity.js';
import { presetEnvironments } from '../environments/presets.js';
import { startHostileServer, type HostileServer, type Script } from '../service/testing/hostile-server.js';
import { sampleOrder } from '../store/testing/store-fixtures.js';
import { createdOrderIn } from '../tracking/testing/tracking-fixtures.js';
import { openTestCore, type TestCore } from './test-core.js';

/**
 * A core over the contract (`openTestCore`) with one remote environment, `environmentId`, whose Order Service is a
 * raw loopback server answering `answer` and whose identity provider is a real one's answer. It is signed in through
 * the session alone (a sign-in through the service would start the poller on its own), and every `attention` event
 * is kept in `attention`.
 */
export interface RemoteCore extends TestCore {
  service: HostileServer;
  idp: HostileIdentity;
  attention: Array<EventPayload<'attention'>>;
  /** An order in a batch of its own, created at the service with `pharmacyOrderId` as the submitter leaves it. */
  createdOrder(clinicOrderId: string, pharmacyOrderId: number): number;
}

export async function startRemoteCore(prefix: string, environmentId: string, answer: Script): Promise<RemoteCore> {
  const [service, idp] = await Promise.all([startHostileServer(answer), startHostileIdentity()]);
  const t = await openTestCore(prefix);
  const attention: Array<EventPayload<'attention'>> = [];
  t.core.events.subscribe('attention', (payload) => attention.push(payload));
  const { registry, store } = t.core.services;
  await registry.update({
    ...presetEnvironments()[1]!,
    kind: 'remote',
    id: environmentId,
    name: environmentId,
    apiBaseUrl: service.url,
    issuer: idp.issuer,
    clientId: 'client',
    grant: 'client_credentials',
  });
  await registry.session(environmentId).signInWithClientCredentials('secret');
  return {
    ...t,
    service,
    idp,
    attention,
    createdOrder(clinicOrderId, pharmacyOrderId) {
      const batch = store.batches.create({
        environmentId,
        sourceFileName: 'orders.json',
        kind: 'json',
        rowCount: 1,
        invalidCount: 0,
      });
      return createdOrderIn(store, batch.id, sampleOrder({ clinicOrderId }), pharmacyOrderId);
    },
    async close() {
      await t.close();
      await Promise.all([service.close(), idp.close()]);
    },
  };
}
