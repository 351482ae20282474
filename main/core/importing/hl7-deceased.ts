import type { Hl7Message } from '../model/hl7-adapter.js';
import type { Problem } from '../model/imported-order.js';
import { problem, quote } from './problems.js';

/**
 * PID-29 (patient death date and time) and PID-30 (patient death indicator, table 0136 Y/N) say the sender records
 * the patient as dead. The map never read them, so such an order was valid and its medicine would be sent to the
 * home address: an error naming the field, for the admin to check with the sender. `""` (HL7's explicit null) and
 * N with no date are a living patient.
 */
export function deceasedProblem(message: Hl7Message, file: string, index: number): Problem | undefined {
  const pid = message.first('PID');
  if (!pid) return undefined;
  const filled = (raw: string) => (raw === '""' ? '' : raw);
  const indicator = filled(pid.value(30).trim()).toUpperCase();
  const died = filled(pid.value(29, 1).trim());
  if (indicator !== 'Y' && died === '') return undefined;
  const date = /^(\d{4})(\d{2})(\d{2})/.exec(died);
  const when = date ? `${date[1]}-${date[2]}-${date[3]}` : quote(died);
  const said = [
    ...(indicator === 'Y' ? [`PID-30 (death indicator) is 'Y'`] : []),
    ...(died !== '' ? [`PID-29 (date of death) is ${when}`] : []),
  ].join(' and ');
  return problem(
    'error',
    file,
    { message: index },
    'hl7.patientDeceased',
    `Message ${index} is for a patient the sender records as deceased: ${said}. A prescription is not dispensed for a patient who has died; check with the sender before importing this order.`,
  );
}
