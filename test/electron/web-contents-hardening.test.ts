import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../main/core/platform/logger.js';
import { electronEvent, FakeWebContents } from './electron-double.js';

vi.mock('electron', () => import('./electron-double.js'));
const { describeUrl, hardenWebContents } = await import('../../main/electron/web-contents-hardening.js');

const ALLOWED = 'https://id.example.com/device?user_code=ABCD';

let contents: FakeWebContents;
let openExternal: ReturnType<typeof vi.fn<(url: string) => Promise<boolean>>>;
let warnings: Array<[string, unknown]>;

function harden(target = contents): void {
  const logger: Logger = { info() {}, error() {}, warn: (message, fields) => warnings.push([message, fields]) };
  hardenWebContents(target as never, { openExternal }, logger);
}

beforeEach(() => {
  contents = new FakeWebContents();
  openExternal = vi.fn((url: string) => Promise.resolve(url === ALLOWED));
  warnings = [];
  harden();
});

describe('every webContents the app creates', () => {
  it('refuses all navigation, sending an allowed link to the system browser instead', async () => {
    const away = electronEvent({ url: 'https://evil.example/phish?patient=Smith' });
    contents.emit('will-navigate', away);
    const link = electronEvent({ url: ALLOWED });
    contents.emit('will-navigate', link);
    expect(away.preventDefault).toHaveBeenCalled();
    expect(link.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(warnings).toHaveLength(1));
    expect(openExternal.mock.calls).toEqual([[away.url], [ALLOWED]]);
    // The refusal is logged by origin only: a path or query could carry data that does not belong in a log.
    expect(warnings[0]).toEqual(['navigation refused', { target: 'https://evil.example' }]);
    expect(JSON.stringify(warnings)).not.toContain('Smith');
  });

  it('refuses redirects, subframe navigation and webviews', () => {
    const redirect = electronEvent({ url: 'https://evil.example/' });
    contents.emit('will-redirect', redirect);
    const subframe = electronEvent({ url: 'https://evil.example/', isMainFrame: false });
    contents.emit('will-frame-navigate', subframe);
    const webview = electronEvent({});
    contents.emit('will-attach-webview', webview, {}, {});
    expect(redirect.preventDefault).toHaveBeenCalled();
    expect(subframe.preventDefault).toHaveBeenCalled();
    expect(webview.preventDefault).toHaveBeenCalled();
  });

  it('denies every new window, opening only an allowed link in the system browser', async () => {
    expect(contents.windowOpenHandler?.({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler?.({ url: ALLOWED })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler?.({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    await vi.waitFor(() => expect(warnings).toHaveLength(2));
    expect(openExternal).toHaveBeenCalledWith(ALLOWED);
    expect(warnings.map(([message]) => message)).toEqual(['new window refused', 'new window refused']);
  });

  it('grants no permission, by request, by check or for devices', () => {
    const session = contents.session;
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal']) {
      const callback = vi.fn();
      session.permissionRequestHandler?.(contents, permission, callback, {});
      expect(callback).toHaveBeenCalledWith(false);
      expect(session.permissionCheckHandler?.(contents, permission, 'app://rx-batch', {})).toBe(false);
    }
    expect(session.devicePermissionHandler?.({ deviceType: 'usb', origin: 'app://rx-batch' })).toBe(false);
  });

  it('is applied once per webContents, so a link is never opened twice', async () => {
    harden();
    contents.windowOpenHandler?.({ url: ALLOWED });
    contents.emit('will-navigate', electronEvent({ url: ALLOWED }));
    await vi.waitFor(() => expect(openExternal).toHaveBeenCalledTimes(2));
    expect(contents.listenerCount('will-navigate')).toBe(1);
  });

  it('logs, without failing, when the system browser cannot be opened', async () => {
    openExternal.mockRejectedValueOnce(new Error('no browser'));
    contents.windowOpenHandler?.({ url: ALLOWED });
    await vi.waitFor(() => expect(warnings).toHaveLength(1));
    expect(warnings[0]?.[0]).toBe('new window: the system browser could not be opened');
  });
});

describe('describeUrl', () => {
  it.each([
    ['https://id.example.com:8443/device?code=1#x', 'https://id.example.com:8443'],
    ['mailto:someone@example.com', 'mailto:'],
    ['not a url', '(not a URL)'],
  ])('%s → %s', (url, shown) => expect(describeUrl(url)).toBe(shown));
});
