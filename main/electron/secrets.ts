import { join } from 'node:path';
import { safeStorage } from 'electron';
import { FileSecretStore, type SecretCodec } from '../core/platform/file-secret-store.js';
import type { SecretStore } from '../core/platform/secret-store.js';

/** The desktop app's secrets file, in the data directory beside the store. */
export const DESKTOP_SECRETS_FILE = 'secrets.json';

export interface SafeStorageSecretsOptions {
  dataDir: string;
  /**
   * Linux without a keyring (no GNOME libsecret, no KWallet) falls back to `basic_text`: "encryption" with a
   * key hard-coded in Chromium, which protects nothing. Refused unless the person has explicitly accepted it.
   */
  acceptPlainTextBackend?: boolean;
  /** For tests; defaults to the running platform. */
  platform?: NodeJS.Platform;
}

export type SecretStorageRefusal = 'encryption-unavailable' | 'plain-text-backend';

/** Secrets cannot be kept safely here; the UI explains `reason` and may ask the person to accept plain text. */
export class SecretStorageRefusedError extends Error {
  readonly reason: SecretStorageRefusal;
  constructor(reason: SecretStorageRefusal, message: string) {
    super(message);
    this.name = 'SecretStorageRefusedError';
    this.reason = reason;
  }
}

const safeStorageCodec: SecretCodec = {
  name: 'electron-safe-storage',
  seal: async (plain) => (await safeStorage.encryptStringAsync(plain)).toString('base64'),
  open: async (sealed) => (await safeStorage.decryptStringAsync(Buffer.from(sealed, 'base64'))).result,
};

/**
 * The desktop SecretStore: values encrypted with Electron's `safeStorage` (Keychain on macOS, DPAPI on Windows,
 * libsecret or KWallet on Linux), kept as base64 blobs in a 0600 file in the data directory. Call after the app
 * is ready: before that the Linux backend reads as `unknown` and encryption as unavailable.
 */
export async function createSafeStorageSecretStore(options: SafeStorageSecretsOptions): Promise<SecretStore> {
  if (!(await safeStorage.isAsyncEncryptionAvailable())) {
    throw new SecretStorageRefusedError(
      'encryption-unavailable',
      'This system offers no way to encrypt saved sign-ins, so Rx Batch will not save them.',
    );
  }
  const platform = options.platform ?? process.platform;
  if (
    platform === 'linux' &&
    safeStorage.getSelectedStorageBackend() === 'basic_text' &&
    !options.acceptPlainTextBackend
  ) {
    throw new SecretStorageRefusedError(
      'plain-text-backend',
      'No keyring (GNOME Keyring or KWallet) is available, so saved sign-ins would be readable by anyone who can ' +
        'read your files. Install or unlock a keyring, or accept storing them without encryption.',
    );
  }
  return new FileSecretStore(join(options.dataDir, DESKTOP_SECRETS_FILE), safeStorageCodec);
}
