import { afterEach, describe, expect, it } from 'vitest';
import { ContractError } from '../../../shared/errors.js';
import { startHostileIdentity, type HostileIdentity } from '../auth/testing/hostile-identity.js';
import { presetEnvironments } from '../environments/presets.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';

/**
 * docs/security.md, finding 71: a device sign-in's user code comes from the identity server, and the contract's
 * answer shows at most 40 characters of it (`deviceSignInStartSchema`). A longer one made `signin.startDevice` an
 * answer outside the contract, while the sign-in it had started went on polling the identity server in the
 * background, unseen, until the code expired: the status said "waiting", and no one could ever enter the code. A
 * real core, a loopback identity server.
 */

const ENVIRONMENT = 'long-codes';
let t: TestCore | undefined;
let idp: HostileIdentity | undefined;
afterEach(async () => {
  await t?.close();
  await idp?.close();
  t = idp = undefined;
});

async function coreWithDevice(answer: Record<string, unknown>) {
  idp = await startHostileIdentity();
  const { issuer } = idp;
  idp.onDevice(() => ({
    status: 200,
    body: {
      device_code: 'device-code-1',
      user_code: 'ABCD-EFGH',
      verification_uri: `${issuer}/device`,
      expires_in: 600,
      interval: 1,
      ...answer,
    },
  }));
  idp.onToken(() => ({ status: 400, body: { error: 'authorization_pending' } }));
  t = await openTestCore('device-code-bounds');
  await t.core.services.registry.update({
    ...presetEnvironments()[1]!,
    kind: 'remote',
    id: ENVIRONMENT,
    name: ENVIRONMENT,
    apiBaseUrl: 'http://127.0.0.1:9/',
    issuer,
    clientId: 'client',
    grant: 'device',
  });
  return { t, idp };
}

async function refusal(call: Promise<unknown>): Promise<ContractError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ContractError);
  return error as ContractError;
}

describe('a device sign-in whose user code the contract cannot show', () => {
  it('a user code of 41 characters: refused in words, and nothing goes on polling', async () => {
    const { t, idp } = await coreWithDevice({ user_code: 'A'.repeat(41) });
    const error = await refusal(t.api.call('signin.startDevice', { environmentId: ENVIRONMENT }));
    // Before: code "internal", "signin.startDevice produced an answer outside the contract".
    expect(error.code).toBe('failed');
    expect(error.message).toMatch(/identity server.*user code.*40/);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    // Before: the sign-in was waiting, and polled the token endpoint every second.
    expect((await t.api.call('signin.status', { environmentId: ENVIRONMENT })).device).toBeNull();
    expect(idp.requests.filter((request) => request.path === '/token')).toEqual([]);
  });

  it('a usual answer still starts', async () => {
    const { t } = await coreWithDevice({ user_code: 'WXYZ-1234-ABCD-5678-EFGH-9012-IJKL-3456-' });
    const start = await t.api.call('signin.startDevice', { environmentId: ENVIRONMENT });
    expect(start.userCode).toHaveLength(40);
    await t.api.call('signin.cancelDevice', { environmentId: ENVIRONMENT });
  });
});
