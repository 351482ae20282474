import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPATCHED_STATUSES } from '../../../shared/status.js';
import { recoverInterrupted } from '../outbox/recovery.js';
import { CANCELLED_STATUS, SETTLED_STATUSES, TRACKED_STATES, isTracked } from '../tracking/tracked-orders.js';
import { ORDER_STATES_JSON, POLLED_ORDERS_WHERE } from './migrations/014-scale-indexes.js';
import { ORDER_STATES, type OrderState } from './order-state.js';
import { openStore, type Store } from './store.js';
import { LOCAL, manualClock, removeDir, tempDataDir } from './testing/store-fixtures.js';
import { searchableText } from './testing/audit-search-oracle.js';
import { buildScaleStore } from './testing/scale-store.js';

/**
 * Issue #16: every call a screen, the submitter or the poller makes finds its rows through an index, never by a
 * scan of `orders` or `audit_entries` whose cost grows with the history. Each call runs against a store built
 * through the store's APIs while every statement it runs is recorded with its parameters; each statement's
 * EXPLAIN QUERY PLAN is then checked.
 */

interface Ran {
  sql: string;
  args: unknown[];
}

const ran: Ran[] = [];
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with .call on a database below
const originalPrepare = Database.prototype.prepare;
let dataDir: string;
let store: Store;

function installRecorder(): void {
  Database.prototype.prepare = function (this: Database.Database, sql: string) {
    const statement = originalPrepare.call(this, sql) as Database.Statement;
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to the statement below
      const original = statement[method] as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, {
        value(this: Database.Statement, ...args: unknown[]) {
          ran.push({ sql, args });
          return original.apply(this, args);
        },
      });
    }
    return statement;
  } as typeof Database.prototype.prepare;
}

/** The plans of the statements `call` ran against the big tables. */
function plansOf(call: () => unknown): Array<{ sql: string; plan: string[] }> {
  ran.length = 0;
  call();
  const statements = ran.splice(0).filter(({ sql }) => /\b(orders|audit_entries|order_state_counts)\b/.test(sql));
  return statements.map(({ sql, args }) => ({
    sql,
    plan: (
      (originalPrepare.call(store.db, `EXPLAIN QUERY PLAN ${sql}`) as Database.Statement<unknown[]>).all(
        ...args,
      ) as Array<{ detail: string }>
    ).map((row) => row.detail),
  }));
}

/** A full scan of orders or the audit log (by any alias); a scan of a `json_each` list or a small table is fine. */
const FULL_SCAN = /^SCAN (orders|audit_entries|o|a)\b/;

function expectIndexed(call: () => unknown, index?: RegExp, options: { sorts?: boolean } = {}): void {
  const plans = plansOf(call);
  // A sort of what the filter found (every order of an environment, say) grows with the history too; only a
  // date range sorts (its ids, read from orders_by_created_at).
  if (!options.sorts) {
    for (const { sql, plan } of plans) {
      expect(
        plan.filter((line) => /TEMP B-TREE FOR ORDER BY/.test(line)),
        `${sql}\n${plan.join('\n')}`,
      ).toEqual([]);
    }
  }
  expect(plans.length).toBeGreaterThan(0);
  for (const { sql, plan } of plans) {
    const where = `${sql}\n${plan.join('\n')}`;
    // The chain's last entry: a scan backwards by the primary key that stops at the first row (O(1)).
    if (/ORDER BY seq DESC LIMIT 1$/.test(sql.trim())) continue;
    expect(
      plan.filter((line) => FULL_SCAN.test(line)),
      where,
    ).toEqual([]);
    if (/\bFROM (orders|audit_entries)\b/.test(sql) || /\bUPDATE orders\b/.test(sql)) {
      expect(
        plan.some((line) => /^SEARCH (orders|audit_entries|o|a)\b/.test(line)),
        where,
      ).toBe(true);
    }
  }
  if (index) {
    expect(
      plans.some(({ plan }) => plan.some((line) => index.test(line))),
      plans.map((p) => p.plan.join('\n')).join('\n--\n'),
    ).toBe(true);
  }
}

