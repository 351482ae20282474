import { afterEach, describe, expect, it } from 'vitest';
import { sendWithLibrary } from '../../../test/support/hl7-client.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';

// Issue #17: the environment's staging rules through the contract (the Intake screen's calls): read, saved
// (audited with the old and new rules), a bad sender refused with the reason; the next start uses them, so a
// sender set to "send" has its valid order accepted into the outbox while the default holds the others.

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const SEND_FROM = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' };
const OTHER = { sendingApplication: 'LAB-2', sendingFacility: 'CLINIC-H' };

describe('intake rules through the contract', () => {
  it('reads the default, refuses a bad sender with the reason, saves and audits, and the next start uses them', async () => {
    t = await openTestCore('intake-rules');
    expect(await t.api.call('intake.rules', { environmentId: LOCAL_SANDBOX_ID })).toEqual({
      environmentId: LOCAL_SANDBOX_ID,
      rules: { onArrival: 'hold', senders: [] },
      updatedAt: null,
    });

    const save = (senders: Array<{ sender: string; onArrival: 'send' | 'hold' }>) =>
      t!.api.call('intake.saveRules', { environmentId: LOCAL_SANDBOX_ID, rules: { onArrival: 'hold', senders } });
    await expect(save([{ sender: 'EPR|7', onArrival: 'send' }])).rejects.toMatchObject({
      code: 'invalid-input',
      issues: [
        { path: 'rules.senders.0.sender', message: '"EPR|7": | is an HL7 separator and cannot be in a sender.' },
      ],
    });
    await expect(save([{ sender: 'EPR-7^', onArrival: 'send' }])).rejects.toMatchObject({
      issues: [{ message: expect.stringMatching(/^"EPR-7\^" has nothing after the \^/) as unknown }],
    });
    await expect(
      save([
        { sender: 'EPR-7', onArrival: 'send' },
        { sender: 'EPR-7', onArrival: 'hold' },
      ]),
    ).rejects.toMatchObject({
      issues: [{ path: 'rules.senders', message: '"EPR-7" is listed twice: one rule a sender.' }],
    });
    await expect(
      t.api.call('intake.saveRules', { environmentId: 'nowhere', rules: { onArrival: 'send', senders: [] } }),
    ).rejects.toMatchObject({ code: 'invalid-input', message: 'There is no environment "nowhere".' });
    expect((await t.api.call('intake.rules', { environmentId: LOCAL_SANDBOX_ID })).updatedAt).toBeNull();

    const saved = await save([{ sender: 'EPR-7^CLINIC-H', onArrival: 'send' }]);
    expect(saved.rules).toEqual({ onArrival: 'hold', senders: [{ sender: 'EPR-7^CLINIC-H', onArrival: 'send' }] });
    expect(saved.updatedAt).not.toBeNull();
    const log = await t.api.call('log.list', { action: 'intake.rules' });
    expect(log.entries.map((entry) => [entry.action, entry.actor, entry.environmentId, entry.details])).toEqual([
      [
        'intake.rules.changed',
        'user',
        LOCAL_SANDBOX_ID,
        { intakeRules: 'hold; send: EPR-7^CLINIC-H', previousIntakeRules: 'hold' },
      ],
    ]);

    // Both senders' orders are valid (their profiles give what a message cannot carry): only the rule differs.
    for (const sender of [SEND_FROM, OTHER]) {
      await t.api.call('profiles.save', {
        profile: {
          name: sender.sendingApplication,
          columns: {},
          constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
          valueMaps: {},
          hl7Sender: {
            application: sender.sendingApplication,
            facility: sender.sendingFacility,
            messageType: 'RDE^O11',
          },
        },
      });
    }

    // The next start, with no rule of its own, runs under the saved rules and says so.
    const started = await t.api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, port: 0 });
    expect(started).toMatchObject({ onArrival: 'hold', rules: saved.rules });
    const port = Number(started.channels[0]!.address.split(':')[1]);
    const sent = uniqueOrder({}, 'RULE-SEND');
    const held = uniqueOrder({}, 'RULE-HOLD');
    const acks = await sendWithLibrary(port, [
      writeRde011(sent, { controlId: 'RULE-1', timestamp: '20261126101500', ...SEND_FROM }),
      writeRde011(held, { controlId: 'RULE-2', timestamp: '20261126101500', ...OTHER }),
    ]);
    expect(acks.map((ack) => ack.get('MSA.1'))).toEqual(['AA', 'AA']);
    const accepted = async () =>
      (await t!.api.call('log.list', { action: 'intake.accepted' })).entries.length +
      (await t!.api.call('log.list', { action: 'intake.staged' })).entries.length;
    for (let i = 0; i < 200 && (await accepted()) < 2; i += 1) await new Promise((r) => setTimeout(r, 25));

    const order = (clinicOrderId: string) =>
      t!.api.call('orders.list', { environmentId: LOCAL_SANDBOX_ID, clinicOrderId, limit: 10 });
    expect((await order(sent.prescription.clinicOrderId)).orders).toHaveLength(1);
    expect((await order(held.prescription.clinicOrderId)).orders).toHaveLength(0);
    const batches = await t.api.call('batches.list', { environmentId: LOCAL_SANDBOX_ID });
    const heldBatch = batches.find((batch) => batch.sourceFileName.startsWith('LAB-2^CLINIC-H '));
    expect(heldBatch?.counts).toMatchObject({ total: 1, staged: 1, valid: 1, accepted: 0 });
    const outcomes = await t.api.call('log.list', { action: 'intake.' });
    expect(
      outcomes.entries
        .filter((entry) => entry.action === 'intake.accepted' || entry.action === 'intake.staged')
        .map((entry) => [entry.action, entry.details.sender]),
    ).toEqual([
      ['intake.staged', 'LAB-2^CLINIC-H'],
      ['intake.accepted', 'EPR-7^CLINIC-H'],
    ]);
    const startedEntry = outcomes.entries.find((entry) => entry.action === 'intake.started');
    expect(startedEntry?.details).toEqual({ operation: 'hold', intakeRules: 'hold; send: EPR-7^CLINIC-H' });

    // Rules saved while it runs apply from the next start: the run shown keeps the ones it started with.
    await t.api.call('intake.saveRules', {
      environmentId: LOCAL_SANDBOX_ID,
      rules: { onArrival: 'send', senders: [] },
    });
    expect((await t.api.call('intake.status', {})).rules).toEqual(saved.rules);
    await t.api.call('intake.stop', {});
    const next = await t.api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, port: 0 });
    expect(next.rules).toEqual({ onArrival: 'send', senders: [] });
    // A start that gives its own default uses it for that run only, over the saved senders.
    await t.api.call('intake.stop', {});
    const override = await t.api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, port: 0, onArrival: 'hold' });
    expect(override).toMatchObject({ onArrival: 'hold', rules: { onArrival: 'hold', senders: [] } });
    expect((await t.api.call('intake.rules', { environmentId: LOCAL_SANDBOX_ID })).rules.onArrival).toBe('send');
  });
});
