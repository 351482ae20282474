import {
  createOrderServiceClient,
  type OrderServiceClient,
  type OrderServiceClientOptions,
} from '../../main/core/service/client.js';
import type { RunningSandbox } from '../../sandbox/index.js';
import { clientCredentialsTokenSource } from './client-credentials.js';

/**
 * An Order Service client of a running sandbox, as the tests use it: signed in with the sandbox's service account
 * (a fresh token source each call), a 10 s deadline, the v1 create path; `overrides` win.
 */
export function sandboxServiceClient(
  sandbox: RunningSandbox,
  overrides: Partial<OrderServiceClientOptions> = {},
): OrderServiceClient {
  return createOrderServiceClient({
    apiBaseUrl: sandbox.apiUrl,
    tokens: clientCredentialsTokenSource({ issuer: sandbox.issuer, ...sandbox.serviceClient }),
    timeoutMs: 10_000,
    userAgent: 'RxBatch/0.1.0-test',
    createWithClinicVersion: 'v1',
    ...overrides,
  });
}
