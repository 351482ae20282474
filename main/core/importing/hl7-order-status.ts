import type { Hl7Message } from '../model/hl7-adapter.js';
import type { Problem } from '../model/imported-order.js';
import { problem } from './problems.js';

/**
 * ORC-5 (order status, HL7 table 0038) on a new order (ORC-1 NW): senders fill it with IP (in process) or SC
 * (scheduled), which change nothing. CA (cancelled) and DC (discontinued) say the sender's system stopped the order,
 * so it is not one to dispense: an error naming the status and the ORC segment. Other statuses are left alone.
 */
const STOPPED: Record<string, string> = {
  CA: 'cancelled',
  DC: 'discontinued',
};

export function orderStatusProblem(message: Hl7Message, file: string, index: number): Problem | undefined {
  for (const orc of message.all('ORC')) {
    if (orc.value(1).trim().toUpperCase() !== 'NW') continue;
    const status = orc.value(5).trim().toUpperCase();
    const meaning = STOPPED[status];
    if (!meaning) continue;
    return problem(
      'error',
      file,
      { message: index },
      'hl7.orderStopped',
      `Message ${index} sends an order its sender has stopped: ORC-5 (order status) is '${status}', ${meaning} (ORC segment ${orc.position + 1}), although ORC-1 is NW (new order). Its medicine must not be dispensed from it; ask the sender whether the order still stands and, if so, to send it again without that status.`,
    );
  }
  return undefined;
}
