import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuditKey } from '../main/core/audit/chain-key.js';
import { PRIVATE_FILE_MODE } from '../main/core/platform/private-files.js';
import { openStore, type Store } from '../main/core/store/store.js';

const KEY_FILE = 'scale-audit.key';

/**
 * The scale store opened with an audit key, as the app always opens its store (its links keyed: 16-byte compact
 * links, not plain SHA-256), the key kept beside the store (0600) so that a kept store verifies on a later run.
 */
export function openKeyedStore(dataDir: string, now?: () => Date): { store: Store; key: AuditKey } {
  const file = join(dataDir, KEY_FILE);
  const store = openStore(now ? { dataDir, now } : { dataDir });
  if (!existsSync(file))
    writeFileSync(file, AuditKey.generate().exportSecret(), { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  const key = new AuditKey(Buffer.from(readFileSync(file, 'utf8'), 'base64'));
  store.audit.useKey(key, () => {});
  return { store, key };
}
