import { describe, expect, it } from 'vitest';
import { AuthError } from './auth-error.js';
import { checkIssuerUrl, isLoopbackHost } from './issuer-url.js';

describe('issuer URL policy', () => {
  it('knows loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', 'app.localhost', '[::1]', '::1']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of [
      '10.0.0.1',
      '0.0.0.0',
      '128.0.0.1',
      '127.0.0.1.example.com',
      '127.0.0.256',
      'example.com',
      '[::2]',
    ]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it('allows https anywhere and plain http only on loopback', () => {
    expect(checkIssuerUrl('https://is4.cloudrx.co.uk')).toMatchObject({ insecure: false });
    expect(checkIssuerUrl('http://127.0.0.1:5000')).toMatchObject({ insecure: true });
    expect(checkIssuerUrl('http://localhost:5000/')).toMatchObject({ insecure: true });
    expect(checkIssuerUrl('http://[::1]:5000')).toMatchObject({ insecure: true });
  });

  it('refuses plain http elsewhere, other schemes and non-URLs with a clear error', () => {
    const refusal = (issuer: string) => {
      try {
        checkIssuerUrl(issuer);
      } catch (err) {
        return err;
      }
      throw new Error(`accepted ${issuer}`);
    };
    const insecure = refusal('http://sandbox-is4.cloudrx.co.uk');
    expect(insecure).toBeInstanceOf(AuthError);
    expect(insecure).toMatchObject({ code: 'insecure-issuer' });
    expect((insecure as Error).message).toMatch(/plain http.*Use https/);
    expect(refusal('ftp://127.0.0.1')).toMatchObject({ code: 'invalid-issuer' });
    expect(refusal('not a url')).toMatchObject({ code: 'invalid-issuer' });
  });
});