beforeAll(() => {
  installRecorder();
  dataDir = tempDataDir('rx-plans-');
  const clock = manualClock('2026-01-05T08:00:00.000Z');
  store = openStore({ dataDir, now: clock.now });
  store.environments.upsert(LOCAL);
  buildScaleStore(store, { orders: 3000, batchSize: 500, environmentId: LOCAL.id }, clock);
  // A few left in `sending`, as a crash would leave them.
  store.orders.claimForSending(LOCAL.id, 3);
  // The free-text index filled, as the app's background indexer fills it (search-indexer.ts), but for the last 100.
  while (store.audit.searchBacklog() > 100)
    store.audit.indexForSearch(Math.min(5_000, store.audit.searchBacklog() - 100));
}, 60_000);

afterAll(() => {
  Database.prototype.prepare = originalPrepare;
  store.close();
  removeDir(dataDir);
});

const env = LOCAL.id;

describe('the Orders screen (newest first)', () => {
  const page = { environmentId: env, newestFirst: true, limit: 100 } as const;
  it.each<[string, Record<string, unknown>, RegExp?]>([
    ['no filter', {}],
    ['a state', { states: ['queued'] }, /orders_by_state/],
    ['problem states', { states: ['in_doubt', 'held', 'rejected'] }, /orders_by_state/],
    ['a state with nothing in it', { states: ['cancel_refused'] }, /orders_by_state/],
    ['a clinic', { clinicCode: 'CLINIC-B' }, /orders_by_clinic\b/],
    ['a clinic order id', { clinicOrderId: 'CO-00000042' }, /orders_by_clinic_order_id/],
    ['a remote status', { remoteStatus: 'Prescription Dispatched' }, /orders_by_remote_status/],
    ['a date range', { createdFrom: '2026-01-05', createdTo: '2026-01-06' }, /orders_by_created_at/],
    ['a surname', { patientSurname: 'smi' }, /order_surnames_by_key/],
    // Williams, Wilson, Wright: 30% of the orders, so the orders are read newest first and each looked up.
    ['a surname many share', { patientSurname: 'w' }, /SEARCH s (EXISTS )?USING INTEGER PRIMARY KEY \(rowid=\?\)/],
    ['a surname and a state', { patientSurname: 'smi', states: ['created'] }, /order_surnames_by_key/],
    ['a batch', { batchId: 2 }, /orders_by_batch/],
    // The Submissions screen's "Orders that need attention": the attention states and the flagged orders.
    ['needing attention', { needsAttention: true }, /orders_service_noted/],
    ['a page after the first', { beforeId: 2500 }],
  ])('%s', (_name, filter, index) => {
    expectIndexed(() => store.orders.list({ ...page, ...filter }), index, { sorts: 'createdFrom' in filter });
  });

  it('a surname finds the same orders, newest first, whether it is rare or shared by many', () => {
    const expected = (prefix: string, beforeId: number) =>
      (
        store.db
          .prepare(
            `SELECT o.id FROM orders o JOIN order_surnames s ON s.order_id = o.id
             WHERE s.surname_key >= ? AND s.surname_key < ? AND o.environment_id = ? AND o.id < ?
             ORDER BY o.id DESC LIMIT 100`,
          )
          .all(prefix, `${prefix}\u{10FFFF}`, env, beforeId) as Array<{ id: number }>
      ).map((row) => row.id);
    for (const prefix of ['w', 'smi', 'patel1']) {
      const first = store.orders.list({ ...page, patientSurname: prefix }).map((o) => o.id);
      expect(first.length).toBeGreaterThan(0);
      expect(first).toEqual(expected(prefix, Number.MAX_SAFE_INTEGER));
      const next = store.orders.list({ ...page, patientSurname: prefix, beforeId: first.at(-1)! }).map((o) => o.id);
      expect(next).toEqual(expected(prefix, first.at(-1)!));
    }
  });

  it('oldest first, as the poller and recovery page', () => {
    expectIndexed(() => store.orders.list({ environmentId: env, afterId: 10, limit: 100 }));
    expectIndexed(() => store.orders.list({ environmentId: env, states: ['sending'], limit: 100 }), /orders_by_state/);
  });

  it('pages newest first, through every order once', () => {
    const seen: number[] = [];
    for (let beforeId: number | undefined; ;) {
      const rows = store.orders.list({ ...page, limit: 700, ...(beforeId ? { beforeId } : {}) });
      seen.push(...rows.map((order) => order.id));
      if (rows.length < 700) break;
      beforeId = rows[rows.length - 1]!.id;
    }
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(new Set(seen).size).toBe(3000);
  });

  it('several states: merged newest first, the same orders as one filter over all', () => {
    const states: OrderState[] = ['rejected', 'in_doubt', 'held'];
    const merged = store.orders.list({ ...page, states, limit: 50 }).map((order) => order.id);
    const all = store.orders
      .list({ environmentId: env, limit: 10_000 })
      .filter((order) => states.includes(order.state))
      .map((order) => order.id)
      .sort((a, b) => b - a)
      .slice(0, 50);
    expect(merged).toEqual(all);
  });

  it('order detail and timeline', () => {
    expectIndexed(() => store.orders.get(42));
    expectIndexed(() => store.audit.forOrder(42), /audit_entries_by_order/);
  });
});

