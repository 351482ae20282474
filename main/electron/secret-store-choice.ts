import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { MemorySecretStore, type SecretStore } from '../core/platform/secret-store.js';
import type { Logger } from '../core/platform/logger.js';
import { PRIVATE_FILE_MODE } from '../core/platform/private-files.js';
import { createSafeStorageSecretStore, SecretStorageRefusedError } from './secrets.js';

/**
 * Which SecretStore the desktop app runs with. Normally the safeStorage one (sign-ins survive a restart,
 * encrypted by the OS keychain). Where that would mean plain text (Linux without a keyring), the admin is warned
 * and chooses: keep sign-ins for this session only (the default), or store them unencrypted, optionally without
 * being asked again. Where the OS offers no encryption at all, sign-ins last for the session.
 */

export const PLAIN_TEXT_CONSENT_FILE = 'plain-text-secrets-accepted.json';
const consentSchema = z.object({ acceptedAt: z.string().min(1).max(40) }).strict();

export interface PlainTextAnswer {
  accept: boolean;
  /** Do not ask again on this computer (only meaningful with `accept`). */
  remember: boolean;
}

export interface SecretStoreChoiceOptions {
  dataDir: string;
  logger: Logger;
  /** Shows the warning and returns the admin's answer. */
  askPlainText(message: string): Promise<PlainTextAnswer>;
  now?: () => Date;
}

export interface ChosenSecretStore {
  store: SecretStore;
  /** False when sign-ins last for this session only. */
  persistent: boolean;
}

function consentGiven(file: string): boolean {
  try {
    return consentSchema.safeParse(JSON.parse(readFileSync(file, 'utf8'))).success;
  } catch {
    return false;
  }
}

function recordConsent(file: string, at: Date): void {
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ acceptedAt: at.toISOString() })}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, file);
}

export async function chooseSecretStore(options: SecretStoreChoiceOptions): Promise<ChosenSecretStore> {
  const consentFile = join(options.dataDir, PLAIN_TEXT_CONSENT_FILE);
  const sessionOnly = (why: string): ChosenSecretStore => {
    options.logger.warn('sign-ins kept for this session only', { why });
    return { store: new MemorySecretStore(), persistent: false };
  };
  try {
    return { store: await createSafeStorageSecretStore({ dataDir: options.dataDir }), persistent: true };
  } catch (error) {
    if (!(error instanceof SecretStorageRefusedError)) throw error;
    if (error.reason === 'encryption-unavailable') return sessionOnly(error.reason);
    if (!consentGiven(consentFile)) {
      const answer = await options.askPlainText(error.message);
      if (!answer.accept) return sessionOnly(error.reason);
      if (answer.remember) recordConsent(consentFile, (options.now ?? (() => new Date()))());
    }
    options.logger.warn('sign-ins stored without encryption, as the admin accepted', { backend: 'basic_text' });
    const store = await createSafeStorageSecretStore({ dataDir: options.dataDir, acceptPlainTextBackend: true });
    return { store, persistent: true };
  }
}
