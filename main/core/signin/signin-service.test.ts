import { afterEach, describe, expect, it, vi } from 'vitest';
import { ORDER_SERVICE_SCOPES } from '../../../shared/environment.js';
import { startIdentity, type RunningIdentity } from '../../../sandbox/identity/index.js';
import type { DeviceLogin, DeviceLoginResult } from '../auth/auth-session.js';
import { MemorySecretStore } from '../platform/secret-store.js';
import { EnvironmentRegistry } from '../environments/registry.js';
import { silentLogger } from '../platform/logger.js';
import type { Store } from '../store/store.js';
import { LOCAL, removeDir, storeWithBatch } from '../store/testing/store-fixtures.js';
import { SignInService, type SignInChange } from './signin-service.js';

let store: Store | undefined;
let dataDir: string | undefined;
let identity: RunningIdentity | undefined;
afterEach(async () => {
  store?.close();
  if (dataDir) removeDir(dataDir);
  await identity?.close();
  store = dataDir = identity = undefined;
});

describe('SignInService', () => {
  it('reports an unfinished device sign-in as expired, with the audit entry, and does not resume anything', async () => {
    identity = await startIdentity({ apiAudience: 'http://127.0.0.1:9/', deviceCodeTtlSeconds: 2 });
    ({ store, dataDir } = storeWithBatch());
    const s = store;
    const registry = new EnvironmentRegistry(s, {
      secrets: new MemorySecretStore(),
      logger: silentLogger,
      userAgent: 'test',
    });
    await registry.update({
      ...LOCAL,
      id: 'people',
      kind: 'remote',
      issuer: identity.issuer,
      clientId: identity.deviceClient.clientId,
      grant: 'device',
      scopes: [...ORDER_SERVICE_SCOPES],
    });
    const changes: SignInChange[] = [];
    const signedIn = vi.fn();
    const service = new SignInService({ registry, store: s, onChange: (c) => changes.push(c), onSignedIn: signedIn });

    const started = await service.startDevice('people');
    expect(await service.status('people')).toMatchObject({ signedIn: false, device: { state: 'waiting' } });
    expect(await started.result).toEqual({ outcome: 'expired' });
    expect(changes.map((c) => c.state)).toEqual(['waiting', 'expired']);
    expect(changes[1]!.message).toMatch(/expired before sign-in was completed/);
    expect((await service.status('people')).device).toBeNull();
    expect(signedIn).not.toHaveBeenCalled();
    expect(s.audit.search({ action: 'signin.' })[0]).toMatchObject({
      environmentId: 'people',
      details: { grant: 'device', outcome: 'expired' },
    });
  });

  it('passes slow-down on with the longer interval, and resumes work when the sign-in succeeds', async () => {
    ({ store, dataDir } = storeWithBatch());
    let finish: (result: DeviceLoginResult) => void = () => undefined;
    // The identity server's side is covered by the auth tests; here a session stands in to say "slow down".
    const session = {
      startDeviceLogin(options: { onPoll?: (reply: 'pending' | 'slow-down') => void }): Promise<DeviceLogin> {
        setTimeout(() => options.onPoll?.('slow-down'), 5);
        return Promise.resolve({
          userCode: 'ABCD-EFGH',
          verificationUri: 'http://127.0.0.1:1/device',
          expiresAt: Date.now() + 60_000,
          interval: 1,
          result: new Promise<DeviceLoginResult>((resolve) => (finish = resolve)),
          cancel: () => finish({ outcome: 'cancelled' }),
        });
      },
    };
    const registry = { session: () => session } as unknown as EnvironmentRegistry;
    const changes: SignInChange[] = [];
    const signedIn = vi.fn();
    const service = new SignInService({ registry, store, onChange: (c) => changes.push(c), onSignedIn: signedIn });

    const started = await service.startDevice(LOCAL.id);
    await vi.waitFor(() => expect(changes.map((c) => c.state)).toEqual(['waiting', 'slow-down']));
    expect(changes[1]).toMatchObject({ intervalSeconds: 6 });
    finish({ outcome: 'signed-in' });
    await started.result;
    expect(changes.at(-1)).toMatchObject({ state: 'signed-in', message: 'Signed in.' });
    expect(signedIn).toHaveBeenCalledWith(LOCAL.id);
  });
});
