import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSecretStore, PLAIN_TEXT_CODEC, SecretFileError } from './file-secret-store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-file-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileSecretStore', () => {
  it('keeps values across instances in a 0600 file, and forgets deleted ones', async () => {
    const file = join(dir, 'data', 'cli-secrets.json');
    const store = new FileSecretStore(file, PLAIN_TEXT_CODEC);
    expect(await store.get('missing')).toBeNull();
    await store.set('auth/a/tokens', 'one');
    await store.set('auth/b/tokens', 'two');
    await store.delete('auth/a/tokens');
    if (process.platform !== 'win32') {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
    }
    const again = new FileSecretStore(file, PLAIN_TEXT_CODEC);
    expect(await again.get('auth/a/tokens')).toBeNull();
    expect(await again.get('auth/b/tokens')).toBe('two');
  });

  it('loses no change when several are made at once', async () => {
    const store = new FileSecretStore(join(dir, 's.json'), PLAIN_TEXT_CODEC);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`k${i}`, `v${i}`)));
    const values = await Promise.all(Array.from({ length: 20 }, (_, i) => store.get(`k${i}`)));
    expect(values).toEqual(Array.from({ length: 20 }, (_, i) => `v${i}`));
  });

  it('refuses a damaged file without overwriting it', async () => {
    const file = join(dir, 's.json');
    writeFileSync(file, '{"version":1,"codec":"plain-text","entries":');
    const store = new FileSecretStore(file, PLAIN_TEXT_CODEC);
    await expect(store.get('k')).rejects.toBeInstanceOf(SecretFileError);
    await expect(store.set('k', 'v')).rejects.toThrow(/not a readable secrets file/);
    expect(readFileSync(file, 'utf8')).toBe('{"version":1,"codec":"plain-text","entries":');
  });
});
