import { describe, expect, it, vi } from 'vitest';
import type { CallHandlers } from '../../shared/contract.js';
import { handlersWith } from '../support/call-handlers.js';
import {
  isAllowedExternalUrl,
  openExternalIfAllowed,
  signInIssuers,
  type ExternalLinkIssuer,
} from '../../main/electron/external-links.js';

const remote: ExternalLinkIssuer = { issuer: 'https://is4.cloudrx.co.uk', kind: 'remote' };
const local: ExternalLinkIssuer = { issuer: 'http://127.0.0.1:41234', kind: 'local-sandbox' };

describe('the openExternal allow-list', () => {
  it.each([
    ['https://is4.cloudrx.co.uk/device', true],
    ['https://is4.cloudrx.co.uk/device?user_code=WDJB-MJHT', true],
    ['https://is4.cloudrx.co.uk:443/connect/verify', true],
    ['http://is4.cloudrx.co.uk/device', false],
    ['https://is4.cloudrx.co.uk.evil.example/device', false],
    ['https://evil.example/?next=https://is4.cloudrx.co.uk', false],
    ['https://user:pass@is4.cloudrx.co.uk/device', false],
    ['https://is4.cloudrx.co.uk:8443/device', false],
    ['http://127.0.0.1:41234/device', true],
    ['http://127.0.0.1:41235/device', false],
    ['http://localhost:41234/device', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['ms-settings:privacy', false],
    ['not a url', false],
  ])('%s → %s', (url, allowed) => {
    expect(isAllowedExternalUrl(url, [remote, local])).toBe(allowed);
  });

  it('allows nothing when no environment is being signed in to', () => {
    expect(isAllowedExternalUrl('https://is4.cloudrx.co.uk/device', [])).toBe(false);
  });

  it('never allows plain http to a remote issuer, even one configured with http', () => {
    const careless: ExternalLinkIssuer = { issuer: 'http://id.example.com', kind: 'remote' };
    expect(isAllowedExternalUrl('http://id.example.com/device', [careless])).toBe(false);
  });

  it('allows the local sandbox only on a loopback host', () => {
    const odd: ExternalLinkIssuer = { issuer: 'http://192.168.1.20:4000', kind: 'local-sandbox' };
    expect(isAllowedExternalUrl('http://192.168.1.20:4000/device', [odd])).toBe(false);
    const v6: ExternalLinkIssuer = { issuer: 'http://[::1]:4000', kind: 'local-sandbox' };
    expect(isAllowedExternalUrl('http://[::1]:4000/device', [v6])).toBe(true);
  });
});

function environment(id: string, issuer: string, kind: 'remote' | 'local-sandbox') {
  return { id, issuer, kind } as Awaited<ReturnType<CallHandlers['environments.list']>>[number];
}

function status(environmentId: string, signedIn: boolean, device: boolean) {
  return {
    environmentId,
    grant: 'device' as const,
    signedIn,
    expiresAt: null,
    subject: null,
    device: device ? { state: 'waiting' as const, expiresAt: '2030-01-01T00:00:00Z', intervalSeconds: 5 } : null,
  };
}

describe('signInIssuers', () => {
  it('lists the issuers of environments signed in or in a device sign-in, and skips unreadable ones', async () => {
    const handlers = handlersWith({
      'environments.list': () =>
        Promise.resolve([
          environment('idle', 'https://idle.example', 'remote'),
          environment('device', 'https://device.example', 'remote'),
          environment('signed', 'http://127.0.0.1:4000', 'local-sandbox'),
          environment('broken', 'https://broken.example', 'remote'),
        ]),
      'signin.status': ({ environmentId }) => {
        if (environmentId === 'broken') return Promise.reject(new Error('store closed'));
        return Promise.resolve(status(environmentId, environmentId === 'signed', environmentId === 'device'));
      },
    });
    expect(await signInIssuers(handlers)).toEqual([
      { issuer: 'https://device.example', kind: 'remote' },
      { issuer: 'http://127.0.0.1:4000', kind: 'local-sandbox' },
    ]);
  });
});

describe('openExternalIfAllowed', () => {
  it('opens allowed links and nothing else', async () => {
    const opener = { openExternal: vi.fn(() => Promise.resolve()) };
    const issuers = () => Promise.resolve([remote]);
    expect(await openExternalIfAllowed('https://is4.cloudrx.co.uk/device', issuers, opener)).toBe(true);
    expect(await openExternalIfAllowed('https://evil.example/', issuers, opener)).toBe(false);
    expect(opener.openExternal.mock.calls).toEqual([['https://is4.cloudrx.co.uk/device']]);
  });

  it('opens a courier’s tracking page for an order, with no sign-in going on, and nothing made to look like one', async () => {
    const opener = { openExternal: vi.fn(() => Promise.resolve()) };
    const none = () => Promise.resolve([]);
    const tracking = 'https://www.royalmail.com/track-your-item#/tracking-results/RM123456789GB';
    expect(await openExternalIfAllowed(tracking, none, opener)).toBe(true);
    expect(await openExternalIfAllowed('https://www.royalmail.com/', none, opener)).toBe(false);
    expect(await openExternalIfAllowed(`${tracking}/../../evil`, none, opener)).toBe(false);
    expect(opener.openExternal.mock.calls).toEqual([[tracking]]);
  });
});
