import type { IntakeChannelView } from '../../../../shared/intake-contract.js';
import { isLoopbackHost } from '../../../../shared/loopback.js';
import type { SenderBindingView } from '../../../../shared/sender-binding-contract.js';

/** The words of the Intake screen's sender bindings (docs/security.md, finding 27), kept apart to be tested alone. */

/**
 * What an HL7 profile's sender is still open to, or undefined when both its peers and clinics are set: the plain
 * words of `serve`'s warning.
 */
export function unboundText(binding: SenderBindingView): string | undefined {
  if (binding.peers && binding.clinics) return undefined;
  if (!binding.peers && !binding.clinics) {
    return `Not bound: any computer that can reach the listener may send as ${binding.sender}, for any clinic.`;
  }
  return binding.peers
    ? `No clinics set: ${binding.sender} may order and cancel for any clinic.`
    : `No addresses set: any computer that can reach the listener may send as ${binding.sender}.`;
}

/** The host of a listener's `host:port` (`127.0.0.1:2575`, `[::]:2575`, `:::2575`). */
export function listenerHost(address: string): string {
  const at = address.lastIndexOf(':');
  return (at < 0 ? address : address.slice(0, at)).replace(/^\[|\]$/g, '');
}

/** Whether a listener on this `host:port` takes connections from other computers (not bound to loopback). */
export function admitsOtherComputers(address: string): boolean {
  return !isLoopbackHost(listenerHost(address));
}

/** Who a listener answers: what the screen says, and whether other computers are among them. */
export interface ListenerReach {
  text: string;
  otherComputers: boolean;
  /** Any computer that can reach the address is answered: no allow-list narrows it. */
  open: boolean;
}

/**
 * Who a listener answers, by its address and its allow-list together (`serve --mllp 0.0.0.0:2575 --allow 10.0.0.5`
 * answers one other computer, not any): this computer only; other computers, restricted to the allowed addresses;
 * or any computer that can reach it. Other computers decide as serve's unbound-sender warning does.
 */
export function listenerReach(listener: Pick<IntakeChannelView, 'address' | 'allowList'>): ListenerReach {
  const { address, allowList } = listener;
  const at = `The listener at ${address}`;
  if (!admitsOtherComputers(address)) {
    return { text: `${at} takes connections from this computer only.`, otherComputers: false, open: false };
  }
  if (allowList === null) {
    return {
      text:
        `${at} takes connections from any computer that can reach it: it has no allow-list ` +
        '(rx-batch serve --allow ADDRESS answers only the addresses given).',
      otherComputers: true,
      open: true,
    };
  }
  const { count, addresses } = allowList;
  const named =
    count > addresses.length ? `${addresses.join(', ')} and ${count - addresses.length} more` : addresses.join(', ');
  if (count === 0) {
    return { text: `${at} answers no one: its allow-list is empty.`, otherComputers: false, open: false };
  }
  if (allowList.loopbackOnly) {
    return {
      text: `${at} takes connections from this computer only: its allow-list names only this computer (${named}).`,
      otherComputers: false,
      open: false,
    };
  }
  return {
    text: `${at} takes connections from other computers, restricted to ${count === 1 ? '1 allowed address' : `${count} allowed addresses`}: ${named}.`,
    otherComputers: true,
    open: false,
  };
}

/** A list as typed, one entry a line (commas too): blank entries left out, the core checks the rest. */
export function entriesOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

const stringList = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((entry) => typeof entry === 'string') ? value : undefined;

/**
 * The HL7 mapping step's note on the saved profile it shows (an import's `appliedProfile`): its live-intake binding,
 * kept when the mapping is saved again, or that it has none; undefined for anything but a saved HL7 profile.
 */
export function appliedBindingText(applied: Record<string, unknown>): string | undefined {
  if (typeof applied.name !== 'string' || typeof applied.hl7Sender !== 'object' || applied.hl7Sender === null) {
    return undefined;
  }
  const peers = stringList(applied.peers);
  const clinics = stringList(applied.clinics);
  if (!peers && !clinics) {
    return (
      `Live intake: profile '${applied.name}' does not bind its sender, so any computer that can reach the ` +
      'listener may send as it, for any clinic. Bind it on the Intake screen.'
    );
  }
  const from = peers ? `connect only from ${peers.join(', ')}` : 'connect from any computer';
  const forWhom = clinics ? `act only for ${clinics.join(', ')}` : 'act for any clinic';
  return (
    `Live intake: profile '${applied.name}' lets its sender ${from} and ${forWhom}. Saving the mapping here ` +
    'keeps that; change it on the Intake screen.'
  );
}
