import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { protocol } from './electron-double.js';

vi.mock('electron', () => import('./electron-double.js'));
const { APP_URL, isAppUrl, registerAppScheme, serveRenderer } = await import('../../main/electron/app-protocol.js');

let root: string;
let rendererDir: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rxbatch-protocol-'));
  rendererDir = join(root, 'renderer');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Rx Batch</title>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(root, 'secret.txt'), 'outside the renderer');
  registerAppScheme();
  serveRenderer(rendererDir);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function fetchApp(url: string): Promise<Response> {
  const handler = protocol.handlers.get('app');
  if (!handler) throw new Error('app: scheme not served');
  return Promise.resolve(handler({ url } as Request));
}

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words): words is [string, ...string[]] => words[0] !== undefined && words[0] !== '')
      .map(([name, ...values]) => [name, values]),
  );
}

describe('the app:// protocol', () => {
  it('is a standard, secure scheme that bypasses nothing', () => {
    const entry = protocol.privileged.find((scheme) => scheme.scheme === 'app');
    expect(entry?.privileges).toMatchObject({ standard: true, secure: true });
    for (const risky of ['bypassCSP', 'allowServiceWorkers', 'corsEnabled', 'stream', 'codeCache']) {
      expect(entry?.privileges?.[risky], risky).not.toBe(true);
    }
  });

  it('serves the page with a strict Content-Security-Policy header', async () => {
    const response = await fetchApp(APP_URL);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = directives(response.headers.get('content-security-policy') ?? '');
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    const all = [...csp.values()].flat();
    expect(all).not.toContain("'unsafe-eval'");
    expect(all).not.toContain("'unsafe-inline'");
    expect(all).not.toContain('*');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves the built assets with the same header', async () => {
    const response = await fetchApp(`${APP_URL}assets/app.js`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('console.log(1)');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it.each([
    ['a path escaping the renderer', `${APP_URL}..%2fsecret.txt`],
    ['a dot-dot path', 'app://rx-batch/assets/../../secret.txt'],
    ['another host on the scheme', 'app://elsewhere/index.html'],
    ['a file that does not exist', `${APP_URL}missing.js`],
  ])('answers 404 to %s', async (_label, url) => {
    const response = await fetchApp(url);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('outside the renderer');
  });

  it('recognises only its own origin as the app', () => {
    expect(isAppUrl('app://rx-batch/')).toBe(true);
    expect(isAppUrl('app://rx-batch/index.html#/orders')).toBe(true);
    expect(isAppUrl('app://rx-batch.evil/')).toBe(false);
    expect(isAppUrl('https://rx-batch/')).toBe(false);
    expect(isAppUrl('file:///app/out/renderer/index.html')).toBe(false);
    expect(isAppUrl('garbage')).toBe(false);
  });
});
