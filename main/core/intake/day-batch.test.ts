import { afterEach, describe, expect, it } from 'vitest';
import { RawMllpSocket, frame } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { HL7_PROFILE, uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { StagingService } from '../staging/staging-service.js';
import { openStore, type Store } from '../store/store.js';
import { LOCAL, manualClock, removeDir, tempDataDir } from '../store/testing/store-fixtures.js';
import { IntakeService } from './intake-service.js';
import { dayBatchName } from './message-staging.js';
import { MllpListener } from './mllp-listener.js';

// Issue #17, "hold for review": a sender's messages of one day are gathered into one batch in the preview, in
// the order they came; another sender has its own; a new day, or a batch the admin discarded, starts a new one.

const EPR = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' };
const GP = { sendingApplication: 'GPX', sendingFacility: 'SURGERY-2' };

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function start() {
  const dataDir = tempDataDir('rx-day-batch-');
  // 10:00 UTC: the same date in any time zone within ±10 hours.
  const clock = manualClock('2026-11-26T10:00:00.000Z');
  const store: Store = openStore({ dataDir, now: clock.now });
  store.environments.upsert(LOCAL);
  const staging = new StagingService({ store, codeListsFor: (id) => store.environments.get(id)!.codeLists });
  for (const [name, sender] of [
    ['EPR', EPR],
    ['GP', GP],
  ] as const) {
    staging.saveProfile({
      ...HL7_PROFILE,
      name,
      hl7Sender: { application: sender.sendingApplication, facility: sender.sendingFacility, messageType: 'RDE^O11' },
    });
  }
  const intake = new IntakeService({ store, staging, environmentId: LOCAL.id, rules: { mode: 'hold' } });
  const listener = new MllpListener({ port: 0, handle: (raw, peer) => intake.handle(raw, peer) });
  const { port } = await listener.listen();
  cleanup = async () => {
    await listener.close();
    await intake.close();
    store.close();
    removeDir(dataDir);
  };
  let seq = 0;
  const send = async (sender: typeof EPR, order = uniqueOrder({}, 'DAY')) => {
    const socket = await RawMllpSocket.open(port);
    const controlId = `DAY-${++seq}`;
    socket.write(frame(writeRde011(order, { controlId, timestamp: '20261126101500', ...sender })));
    const [ack] = await socket.waitFor(1);
    socket.close();
    await intake.staged(); // staging follows the ACK
    expect([ack!.get('MSA.1'), ack!.get('MSA.2')]).toEqual(['AA', controlId]);
    return order;
  };
  return { store, staging, clock, send };
}

describe('hold for review: one batch per sender per day', () => {
  it("gathers a sender's messages of the day into one batch, in order, apart from another sender's", async () => {
    const { staging, send, clock } = await start();
    const first = await send(EPR);
    await send(GP);
    const second = await send(EPR, uniqueOrder({ dmdCode: 'not-a-code' }, 'DAY'));
    const third = await send(EPR);

    const batches = staging.listBatches(LOCAL.id);
    expect(batches.map((b) => b.sourceFileName).sort()).toEqual(
      [dayBatchName('EPR-7^CLINIC-H', clock.now()), dayBatchName('GPX^SURGERY-2', clock.now())].sort(),
    );
    expect(dayBatchName('EPR-7^CLINIC-H', clock.now())).toMatch(/^EPR-7\^CLINIC-H 2026-11-2[67] \(MLLP\)$/);
    const epr = batches.find((b) => b.sourceFileName.startsWith('EPR-7'))!;
    // The preview shows the three messages in the order they came, the one with a problem among them.
    const view = staging.getBatch(epr.id);
    expect(view.orders.map((o) => o.clinicOrderId)).toEqual(
      [first, second, third].map((order) => order.prescription.clinicOrderId),
    );
    expect(view.orders.map((o) => o.position)).toEqual([1, 2, 3]);
    expect(view.batch.counts).toMatchObject({ total: 3, valid: 2, invalid: 1, accepted: 0 });
    expect(staging.batch(epr.id)).toMatchObject({ rowCount: 3, invalidCount: 1 }); // the batch row counts them too
    expect(view.batch.summary?.profile).toBe('EPR');

    // Held, not sent: accepting the day's batch queues its two valid orders at once.
    expect(staging.accept(epr.id)).toMatchObject({ accepted: 2, staying: 1 });
  });

  it('starts a new batch on a new day, and after the admin discarded the open one', async () => {
    const { staging, send, clock } = await start();
    await send(EPR);
    const [today] = staging.listBatches(LOCAL.id);
    staging.discard(today!.id);
    await send(EPR);
    const [afterDiscard] = staging.listBatches(LOCAL.id);
    expect(afterDiscard!.id).not.toBe(today!.id);
    expect(afterDiscard!.sourceFileName).toBe(today!.sourceFileName);
    await send(EPR);
    expect(staging.listBatches(LOCAL.id)).toHaveLength(2); // the same day's open batch took it

    clock.advance(24 * 60 * 60 * 1000);
    await send(EPR);
    const [tomorrow] = staging.listBatches(LOCAL.id);
    expect(tomorrow!.id).not.toBe(afterDiscard!.id);
    expect(tomorrow!.sourceFileName).toBe(dayBatchName('EPR-7^CLINIC-H', clock.now()));
    expect(staging.getBatch(afterDiscard!.id).batch.counts.total).toBe(2);
    expect(staging.getBatch(tomorrow!.id).batch.counts.total).toBe(1);
  });
});
