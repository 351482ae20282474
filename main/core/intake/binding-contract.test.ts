import { afterEach, describe, expect, it } from 'vitest';
import { sendWithLibrary } from '../../../test/support/hl7-client.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';

// Finding 27 from the app: an HL7 profile's binding (peers, clinics) read and set through the contract, as the
// Intake screen does, with the CLI's rules and words; saving the profile again from the import screen keeps it;
// and the intake the app then starts refuses the bound sender from another address.

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const FROM = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' };
const hl7Profile = (constants: Record<string, string>) => ({
  name: 'EPR seven',
  columns: {},
  constants,
  valueMaps: {},
  hl7Sender: { application: FROM.sendingApplication, facility: FROM.sendingFacility, messageType: 'RDE^O11' },
});
const CONSTANTS = { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' };

describe('sender binding through the contract', () => {
  it('lists, sets with the CLI rules, keeps it across profiles.save, clears it, and the next intake enforces it', async () => {
    t = await openTestCore('binding-contract');
    const api = t.api;
    await api.call('profiles.save', { profile: hl7Profile(CONSTANTS) });
    await api.call('profiles.save', {
      profile: { name: 'Some CSV', columns: { surname: 'Surname' }, constants: {}, valueMaps: {} },
    });
    // Only HL7 profiles have a sender to bind; a new one is unbound.
    expect(await api.call('profiles.bindings', {})).toEqual([
      {
        profile: 'EPR seven',
        sender: 'EPR-7^CLINIC-H',
        messageType: 'RDE^O11',
        clinics: null,
        peers: null,
        updatedAt: expect.any(String) as unknown,
      },
    ]);

    const set = (clinics: string[], peers: string[], profile = 'EPR seven') =>
      api.call('profiles.setBinding', { profile, clinics, peers });
    // A bad entry is refused naming it and why, in the CLI's words; nothing is saved.
    await expect(set(['CLINIC-H'], ['10.20.0.0/16', '10.20.0.0/33'])).rejects.toMatchObject({
      code: 'invalid-input',
      message: 'Peers: "10.20.0.0/33": the prefix length after / is 0 to 32 for an IPv4 block',
    });
    await expect(set(['CLINIC-H'], ['clinic.example'])).rejects.toMatchObject({
      message: 'Peers: "clinic.example" is not an IP address or CIDR block (e.g. 10.20.0.0/16)',
    });
    await expect(set(['C'.repeat(65)], [])).rejects.toMatchObject({
      message: `Clinics: "${'C'.repeat(64)}…" is longer than a clinic code (64 characters)`,
    });
    const tooMany = Array.from({ length: 33 }, (_, i) => `10.0.0.${i}`);
    await expect(set([], tooMany)).rejects.toMatchObject({
      message: 'Peers: at most 32 peers bind a sender (33 given)',
    });
    await expect(set([], ['::1'], 'Some CSV')).rejects.toMatchObject({
      message: `"Some CSV" is a CSV profile: only an HL7 profile's sender is bound to peers and clinics.`,
    });
    await expect(set([], ['::1'], 'Nobody')).rejects.toMatchObject({ message: 'There is no profile "Nobody".' });
    // The contract's own bounds refuse a hostile caller's long lists before the core reads them.
    await expect(
      set(
        [],
        Array.from({ length: 201 }, () => '::1'),
      ),
    ).rejects.toMatchObject({
      code: 'invalid-input',
      issues: [{ path: 'peers' }],
    });
    expect((await api.call('profiles.bindings', {}))[0]).toMatchObject({ clinics: null, peers: null });

    // Trimmed and each once, as the CLI keeps repeated flags.
    const bound = await set([' CLINIC-H ', 'CLINIC-J', 'CLINIC-H'], ['10.20.0.0/16', ' 10.20.0.0/16']);
    expect(bound).toMatchObject({ clinics: ['CLINIC-H', 'CLINIC-J'], peers: ['10.20.0.0/16'] });

    // The import screen's save (no binding in it) changes the mapping and keeps the binding.
    await api.call('profiles.save', { profile: hl7Profile({ ...CONSTANTS, courierCode: 'DPD' }) });
    const [kept] = await api.call('profiles.list', {});
    expect(kept!.profile).toMatchObject({
      constants: { courierCode: 'DPD' },
      clinics: ['CLINIC-H', 'CLINIC-J'],
      peers: ['10.20.0.0/16'],
    });

    // The app's intake uses it: this test's peer is 127.0.0.1, outside 10.20.0.0/16, so EPR-7 is refused (AR).
    const started = await api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, port: 0 });
    const port = Number(started.channels[0]!.address.split(':')[1]);
    const send = (controlId: string) =>
      sendWithLibrary(port, [
        writeRde011(uniqueOrder({}, controlId), { controlId, timestamp: '20261126101500', ...FROM }),
      ]);
    expect((await send('BIND-1')).map((ack) => ack.get('MSA.1'))).toEqual(['AR']);

    // Cleared (empty lists): unbound again, and the same sender from here is read (AA) by the live intake.
    const cleared = await set([], []);
    expect(cleared).toMatchObject({ clinics: null, peers: null });
    const [plain] = await api.call('profiles.list', {});
    expect(plain!.profile).not.toHaveProperty('peers');
    expect(plain!.profile).not.toHaveProperty('clinics');
    expect(plain!.profile).toMatchObject({ constants: { courierCode: 'DPD' } });
    expect((await send('BIND-2')).map((ack) => ack.get('MSA.1'))).toEqual(['AA']);
    await api.call('intake.stop', {});
  });

  it('audits every change of a binding, and refuses to move a bound profile to another sender', async () => {
    t = await openTestCore('binding-audit');
    const api = t.api;
    const changes = async () =>
      (await api.call('log.list', { action: 'intake.binding.changed' })).entries
        .reverse()
        .map((entry) => [entry.details.binding, entry.details.previousBinding]);
    await api.call('profiles.save', { profile: hl7Profile(CONSTANTS) });
    // An unbound profile saved binds nothing: not a binding change.
    expect(await changes()).toEqual([]);
    const set = (clinics: string[], peers: string[]) =>
      api.call('profiles.setBinding', { profile: 'EPR seven', clinics, peers });
    await set(['CLINIC-H'], ['10.20.0.0/16']);
    await api.call('profiles.save', { profile: hl7Profile({ ...CONSTANTS, courierCode: 'DPD' }) });
    await set(['CLINIC-H'], []);

    // A page's profiles.save naming another sender for the bound profile would leave EPR-7 open to any peer.
    const moved = {
      ...hl7Profile(CONSTANTS),
      hl7Sender: { application: 'OTHER', facility: 'X', messageType: 'RDE^O11' },
    };
    await expect(api.call('profiles.save', { profile: moved })).rejects.toMatchObject({
      code: 'invalid-input',
      message:
        '"EPR seven" binds EPR-7^CLINIC-H to its peers and clinics for live intake; saving it for OTHER^X would ' +
        'leave EPR-7^CLINIC-H unbound. Save this mapping under another name, or clear the binding on the Intake ' +
        'screen first.',
    });
    expect((await api.call('profiles.bindings', {}))[0]).toMatchObject({ sender: 'EPR-7^CLINIC-H' });
    await set([], []);
    // Unbound, it may move: a mapping saved for another sender is not a binding change.
    await api.call('profiles.save', { profile: moved });

    expect(await changes()).toEqual([
      [
        'EPR-7^CLINIC-H (profile EPR seven): clinics CLINIC-H; peers 10.20.0.0/16',
        'EPR-7^CLINIC-H (profile EPR seven): unbound',
      ],
      [
        'EPR-7^CLINIC-H (profile EPR seven): clinics CLINIC-H',
        'EPR-7^CLINIC-H (profile EPR seven): clinics CLINIC-H; peers 10.20.0.0/16',
      ],
      ['EPR-7^CLINIC-H (profile EPR seven): unbound', 'EPR-7^CLINIC-H (profile EPR seven): clinics CLINIC-H'],
    ]);
    const entries = (await api.call('log.list', { action: 'intake.binding.changed' })).entries;
    expect(entries.map((entry) => [entry.actor, entry.details.sender])).toEqual(
      Array.from({ length: 3 }, () => ['user', 'EPR-7^CLINIC-H']),
    );
    expect((await api.call('log.verify', {})).ok).toBe(true);
  });
});
