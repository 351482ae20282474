import { afterEach, describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION } from './migrations/index.js';
import { IntakeRulesError } from './intake-rules-repo.js';
import { openStore, type Store } from './store.js';
import { LOCAL, removeDir, storeAtVersion, tempDataDir } from './testing/store-fixtures.js';

// Issue #17: live intake's staging rules kept per environment (migration 019), read back after the store is
// closed and opened again, each change audited with the old and new rules; bad senders refused with the reason.

const rulesChanged = (store: Store) => store.audit.search({ action: 'intake.rules.changed', limit: 50 });

describe('intake rules in the store', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) if (store.isOpen) store.close();
    for (const dir of dirs.splice(0)) removeDir(dir);
  });

  function open(dataDir: string): Store {
    const store = openStore({ dataDir });
    stores.push(store);
    return store;
  }

  function freshDir(): string {
    const dir = tempDataDir('rx-intake-rules-');
    dirs.push(dir);
    return dir;
  }

  it('upgrades a schema-18 store with its environments: no rules saved means everything is held', () => {
    const dataDir = freshDir();
    // The file as the release before 019 left it, with its environment.
    storeAtVersion(dataDir, 18);

    const store = open(dataDir);
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(19);
    expect(store.intakeRules.get(LOCAL.id)).toEqual({ rules: { onArrival: 'hold', senders: [] }, updatedAt: null });
    const saved = store.intakeRules.save(LOCAL.id, {
      onArrival: 'hold',
      senders: [{ sender: 'EPR-7^CLINIC-H', onArrival: 'send' }],
    });
    expect(saved).toMatchObject({ changed: true, rules: { senders: [{ sender: 'EPR-7^CLINIC-H' }] } });
  });

  it('keeps rules per environment across a reopen, in the order given, each change audited old and new', () => {
    const dataDir = freshDir();
    let store = open(dataDir);
    store.environments.upsert(LOCAL);
    store.environments.upsert({ ...LOCAL, id: 'staging', name: 'Staging' });
    const rules = {
      onArrival: 'hold' as const,
      senders: [
        { sender: 'LAB', onArrival: 'hold' as const },
        { sender: 'EPR-7^CLINIC-H', onArrival: 'send' as const },
        { sender: "St Mary's^Ward 3", onArrival: 'send' as const },
      ],
    };
    store.intakeRules.save(LOCAL.id, rules);
    store.intakeRules.save('staging', { onArrival: 'send', senders: [] });
    store.close();

    store = open(dataDir);
    expect(store.intakeRules.get(LOCAL.id).rules).toEqual(rules);
    expect(store.intakeRules.get(LOCAL.id).updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(store.intakeRules.get('staging').rules).toEqual({ onArrival: 'send', senders: [] });

    // The same rules again: nothing written, nothing audited.
    expect(store.intakeRules.save(LOCAL.id, rules).changed).toBe(false);
    // A sender removed, one changed, the default changed.
    const next = store.intakeRules.save(LOCAL.id, {
      onArrival: 'send',
      senders: [{ sender: 'LAB', onArrival: 'send' }],
    });
    expect(next).toMatchObject({ changed: true, rules: { onArrival: 'send', senders: [{ sender: 'LAB' }] } });

    const entries = rulesChanged(store).sort((a, b) => a.seq - b.seq);
    expect(entries.map((entry) => [entry.environmentId, entry.actor, entry.details])).toEqual([
      [
        LOCAL.id,
        'user',
        { intakeRules: "hold; send: EPR-7^CLINIC-H, St Mary's^Ward 3; hold: LAB", previousIntakeRules: 'hold' },
      ],
      ['staging', 'user', { intakeRules: 'send', previousIntakeRules: 'hold' }],
      [
        LOCAL.id,
        'user',
        {
          intakeRules: 'send; send: LAB',
          previousIntakeRules: "hold; send: EPR-7^CLINIC-H, St Mary's^Ward 3; hold: LAB",
        },
      ],
    ]);
    expect(store.intakeRules.get(LOCAL.id).rules.senders).toEqual([{ sender: 'LAB', onArrival: 'send' }]);
  });

  it('refuses a bad sender, a sender twice or an unknown environment with the reason, writing nothing', () => {
    const store = open(freshDir());
    store.environments.upsert(LOCAL);
    const refused = (sender: string) => {
      try {
        store.intakeRules.save(LOCAL.id, { onArrival: 'send', senders: [{ sender, onArrival: 'send' }] });
      } catch (error) {
        expect(error).toBeInstanceOf(IntakeRulesError);
        return (error as Error).message;
      }
      throw new Error(`${sender} was saved`);
    };
    expect(refused('')).toBe('A sender is APP or APP^FACILITY (MSH-3, and MSH-4 if given); this one is empty.');
    expect(refused('A^B^C')).toBe('"A^B^C" has more than one ^: a sender is APP or APP^FACILITY.');
    expect(refused('^CLINIC')).toBe('"^CLINIC" has no application (MSH-3) before the ^.');
    expect(refused('EPR^')).toMatch(/^"EPR\^" has nothing after the \^/);
    expect(refused('EPR|7')).toBe('"EPR|7": | is an HL7 separator and cannot be in a sender.');
    expect(refused('EPR&X')).toBe('"EPR&X": & is an HL7 separator and cannot be in a sender.');
    expect(refused(' EPR')).toBe('" EPR": the application (MSH-3) starts or ends with a space.');
    expect(refused('EPR^CLINIC\r')).toMatch(/the facility \(MSH-4\) starts or ends with a space/);
    expect(refused('EPR;DROP')).toMatch(/letters, digits, spaces and/);
    expect(refused('A'.repeat(51))).toMatch(/the application \(MSH-3\) is longer than 50 characters/);
    expect(() =>
      store.intakeRules.save(LOCAL.id, {
        onArrival: 'hold',
        senders: [
          { sender: 'LAB', onArrival: 'send' },
          { sender: 'LAB', onArrival: 'hold' },
        ],
      }),
    ).toThrow(new IntakeRulesError('"LAB" is listed twice: one rule a sender.'));
    expect(() => store.intakeRules.save('nowhere', { onArrival: 'send', senders: [] })).toThrow(
      new IntakeRulesError('There is no environment "nowhere".'),
    );
    expect(store.intakeRules.get(LOCAL.id).updatedAt).toBeNull();
    expect(rulesChanged(store)).toEqual([]);
    // The table's own bounds hold even for a write that skipped the checks.
    expect(() =>
      store.db
        .prepare("INSERT INTO intake_rules (environment_id, on_arrival, updated_at) VALUES (?, 'later', 'x')")
        .run(LOCAL.id),
    ).toThrow(/CHECK constraint failed/);
  });
});