describe('counts and progress', () => {
  it("the count of orders needing attention (submit's) reads the kept counts and the flagged orders' index", () => {
    expectIndexed(() => store.orders.countNeedingAttention(env), /orders_service_noted/);
  });

  it('countByState reads the kept counts, which match a count of the rows', () => {
    const plans = plansOf(() => store.orders.countByState(env));
    expect(plans.map((p) => p.sql).join('\n')).not.toMatch(/\bFROM orders\b/);
    const counted = Object.fromEntries(ORDER_STATES.map((state) => [state, 0])) as Record<OrderState, number>;
    for (const row of store.db.prepare('SELECT state, count(*) AS n FROM orders GROUP BY state').all() as Array<{
      state: OrderState;
      n: number;
    }>) {
      counted[row.state] = row.n;
    }
    expect(store.orders.countByState(env)).toEqual(counted);
    expect(store.orders.countByState()).toEqual(counted);
  });

  it("migration 14's list of states is the code's", () => {
    expect(JSON.parse(ORDER_STATES_JSON)).toEqual([...ORDER_STATES]);
  });

  it('the counts follow inserts and state changes, per environment', () => {
    const before = store.orders.countByState(env);
    const savepoint = store.db.transaction(() => {
      const [id] = store.orders.claimForSending(env, 1).map((order) => order.id);
      expect(store.orders.countByState(env)).toMatchObject({ queued: before.queued - 1, sending: before.sending + 1 });
      store.orders.transition(
        id!,
        ['sending'],
        'queued',
        {},
        { actor: 'system', action: 'order.requeued', details: {} },
      );
      expect(store.orders.countByState(env)).toEqual(before);
      throw new Error('roll back');
    });
    expect(() => savepoint()).toThrow('roll back');
    expect(store.orders.countByState(env)).toEqual(before);
  });

  it("the outbox's open work", () => {
    expectIndexed(() => store.outboxQueue.openWork(env));
    expect(store.outboxQueue.openWork(env)).toMatchObject({ sending: 3 });
  });

  it('the submitter: claim, due lookups and cancels, next due', () => {
    // Migration 22: queued and in-doubt orders, due first, through partial indexes that hold only those.
    expectIndexed(() => store.outboxQueue.dueInDoubt(env, 4), /USING INDEX orders_in_doubt_due \(environment_id=\?\)/);
    // Sorted by when each is due: the orders waiting for a cancel to be sent, which are few.
    expectIndexed(() => store.outboxQueue.dueCancels(env, 4), /orders_by_state/, { sorts: true });
    // Each open state read on its own, as a range of one state (never every order of the environment).
    const nextDue = plansOf(() => store.outboxQueue.nextDueAt(env));
    expectIndexed(() => store.outboxQueue.nextDueAt(env));
    const reads = nextDue.flatMap(({ plan }) => plan.filter((line) => /^SEARCH (orders|o)\b/.test(line.trim())));
    expect(reads, reads.join('\n')).toHaveLength(3);
    for (const line of reads) {
      expect(line).toMatch(
        /USING INDEX (orders_by_state \(environment_id=\? AND state=\?\)|orders_\w+_due \(environment_id=\?\))/,
      );
    }
    // Rolled back: the claim's plan, without moving orders for the other tests.
    const savepoint = store.db.transaction(() => {
      expectIndexed(() => store.orders.claimForSending(env, 4), /USING INDEX orders_queued_due \(environment_id=\?\)/);
      expectIndexed(() => store.orders.claimDue(env, 4), /USING INDEX orders_queued_due \(environment_id=\?\)/);
      throw new Error('roll back');
    });
    expect(() => savepoint()).toThrow('roll back');
  });

  it('the due indexes hold only the orders open in their state (migration 22)', () => {
    const count = (sql: string) => store.db.prepare(sql).pluck().get() as number;
    for (const [index, state] of [
      ['orders_queued_due', 'queued'],
      ['orders_in_doubt_due', 'in_doubt'],
    ] as const) {
      const inState = count(`SELECT count(*) FROM orders WHERE state = '${state}'`);
      expect(inState, state).toBeGreaterThan(0);
      // The index's entries (its cells, leaf and interior: an index's interior cells hold keys too): the orders in
      // its state, no other.
      const entries = count(`SELECT sum(ncell) FROM dbstat WHERE name = '${index}' AND pagetype = 'leaf'`);
      const interior = count(
        `SELECT coalesce(sum(ncell), 0) FROM dbstat WHERE name = '${index}' AND pagetype = 'internal'`,
      );
      expect(entries + interior, index).toBe(inState);
    }
    // Not every order, as orders_due_in_order held: most of the store's orders are neither queued nor in doubt.
    expect(count("SELECT count(*) FROM orders WHERE state IN ('queued', 'in_doubt')")).toBeLessThan(
      count('SELECT count(*) FROM orders') / 4,
    );
    expect(count("SELECT count(*) FROM sqlite_schema WHERE name = 'orders_due_in_order'")).toBe(0);
  });
});

