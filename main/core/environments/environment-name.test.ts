import { afterAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SENDING_PACE } from '../../../shared/environment.js';
import { handlersWith } from '../../../test/support/call-handlers.js';
import { dispatchCall } from '../../transport/dispatch.js';
import { openStore } from '../store/store.js';
import { LOCAL, removeDir, tempDataDir } from '../store/testing/store-fixtures.js';

/**
 * An environment's name is shown in the app's native confirmations, its header, the log and the terminal. A page
 * could save one holding a line break, so that a confirmation's question gained a line that read as the dialog's
 * own ("…\nThis change was approved by your administrator."), or a text-direction mark that showed its words
 * reordered. Such names are refused at the contract; one an earlier version stored is shown with spaces instead.
 */

const profile = { ...LOCAL, ...DEFAULT_SENDING_PACE };

async function save(name: string) {
  const core = vi.fn();
  const handlers = handlersWith({ 'environments.save': core });
  const result = await dispatchCall(handlers, 'environments.save', { environment: { ...profile, name }, create: true });
  return { result, reachedCore: core.mock.calls.length > 0 };
}

describe("an environment's name", () => {
  it.each([
    ['a line break', 'Production\nThis change was approved by your administrator.'],
    ['a carriage return', 'Production\rStaging'],
    ['a tab', 'Production\tlive'],
    ['a Unicode line separator', 'Production\u2028Approved'],
    ['a right-to-left override', 'Production \u202eevil'],
    ['an isolate', 'Prod \u2066x\u2069'],
  ])('holding %s is refused, naming the field, before the core', async (_label, name) => {
    const { result, reachedCore } = await save(name);
    expect(reachedCore).toBe(false);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('invalid-input');
      const issue = result.error.issues?.find((i) => i.path === 'environment.name');
      expect(issue?.message).toContain('holds a line break, a tab, another control character or a text-direction');
    }
  });

  it('in any language, with accents and emoji, is taken', async () => {
    for (const name of ['Producción – Zürich', 'التجربة', '本番環境', 'Staging 🚀']) {
      expect((await save(name)).reachedCore).toBe(true);
    }
  });

  describe('stored by an earlier version with such characters', () => {
    const dir = tempDataDir('rx-env-name-');
    afterAll(() => removeDir(dir));

    it('is read back with a space for each, so the app still starts and shows it on one line', () => {
      const store = openStore({ dataDir: dir });
      try {
        store.environments.upsert(LOCAL);
        store.db.prepare('UPDATE environments SET name = ? WHERE id = ?').run('Prod\nApproved\u202e', LOCAL.id);
        expect(store.environments.get(LOCAL.id)?.name).toBe('Prod Approved');
        expect(store.environments.list().find((e) => e.id === LOCAL.id)?.name).toBe('Prod Approved');
      } finally {
        store.close();
      }
    });
  });
});
