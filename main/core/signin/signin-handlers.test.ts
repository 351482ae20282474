import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS, DEFAULT_SENDING_PACE, ORDER_SERVICE_SCOPES } from '../../../shared/environment.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';

// An admin whose identity server cannot be reached is told that, in the words the connection check uses, not
// "signin.startDevice failed inside the app" (issue #13, "Environments that stay put").
describe('signin.startDevice when the identity server is unreachable', () => {
  let testCore: TestCore;

  beforeAll(async () => {
    testCore = await openTestCore('signin-unreachable');
    await testCore.api.call('environments.save', {
      create: true,
      environment: {
        id: 'people',
        name: 'People',
        kind: 'remote',
        // Port 1 on this computer: nothing listens there, so the connection is refused at once.
        apiBaseUrl: 'http://127.0.0.1:1/',
        issuer: 'http://127.0.0.1:1',
        clientId: 'device-client',
        grant: 'device',
        scopes: [...ORDER_SERVICE_SCOPES],
        createWithClinicVersion: 'v1',
        requestTimeoutMs: 5_000,
        codeLists: DEFAULT_CODE_LISTS,
        ...DEFAULT_SENDING_PACE,
      },
    });
  });

  afterAll(async () => {
    await testCore.close();
  });

  it('fails with the real cause, as the connection check says it', async () => {
    const failure = await testCore.api.call('signin.startDevice', { environmentId: 'people' }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'failed' });
    const message = (failure as Error).message;
    expect(message).toMatch(/identity server/i);
    expect(message).not.toMatch(/inside the app/);
    const check = await testCore.api.call('connection.check', { environmentId: 'people' });
    expect(check.identity.reachable).toBe(false);
  });
});
