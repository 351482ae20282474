import { openStore } from '../main/core/store/store.js';
import { LOCAL, manualClock, removeDir, sampleOrder, tempDataDir } from '../main/core/store/testing/store-fixtures.js';

/**
 * Issue #16: what migration 14's counts (three triggers on `orders`) and its indexes cost the outbox's hot path. One
 * store per variant, the same work: enqueue, claim, and the create's attempt + transition + audit entry, in
 * commits of 8 answers as the submitter makes them. Variants: as migrated (14), 14 without the count triggers,
 * and 14 put back to 13's indexes (orders_due instead of orders_by_state, no polled/clinic/status/date indexes) and
 * no triggers. Rounds alternate the variants; this process's CPU time an order (steadier than wall time on a
 * shared machine). `npx tsx bench/transition-cost.ts [--orders 4000] [--rounds 5]`
 */

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ORDERS = argument('orders', 4000);
const ROUNDS = argument('rounds', 5);

type Variant = 'migration 14' | 'no count triggers' | 'as migration 13';

function run(variant: Variant): { enqueueUs: number; sendUs: number } {
  const dataDir = tempDataDir('rx-transition-cost-');
  const clock = manualClock('2026-01-05T08:00:00.000Z');
  const store = openStore({ dataDir, now: clock.now });
  try {
    store.environments.upsert(LOCAL);
    // CPU, not the disk: the submitter's commits are NORMAL and made durable by a background fsync.
    store.db.pragma('synchronous = OFF');
    if (variant !== 'migration 14') {
      store.db.exec(`DROP TRIGGER order_state_counts_insert; DROP TRIGGER order_state_counts_update;
        DROP TRIGGER order_state_counts_delete; DROP TRIGGER order_state_counts_moved;`);
    }
    if (variant === 'as migration 13') {
      store.db.exec(`DROP INDEX orders_by_state; DROP INDEX orders_by_clinic; DROP INDEX orders_by_remote_status;
        DROP INDEX orders_by_created_at; DROP INDEX orders_polled;
        CREATE INDEX orders_due ON orders (environment_id, state, next_attempt_at);`);
    }
    const batch = store.batches.create({
      environmentId: LOCAL.id,
      sourceFileName: 'o.csv',
      kind: 'csv',
      rowCount: ORDERS,
      invalidCount: 0,
    });
    const orders = Array.from({ length: ORDERS }, (_, i) => sampleOrder({ clinicOrderId: `T-${i}` }));
    const c0 = process.cpuUsage();
    store.orders.enqueue(batch.id, orders, { actor: 'user', action: 'batch.accepted', details: {} });
    const c1 = process.cpuUsage();
    const at = clock.now();
    for (;;) {
      const claimed = store.inTransaction(() => {
        const claim = store.orders.claimForSending(LOCAL.id, 8);
        for (const order of claim) {
          store.attempts.recordWithTransitionWithin(
            { orderId: order.id, operation: 'create', startedAt: at, latencyMs: 5, httpStatus: 201, outcome: 'ok' },
            () => ({ from: ['sending'], to: 'created', patch: { pharmacyOrderId: order.id }, action: 'order.created' }),
          );
        }
        return claim.length;
      });
      if (claimed === 0) break;
    }
    const c2 = process.cpuUsage();
    const cpu = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => b.user - a.user + b.system - a.system;
    return { enqueueUs: cpu(c0, c1) / ORDERS, sendUs: cpu(c1, c2) / ORDERS };
  } finally {
    store.close();
    removeDir(dataDir);
  }
}

const variants: Variant[] = ['migration 14', 'no count triggers', 'as migration 13'];
const samples = new Map<Variant, Array<{ enqueueUs: number; sendUs: number }>>(variants.map((v) => [v, []]));
run('migration 14'); // warm-up
for (let round = 0; round < ROUNDS; round += 1) {
  for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) samples.get(variant)!.push(run(variant));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const variant of variants) {
  const list = samples.get(variant)!;
  console.log(
    `${variant.padEnd(20)} enqueue ${median(list.map((s) => s.enqueueUs)).toFixed(1)} µs/order, ` +
      `claim + create answer ${median(list.map((s) => s.sendUs)).toFixed(1)} µs/order ` +
      `(rounds: ${list.map((s) => s.sendUs.toFixed(1)).join(', ')})`,
  );
}
