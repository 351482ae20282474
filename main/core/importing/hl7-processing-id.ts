import type { Hl7Message } from '../model/hl7-adapter.js';
import type { Problem } from '../model/imported-order.js';
import { problem, quote } from './problems.js';

/**
 * MSH-11 says whether a message is live. HL7 table 0103's T (training) and D (debugging) come from a sender's test
 * system, and table 0207's A (archive), R (restore from archive) and I (initial load) re-send orders of the past:
 * none is a prescription to dispense now, so each is an error naming the value. P (production), an empty MSH-11 and
 * 0207's T (current processing) are live; any other value is left to the sender's agreement.
 */

const NOT_LIVE_ID: Record<string, string> = {
  T: 'training (a test system)',
  D: 'debugging (a test system)',
};
const NOT_CURRENT_MODE: Record<string, string> = {
  A: 'archive: an order of the past, sent again',
  R: 'restore from archive: an order of the past, sent again',
  I: 'initial load: orders of the past, loaded into a new system',
};

/**
 * `sandbox`: the environment is the local sandbox, where a test system's messages are what a supplier sends while
 * trying Rx Batch out: read, with a warning that a live environment refuses them.
 */
export function processingIdProblem(
  message: Hl7Message,
  file: string,
  index: number,
  sandbox = false,
): Problem | undefined {
  const msh = message.first('MSH');
  if (!msh) return undefined;
  const id = msh.value(11, 1).trim().toUpperCase();
  const mode = msh.value(11, 2).trim().toUpperCase();
  const idMeaning = NOT_LIVE_ID[id];
  const modeMeaning = NOT_CURRENT_MODE[mode];
  if (!idMeaning && !modeMeaning) return undefined;
  const said = idMeaning
    ? `MSH-11 (processing id) is ${quote(id)}, ${idMeaning}`
    : `MSH-11.2 (processing mode) is ${quote(mode)}, ${modeMeaning}`;
  if (sandbox) {
    return problem(
      'warning',
      file,
      { message: index },
      'hl7.notLive',
      `Message ${index} is not a live order: ${said}. Read because this is the local sandbox; a live environment refuses it, so the sender's live system must send MSH-11 P.`,
    );
  }
  return problem(
    'error',
    file,
    { message: index },
    'hl7.notLive',
    `Message ${index} is not a live order: ${said}. Its medicine must not be dispensed from it; ask the sender to send the prescription from their live system (MSH-11 P).`,
  );
}
