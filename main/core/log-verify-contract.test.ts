import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from './platform/secret-store.js';
import { openDatabase } from './store/open-database.js';
import { dropAuditTriggers } from './store/testing/audit-tamper.js';
import { STORE_FILE } from './store/store.js';
import { openCore } from './testing/test-core.js';

// The Log screen's "Chain verification" (contract call `log.verify`, issue #12 finding 6): a log cut short while
// the app was closed is reported with the first entry missing and the kind of problem, through the contract.
describe('log.verify through the contract', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reports entries cut off the end of the database, which the chain alone cannot show', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-verify-'));
    const dataDir = join(dir, 'data');
    const secrets = new MemorySecretStore();
    let { core, api } = await openCore(dataDir, { secrets });
    for (let index = 0; index < 4; index += 1) {
      core.services.store.audit.append({ actor: 'user', action: 'outbox.paused', environmentId: 'local-sandbox' });
    }
    const count = core.services.store.audit.lastSeq();
    expect(await api.call('log.verify', {})).toEqual({ ok: true, count });
    await core.close();

    const db = openDatabase(join(dataDir, STORE_FILE));
    dropAuditTriggers(db);
    db.prepare('DELETE FROM audit_entries WHERE seq > ?').run(count - 2);
    db.close();

    ({ core, api } = await openCore(dataDir, { secrets }));
    try {
      expect(await api.call('log.verify', {})).toMatchObject({
        ok: false,
        brokenAt: count - 1,
        problem: 'truncated',
      });
    } finally {
      await core.close();
    }
  });
});
