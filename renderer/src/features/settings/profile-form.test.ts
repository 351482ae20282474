import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS, DEFAULT_SENDING_PACE, type EnvironmentView } from '../../../../shared/environment.js';
import { fromForm, toForm } from './profile-form.js';

const environment: EnvironmentView = {
  id: 'cloudrx-sandbox',
  name: 'CloudRx sandbox',
  kind: 'remote',
  apiBaseUrl: 'https://sandbox-orderservice.cloudrx.co.uk/',
  issuer: 'https://sandbox-is4.cloudrx.co.uk',
  clientId: '',
  grant: 'client_credentials',
  scopes: ['cloudrx_orderservice'],
  createWithClinicVersion: 'v2',
  requestTimeoutMs: 20_000,
  codeLists: DEFAULT_CODE_LISTS,
  ...DEFAULT_SENDING_PACE,
  running: false,
};

describe('the API profile form', () => {
  it('gives back the profile it was filled from, untouched', () => {
    const { running: _running, ...profile } = environment;
    expect(fromForm(toForm(environment))).toEqual({ ok: true, profile });
  });

  it('reads seconds, lists one per line and maps as "Text = number"', () => {
    const form = {
      ...toForm(environment),
      clientId: ' my-client ',
      pollIntervalSeconds: '15',
      requestTimeoutSeconds: '45',
      courierCodes: 'RMT24\n\n  DPD  \n',
      v2CourierCode: 'RMT24 = 1\nDPD=3',
    };
    const result = fromForm(form);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.profile).toMatchObject({ clientId: 'my-client', pollIntervalMs: 15_000, requestTimeoutMs: 45_000 });
    expect(result.profile.codeLists.courierCodes).toEqual(['RMT24', 'DPD']);
    expect(result.profile.codeLists.v2CourierCode).toEqual({ RMT24: 1, DPD: 3 });
  });

  it('names each wrong field in words the form uses', () => {
    const result = fromForm({
      ...toForm(environment),
      id: 'Has Spaces',
      apiBaseUrl: 'not a url',
      issuer: 'not a url either',
      concurrency: '0',
      pollIntervalSeconds: '1',
      scopes: [],
      v2Title: 'Mr one',
    });
    expect(result).toEqual({
      ok: false,
      errors: {
        id: 'An id of 1 to 40 lower-case letters, digits and dashes, not starting with a dash, such as cloudrx-test.',
        apiBaseUrl: 'A full address, such as https://orderservice.example/.',
        // The identity server's example is an identity server, not the Order Service.
        issuer: 'A full address, such as https://identity.example/.',
        concurrency: 'A whole number from 1 to 16.',
        pollIntervalSeconds: 'Between 5 seconds and 1 day (86400 seconds).',
        scopes: 'Choose at least one scope.',
        v2Title: '"Mr one" is not of the form Text = number',
      },
    });
  });
});
