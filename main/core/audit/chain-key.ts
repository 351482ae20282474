import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { FileSecretStore, PLAIN_TEXT_CODEC } from '../platform/file-secret-store.js';
import type { SecretStore } from '../platform/secret-store.js';
import type { LinkKey } from '../model/audit-entry.js';

/**
 * The audit chain's key and its recorded head, kept by the host's SecretStore (never in the database): one
 * secret holding both, so neither can be removed without the other.
 */

/** The SecretStore entry: `{ version, key, since, head, verified, mac }` as JSON (version 1: no `verified`). */
export const AUDIT_CHAIN_SECRET = 'audit/chain';

/**
 * The plain 0600 file of the programs that have no OS keychain (the CLI, browser mode's host): `cli-secrets.json`
 * in the data directory, where the CLI keeps its sign-ins. Browser mode keeps only its audit key there.
 */
export const PLAIN_SECRETS_FILE = 'cli-secrets.json';

export function plainFileSecrets(dataDir: string): FileSecretStore {
  return new FileSecretStore(join(dataDir, PLAIN_SECRETS_FILE), PLAIN_TEXT_CODEC);
}

const KEY_BYTES = 32;

/** 32 random bytes; links are HMAC-SHA256 under it. The id (in each keyed entry) says which key made a link. */
export class AuditKey implements LinkKey {
  readonly id: string;
  readonly #key: KeyObject;
  readonly #secret: string;

  constructor(bytes: Buffer) {
    if (bytes.length !== KEY_BYTES) throw new Error(`an audit key has ${KEY_BYTES} bytes`);
    this.#key = createSecretKey(Buffer.from(bytes));
    this.#secret = bytes.toString('base64');
    this.id = createHmac('sha256', this.#key).update('rx-batch audit key id').digest('hex').slice(0, 16);
  }

  static generate(): AuditKey {
    return new AuditKey(randomBytes(KEY_BYTES));
  }

  mac(text: string): string {
    return createHmac('sha256', this.#key).update(text, 'utf8').digest('hex');
  }

  /** For the secret only. */
  exportSecret(): string {
    return this.#secret;
  }
}

/** The newest entry this program saw committed: a lower bound on the chain (seq and link). */
export interface ChainHead {
  seq: number;
  link: string;
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
/** An entry's link: 32 bytes, or 16 for a compact keyed one (migration 21). */
const linkHex = z.string().regex(/^[0-9a-f]{32}(?:[0-9a-f]{32})?$/);
const headSchema = z.object({ seq: z.number().int().positive(), link: linkHex }).strict().nullable();
const secretFields = {
  key: z.string().regex(/^[A-Za-z0-9+/]{43}=$/),
  since: z.number().int().positive(),
  head: headSchema,
  mac: hex64,
};
/** Version 1 (before issue #16) has no verified prefix; version 2 adds it, under the MAC too. */
const secretSchema = z.union([
  z.object({ version: z.literal(1), ...secretFields }).strict(),
  z.object({ version: z.literal(2), ...secretFields, verified: headSchema }).strict(),
]);

export class AuditKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditKeyError';
  }
}

/**
 * What the secret holds: the key; `since`, the first seq the key links (every entry from there on must be
 * keyed); and `head`, the newest entry this program saw committed (null before the first).
 */
export interface ChainSecret {
  key: AuditKey;
  since: number;
  head: ChainHead | null;
  /**
   * The last entry of the prefix a verification found whole (issue #16: `log verify` then checks only what follows);
   * null before the first. Absent: read from a version 1 secret, none.
   */
  verified?: ChainHead | null;
}

function headMac({ key, since, head }: ChainSecret): string {
  return key.mac(JSON.stringify(['rx-batch-audit-head-v1', key.id, since, head?.seq ?? null, head?.link ?? null]));
}

function headMacV2({ key, since, head, verified }: ChainSecret): string {
  return key.mac(
    JSON.stringify([
      'rx-batch-audit-head-v2',
      key.id,
      since,
      head?.seq ?? null,
      head?.link ?? null,
      verified?.seq ?? null,
      verified?.link ?? null,
    ]),
  );
}

export function sealChainSecret(secret: ChainSecret): string {
  const { key, since, head } = secret;
  const verified = secret.verified ?? null;
  return JSON.stringify({ version: 2, key: key.exportSecret(), since, head, verified, mac: headMacV2(secret) });
}

/** Reads the secret; refuses it whole if the MAC over `since` and `head` does not hold (never trusts either). */
export function openChainSecret(text: string): ChainSecret {
  let parsed;
  try {
    parsed = secretSchema.safeParse(JSON.parse(text));
  } catch {
    throw new AuditKeyError('the saved audit key is unreadable');
  }
  if (!parsed.success) throw new AuditKeyError('the saved audit key is unreadable');
  const secret: ChainSecret = {
    key: new AuditKey(Buffer.from(parsed.data.key, 'base64')),
    since: parsed.data.since,
    head: parsed.data.head,
    verified: parsed.data.version === 2 ? parsed.data.verified : null,
  };
  const mac = parsed.data.version === 2 ? headMacV2(secret) : headMac(secret);
  if (!timingSafeEqual(Buffer.from(mac, 'hex'), Buffer.from(parsed.data.mac, 'hex'))) {
    throw new AuditKeyError("the saved audit chain head does not match its key's MAC");
  }
  return secret;
}

/** The key a SecretStore holds, if any (for keys only checked, never written: another program's). */
export async function readAuditKey(secrets: SecretStore): Promise<AuditKey | null> {
  const text = await secrets.get(AUDIT_CHAIN_SECRET);
  return text === null ? null : openChainSecret(text).key;
}
