import { describe, expect, it } from 'vitest';
import { RawMllpSocket, frame, sendWithLibrary } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { templateCsv, uniqueOrder, type StagingFixture } from '../staging/testing/staging-fixtures.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { SENDER_A as A, SENDER_B as B, twoSendersIntakePerTest, withoutOwnIds } from './testing/two-senders.js';

// docs/security.md finding 24: the ACK to a cancel (ORC-1 CA) must not tell its sender whether some other sender, or
// an admin's import, sent the order it names: a hostile sender could otherwise probe which clinic order ids exist
// for any clinic. The same cancel is sent, through the real MLLP listener by an independent client, to stores that
// hold another sender's order with that identity, an admin's, or none; the answers are the same bytes but for the
// ACK's own MSH-7 and MSH-10, the first time and on a resend. The admin still sees the true reason.

const start = twoSendersIntakePerTest();

type Order = ReturnType<typeof uniqueOrder>;
type Setup = (f: StagingFixture, port: number, order: Order) => Promise<void>;

const setups: Record<string, Setup> = {
  "another sender's order": async (_f, port, order) => {
    const [ack] = await sendWithLibrary(port, [writeRde011(order, { controlId: 'NW-A', ...A })]);
    expect(ack!.get('MSA.1')).toBe('AA');
  },
  "an admin's imported order": async (f, _port, order) => {
    const imported = await f.staging.importFile({
      environmentId: LOCAL.id,
      path: f.file('orders.csv', templateCsv([order])),
    });
    if (imported.status !== 'staged') throw new Error('the file was not staged');
    f.staging.accept(imported.batchId);
  },
  'no order at all': () => Promise.resolve(),
};

/** Sends B's cancel of `order` to a store set up by `setup`, then the same message again (a resend). */
async function probe(setup: Setup, order: Order) {
  const { fixture, intake, port } = await start({ mode: 'send' });
  await setup(fixture, port, order);
  await intake.staged();
  const cancel = writeRde011(order, { controlId: 'CA-PROBE', orderControl: 'CA', ...B });
  const socket = await RawMllpSocket.open(port);
  try {
    socket.write(frame(cancel));
    await socket.waitFor(1);
    socket.write(frame(cancel));
    const [first, resent] = await socket.waitFor(2);
    await intake.staged();
    return { fixture, intake, first: first!.text, resent: resent!.text };
  } finally {
    socket.close();
  }
}

describe('the ACK to a cancel tells its sender nothing about other senders’ orders', () => {
  it('answers a cancel of another sender’s or an admin’s order exactly as one of no order, first time and resent', async () => {
    const order = uniqueOrder({}, 'PROBE');
    const answers: Record<string, Awaited<ReturnType<typeof probe>>> = {};
    for (const [name, setup] of Object.entries(setups)) answers[name] = await probe(setup, order);

    const none = answers['no order at all']!;
    expect(none.first).toMatch(/\rMSA\|AE\|CA-PROBE\r/);
    expect(none.first).toContain(
      `ERR|||204^Unknown key identifier^HL70357|E||||ORC-1 CA for order '${order.prescription.clinicOrderId}' of clinic ` +
        `'${order.clinicInformation.clinicCode}' was not acted on: EPR-9\\S\\CLINIC-K sent no order with that identity, so ` +
        "nothing was cancelled. It waits for the pharmacy's review.",
    );
    expect(none.first.split('\r').filter((segment) => segment.startsWith('ERR'))).toHaveLength(1);
    for (const [name, answer] of Object.entries(answers)) {
      expect({ name, ack: withoutOwnIds(answer.first) }).toEqual({ name, ack: withoutOwnIds(none.first) });
      // A resend is answered with the first answer, byte for byte.
      expect({ name, resent: answer.resent }).toEqual({ name, resent: answer.first });
    }

    // The admin still sees why: the staged cancel's problem and the audit say whose order it was, or that none is.
    const problemsOf = (answer: (typeof answers)[string]) => {
      const batchId = answer.intake.repo.find(LOCAL.id, 'EPR-9^CLINIC-K', 'CA-PROBE')!.batchId!;
      const staged = answer.fixture.staging.getBatch(batchId, { limit: 10 }).orders;
      return staged.map((o) => [o.orderControl, o.state, o.problems.map((p) => p.code)]);
    };
    const held = (answer: (typeof answers)[string]) =>
      answer.fixture.store.audit.search({ action: 'intake.cancel.held' }).length;
    expect(problemsOf(answers["another sender's order"]!)).toEqual([['CA', 'staged', ['cancel.otherSender']]]);
    expect(problemsOf(answers["an admin's imported order"]!)).toEqual([['CA', 'staged', ['cancel.otherSender']]]);
    expect(problemsOf(none)).toEqual([['CA', 'staged', ['cancel.unknownOrder']]]);
    expect([answers["another sender's order"]!, answers["an admin's imported order"]!, none].map(held)).toEqual([
      1, 1, 0,
    ]);
    const otherSenders = answers["another sender's order"]!;
    const batchOfA = otherSenders.intake.repo.find(LOCAL.id, 'EPR-7^CLINIC-H', 'NW-A')!.batchId!;
    const [problem] = otherSenders.fixture.staging.getBatch(
      otherSenders.intake.repo.find(LOCAL.id, 'EPR-9^CLINIC-K', 'CA-PROBE')!.batchId!,
      { limit: 10 },
    ).orders[0]!.problems;
    expect(problem!.text).toContain(`which EPR-9^CLINIC-K did not send (it was accepted from batch ${batchOfA}`);
  });
});
