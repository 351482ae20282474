import type { ConnectionReport } from '../../shared/contract.js';
import type { AuthSession } from './auth/auth-session.js';
import type { OrderServiceClient } from './service/client.js';

/**
 * Answers "can this environment work?": the API answers an anonymous product search, and the identity server
 * publishes its discovery document with the grants the app needs. Neither needs a sign-in.
 */
export async function checkConnection(
  environmentId: string,
  anonymousClient: OrderServiceClient,
  session: AuthSession,
  now: () => Date = () => new Date(),
): Promise<ConnectionReport> {
  const [search, discovery] = await Promise.all([
    anonymousClient.searchProducts('connection-check'),
    session.checkDiscovery(),
  ]);
  const api: ConnectionReport['api'] = search.ok
    ? {
        reachable: true,
        latencyMs: search.meta.latencyMs,
        ...(search.meta.status !== undefined ? { status: search.meta.status } : {}),
        message: `The Order Service answered in ${Math.round(search.meta.latencyMs)} ms.`,
      }
    : {
        // A rejection still proves the service is there; only transport failures mean unreachable.
        reachable: search.error.kind === 'rejected' || search.error.kind === 'auth',
        ...(search.meta.status !== undefined ? { status: search.meta.status } : {}),
        latencyMs: search.meta.latencyMs,
        message: search.error.message,
      };
  return { environmentId, checkedAt: now().toISOString(), api, identity: discovery };
}