describe('the poller and start-up', () => {
  it("the poller's round reads the watched orders through their index", () => {
    expectIndexed(() => store.orders.polled(env, 0, 200), /orders_polled/);
  });

  it('the watched orders are exactly what the poller keeps of the tracked states', () => {
    const polled = new Set<number>();
    for (let afterId = 0; ;) {
      const rows = store.orders.polled(env, afterId, 500);
      rows.forEach((order) => polled.add(order.id));
      if (rows.length < 500) break;
      afterId = rows[rows.length - 1]!.id;
    }
    const kept = store.orders
      .list({ environmentId: env, states: TRACKED_STATES, limit: 10_000 })
      .filter(
        (order) =>
          order.pharmacyOrderId !== null && (isTracked(order) || order.remoteStatus === 'Prescription Dispatched'),
      )
      .map((order) => order.id);
    expect(kept.length).toBeGreaterThan(0);
    expect([...polled].sort((a, b) => a - b)).toEqual(kept);
  });

  it("migration 14's watched-orders WHERE names the poller's states and statuses", () => {
    for (const state of TRACKED_STATES) expect(POLLED_ORDERS_WHERE).toContain(`'${state}'`);
    const ends = SETTLED_STATUSES.filter((status) => status !== 'Prescription Dispatched');
    expect(ends.sort()).toEqual(['Prescription Processed', CANCELLED_STATUS].sort());
    expect(DISPATCHED_STATUSES).toContain('Prescription Dispatched');
    for (const status of ends) expect(POLLED_ORDERS_WHERE).toContain(`'${status}'`);
  });

  it('start-up recovery reads only the orders in sending', () => {
    const savepoint = store.db.transaction(() => {
      expectIndexed(() => recoverInterrupted(store, env, new Date()), /orders_by_state/);
      throw new Error('roll back');
    });
    expect(() => savepoint()).toThrow('roll back');
  });
});

