import { describe, expect, it } from 'vitest';
import type { SenderBindingView } from '../../../../shared/sender-binding-contract.js';
import { admitsOtherComputers, appliedBindingText, entriesOf, listenerReach, unboundText } from './binding-text.js';

const binding = (peers: string[] | null, clinics: string[] | null): SenderBindingView => ({
  profile: 'EPR',
  sender: 'EPR-7^CLINIC-H',
  messageType: 'RDE^O11',
  peers,
  clinics,
  updatedAt: '2026-12-02T10:00:00.000Z',
});

describe('sender binding words', () => {
  it('warns plainly for an unbound sender, says which half is missing, and nothing for a bound one', () => {
    expect(unboundText(binding(null, null))).toBe(
      'Not bound: any computer that can reach the listener may send as EPR-7^CLINIC-H, for any clinic.',
    );
    expect(unboundText(binding(['10.20.0.0/16'], null))).toBe(
      'No clinics set: EPR-7^CLINIC-H may order and cancel for any clinic.',
    );
    expect(unboundText(binding(null, ['CLINIC-H']))).toBe(
      'No addresses set: any computer that can reach the listener may send as EPR-7^CLINIC-H.',
    );
    expect(unboundText(binding(['10.20.0.0/16'], ['CLINIC-H']))).toBeUndefined();
  });

  it('tells a loopback listener from one other computers reach', () => {
    expect(['127.0.0.1:2575', '[::1]:2575', '::1:2575'].map(admitsOtherComputers)).toEqual([false, false, false]);
    expect(['0.0.0.0:2575', '[::]:2575', ':::2575', '10.20.1.5:2575'].map(admitsOtherComputers)).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it("judges a listener by its address and its allow-list together, as serve's warning does", () => {
    const allowList = (addresses: string[], count = addresses.length, loopbackOnly = false) => ({
      count,
      addresses,
      loopbackOnly,
    });
    // The app's own listener, or serve on loopback: an allow-list changes nothing.
    expect(listenerReach({ address: '127.0.0.1:2575', allowList: null })).toEqual({
      text: 'The listener at 127.0.0.1:2575 takes connections from this computer only.',
      otherComputers: false,
      open: false,
    });
    expect(listenerReach({ address: '[::1]:2575', allowList: allowList(['10.0.0.5']) }).otherComputers).toBe(false);
    // rx-batch serve --mllp 0.0.0.0:2575 --allow 10.0.0.5: one other computer, not any.
    expect(listenerReach({ address: '0.0.0.0:2575', allowList: allowList(['10.0.0.5']) })).toEqual({
      text: 'The listener at 0.0.0.0:2575 takes connections from other computers, restricted to 1 allowed address: 10.0.0.5.',
      otherComputers: true,
      open: false,
    });
    expect(listenerReach({ address: '0.0.0.0:2575', allowList: allowList(['10.0.0.5', '10.0.0.6']) }).text).toBe(
      'The listener at 0.0.0.0:2575 takes connections from other computers, restricted to 2 allowed addresses: ' +
        '10.0.0.5, 10.0.0.6.',
    );
    // A long list: counted whole, the first named.
    expect(listenerReach({ address: '[::]:2575', allowList: allowList(['10.0.0.1', '10.0.0.2'], 25) }).text).toBe(
      'The listener at [::]:2575 takes connections from other computers, restricted to 25 allowed addresses: ' +
        '10.0.0.1, 10.0.0.2 and 23 more.',
    );
    // Bound to every interface with an allow-list of this computer's addresses only.
    expect(listenerReach({ address: '0.0.0.0:2575', allowList: allowList(['127.0.0.1'], 1, true) })).toEqual({
      text: 'The listener at 0.0.0.0:2575 takes connections from this computer only: its allow-list names only this computer (127.0.0.1).',
      otherComputers: false,
      open: false,
    });
    expect(listenerReach({ address: '0.0.0.0:2575', allowList: allowList([]) })).toMatchObject({
      text: 'The listener at 0.0.0.0:2575 answers no one: its allow-list is empty.',
      otherComputers: false,
    });
    // No allow-list: the warning.
    expect(listenerReach({ address: '10.20.1.5:2575', allowList: null })).toEqual({
      text:
        'The listener at 10.20.1.5:2575 takes connections from any computer that can reach it: it has no ' +
        'allow-list (rx-batch serve --allow ADDRESS answers only the addresses given).',
      otherComputers: true,
      open: true,
    });
  });

  it('reads one entry a line or by commas, leaving blank ones out and the rest for the core to check', () => {
    expect(entriesOf(' 10.20.0.0/16 \n\n::1, 10.9.9.9\n  \n10.20.0.0/33')).toEqual([
      '10.20.0.0/16',
      '::1',
      '10.9.9.9',
      '10.20.0.0/33',
    ]);
    expect(entriesOf('  \n ')).toEqual([]);
  });
});

describe("the HL7 mapping step's note on a saved profile's binding", () => {
  const sender = { application: 'EPR-7', facility: 'CLINIC-H', messageType: 'RDE^O11' };
  it('says what binds its sender, that saving keeps it, or that it is unbound; nothing for other profiles', () => {
    expect(appliedBindingText({ name: 'EPR', hl7Sender: sender, peers: ['10.20.0.0/16'], clinics: ['CLINIC-H'] })).toBe(
      "Live intake: profile 'EPR' lets its sender connect only from 10.20.0.0/16 and act only for CLINIC-H. Saving " +
        'the mapping here keeps that; change it on the Intake screen.',
    );
    expect(appliedBindingText({ name: 'EPR', hl7Sender: sender, clinics: ['CLINIC-H'] })).toContain(
      'connect from any computer and act only for CLINIC-H',
    );
    expect(appliedBindingText({ name: 'EPR', hl7Sender: sender })).toBe(
      "Live intake: profile 'EPR' does not bind its sender, so any computer that can reach the listener may send " +
        'as it, for any clinic. Bind it on the Intake screen.',
    );
    expect(appliedBindingText({ name: 'Some CSV', columns: {} })).toBeUndefined();
    expect(appliedBindingText({})).toBeUndefined();
  });
});
