import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RxBatchApi } from '../../shared/contract.js';
import { ContractError } from '../../shared/errors.js';
import { openTestCore, type TestCore } from './testing/test-core.js';
import { LOCAL_SANDBOX_DEVICE_ID, LOCAL_SANDBOX_ID } from './environments/presets.js';

// The core as every transport sees it, reached here through the direct (in-process) transport.
describe('the core on a fresh install', () => {
  let testCore: TestCore;
  let api: RxBatchApi;

  beforeAll(async () => {
    testCore = await openTestCore('core', { startLocalSandbox: true, startOutbox: true });
    ({ api } = testCore);
  });

  afterAll(async () => {
    await testCore.close();
  });

  it('lists the running local sandbox first (with service account, then device sign-in), and the CloudRx environments', async () => {
    const environments = await api.call('environments.list', {});
    expect(environments.map((environment) => environment.id)).toEqual([
      LOCAL_SANDBOX_ID,
      LOCAL_SANDBOX_DEVICE_ID,
      'cloudrx-sandbox',
      'cloudrx-production',
    ]);
    const local = environments[0];
    expect(local).toMatchObject({ kind: 'local-sandbox', running: true, grant: 'client_credentials' });
    expect(environments[1]).toMatchObject({ kind: 'local-sandbox', running: true, grant: 'device' });
    expect(new URL(local?.apiBaseUrl ?? '').hostname).toBe('127.0.0.1');
    // No secret ever crosses the contract.
    expect(JSON.stringify(environments)).not.toMatch(/secret/i);
  });

  it('checks the connection to the local sandbox: API and identity server both answer', async () => {
    const report = await api.call('connection.check', { environmentId: LOCAL_SANDBOX_ID });
    expect(report.api).toMatchObject({ reachable: true, status: 200 });
    expect(report.identity).toMatchObject({ reachable: true, deviceAuthorization: true, clientCredentials: true });
  });

  it('fetches the courier price list with the sandbox service account, signed in at start', async () => {
    const result = await api.call('couriers.priceList', { environmentId: LOCAL_SANDBOX_ID });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value.map((option) => option.courierCode)).toContain('RMT24');
      for (const option of result.value) expect(option.currencyCode).toBe('GBP');
    }
  });

  it('searches products anonymously, keeping 18-digit dm+d codes exact', async () => {
    const result = await api.call('products.search', { environmentId: LOCAL_SANDBOX_ID, searchTerm: 'a' });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value.length).toBeGreaterThan(0);
      expect(result.value.some((product) => /^\d{18}$/.test(product.dmdCode))).toBe(true);
    }
  });

  it('says an environment without a client id needs one, without calling out to it', async () => {
    const result = await api.call('couriers.priceList', { environmentId: 'cloudrx-sandbox' });
    expect(result).toEqual({
      ok: false,
      error: {
        kind: 'auth',
        status: 0,
        message: 'CloudRx sandbox has no client id yet: add the one CloudRx issued you, then sign in.',
      },
    });
  });

  it('refuses an unknown environment with a clear contract error', async () => {
    const call = api.call('couriers.priceList', { environmentId: 'nowhere' });
    await expect(call).rejects.toBeInstanceOf(ContractError);
    await expect(call).rejects.toThrow('no environment with id "nowhere"');
  });
});