describe('the log screen', () => {
  it.each<[string, Record<string, unknown>, RegExp?]>([
    ['first page', {}],
    ['one order', { orderId: 42 }, /audit_entries_by_order/],
    ['a clinic order id', { clinicOrderId: 'CO-00000042' }, /orders_by_clinic_order_id/],
    ['an action', { action: 'order.created' }, /audit_entries_by_action/],
    ['every order action', { action: 'order.' }, /audit_entries_by_action/],
    // Free text (migration 017): the trigram index drives the read, newest first, no sort.
    ['free text', { search: 'co-00000042' }, /audit_search/],
    ['free text of one kind', { search: 'status', action: 'order.' }, /audit_search/],
  ])('%s', (_name, filter, index) => {
    // By clinic order id: the entries of the orders with that id (one, or a few re-imported), sorted.
    expectIndexed(() => store.audit.search({ limit: 100, ...filter }), index, { sorts: 'clinicOrderId' in filter });
  });

  it('an action prefix merges its actions newest first', () => {
    const merged = store.audit.search({ action: 'order.', limit: 60 }).map((entry) => entry.seq);
    const expected = (
      store.db
        .prepare(
          `SELECT a.seq FROM audit_entries a JOIN audit_names n ON n.id = a.action WHERE n.name LIKE 'order.%'
           ORDER BY a.seq DESC LIMIT 60`,
        )
        .all() as Array<{ seq: number }>
    ).map((row) => row.seq);
    expect(merged).toEqual(expected);
  });

  it('free text finds what reading the whole log finds, newest first and oldest first, indexed or not yet', () => {
    const everything = store.audit.page(0, 1_000_000).map((row) => ({ seq: row.seq, text: searchableText(row) }));
    const texts = [
      'CO-00000042',
      'co-0000004',
      'httpStatus',
      'order.created',
      '"',
      'zz',
      'O-',
      '201',
      'prescription',
      'no such text',
    ];
    const check = () => {
      for (const text of texts) {
        const expected = everything.filter((row) => row.text.includes(text.toLowerCase())).map((row) => row.seq);
        const newest = store.audit.search({ search: text, limit: 500 }).map((entry) => entry.seq);
        expect(newest, text).toEqual(expected.slice().reverse().slice(0, 500));
        const oldest = store.audit.filteredPage({ search: text }, 0, 50).map((row) => row.seq);
        expect(oldest, text).toEqual(expected.slice(0, 50));
        // Pages that cross the index's mark, both ways.
        const mark = store.audit.lastSeq() - store.audit.searchBacklog();
        const across = store.audit.filteredPage({ search: text }, mark - 200, 300).map((row) => row.seq);
        expect(across, text).toEqual(expected.filter((seq) => seq > mark - 200).slice(0, 300));
        const before = store.audit.search({ search: text, beforeSeq: mark + 50, limit: 120 }).map((e) => e.seq);
        expect(before, text).toEqual(
          expected
            .filter((seq) => seq < mark + 50)
            .reverse()
            .slice(0, 120),
        );
      }
    };
    // The last 100 entries not indexed yet, then all of them.
    expect(store.audit.searchBacklog()).toBe(100);
    check();
    while (store.audit.indexForSearch(1_000) > 0);
    expect(store.audit.searchBacklog()).toBe(0);
    check();
  });

  it('a clinic order id finds the entries of that order', () => {
    const order = store.orders.list({ environmentId: env, clinicOrderId: 'CO-00000042' })[0]!;
    expect(store.audit.search({ clinicOrderId: 'CO-00000042' }).map((entry) => entry.seq)).toEqual(
      store.audit
        .forOrder(order.id)
        .map((entry) => entry.seq)
        .reverse(),
    );
  });
});
