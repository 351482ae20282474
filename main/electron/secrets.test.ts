import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileSecretStore, PLAIN_TEXT_CODEC } from '../core/platform/file-secret-store.js';

// The only place Electron is replaced: no Electron binary runs here. The double "encrypts" reversibly with a
// per-test key, so the test can tell a sealed file from a plain one.
const fake = vi.hoisted((): { available: boolean; backend: string; key: number } => ({
  available: true,
  backend: 'gnome_libsecret',
  key: 0x5a,
}));

vi.mock('electron', () => {
  const flip = (bytes: Buffer) => Buffer.from(bytes.map((b) => b ^ fake.key));
  return {
    safeStorage: {
      isAsyncEncryptionAvailable: () => Promise.resolve(fake.available),
      getSelectedStorageBackend: () => fake.backend,
      encryptStringAsync: (plain: string) => Promise.resolve(flip(Buffer.from(`sealed:${plain}`, 'utf8'))),
      decryptStringAsync: (sealed: Buffer) => {
        const text = flip(sealed).toString('utf8');
        if (!text.startsWith('sealed:')) return Promise.reject(new Error('Error while decrypting the ciphertext'));
        return Promise.resolve({ result: text.slice('sealed:'.length), shouldReEncrypt: false });
      },
    },
  };
});

const { createSafeStorageSecretStore, DESKTOP_SECRETS_FILE, SecretStorageRefusedError } = await import('./secrets.js');

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-secrets-'));
  fake.available = true;
  fake.backend = 'gnome_libsecret';
  fake.key = 0x5a;
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the desktop SecretStore (safeStorage)', () => {
  it('keeps secrets encrypted in a 0600 file and reads them back in a new store', async () => {
    const store = await createSafeStorageSecretStore({ dataDir, platform: 'linux' });
    await store.set('auth/prod/client-secret', 's3cret-value');
    await store.set('auth/prod/tokens', '{"accessToken":"eyJhbGciOi"}');

    const file = join(dataDir, DESKTOP_SECRETS_FILE);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('s3cret-value');
    expect(text).not.toContain('eyJhbGciOi');
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);

    const again = await createSafeStorageSecretStore({ dataDir, platform: 'linux' });
    expect(await again.get('auth/prod/client-secret')).toBe('s3cret-value');
    await again.delete('auth/prod/client-secret');
    expect(await again.get('auth/prod/client-secret')).toBeNull();
    expect(await again.get('auth/prod/tokens')).toBe('{"accessToken":"eyJhbGciOi"}');
  });

  it("refuses Linux's basic_text backend unless the person accepted it", async () => {
    fake.backend = 'basic_text';
    const refused = createSafeStorageSecretStore({ dataDir, platform: 'linux' });
    await expect(refused).rejects.toBeInstanceOf(SecretStorageRefusedError);
    await expect(refused).rejects.toMatchObject({ reason: 'plain-text-backend' });

    const accepted = await createSafeStorageSecretStore({ dataDir, platform: 'linux', acceptPlainTextBackend: true });
    await accepted.set('k', 'v');
    expect(await accepted.get('k')).toBe('v');
  });

  it('does not apply the Linux rule elsewhere, and refuses when no encryption is available at all', async () => {
    fake.backend = 'basic_text'; // what a non-Linux platform never reports; the rule is Linux-only
    await expect(createSafeStorageSecretStore({ dataDir, platform: 'darwin' })).resolves.toBeDefined();
    fake.available = false;
    await expect(createSafeStorageSecretStore({ dataDir, platform: 'darwin' })).rejects.toMatchObject({
      reason: 'encryption-unavailable',
    });
  });

  it('says a secret cannot be decrypted (another key) without quoting it', async () => {
    const store = await createSafeStorageSecretStore({ dataDir, platform: 'linux' });
    await store.set('k', 'top-secret');
    fake.key = 0x33; // as if the OS keychain key changed
    const read = store.get('k');
    await expect(read).rejects.toThrow(/could not be decrypted/);
    await expect(read).rejects.not.toThrow(/top-secret/);
  });

  it('never opens a file sealed another way (the CLI plain-text file) as if it were encrypted', async () => {
    const plain = new FileSecretStore(join(dataDir, DESKTOP_SECRETS_FILE), PLAIN_TEXT_CODEC);
    await plain.set('k', 'v');
    const store = await createSafeStorageSecretStore({ dataDir, platform: 'linux' });
    await expect(store.get('k')).rejects.toThrow(/sealed with plain-text/);
    await expect(store.set('k', 'w')).rejects.toThrow(/left untouched/);
    expect(await plain.get('k')).toBe('v');
  });
});
