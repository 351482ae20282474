import type { CreateWithClinicV1Input } from '../../../../shared/orders.js';
import { eighteenDigitDmd, uniqueOrder } from '../../staging/testing/staging-fixtures.js';
import { writeRde011, type RdeWriterOptions } from '../rde-writer.js';

/**
 * A prescription of several items as senders write it in one RDE^O11: an ORC and RXE per item, each ORC its own
 * placer order number (ORC-2, `GROUP-1`, `GROUP-2`…) and all of them the prescription's placer group number (ORC-4,
 * the order's clinic order id). `items` picks which of the order's items the message carries (1-based), so a cancel
 * can name some of them; `placers` replaces the ORC-2s written.
 */
export function placerGroupMessage(
  order: CreateWithClinicV1Input,
  options: RdeWriterOptions & { items?: number[]; placers?: string[]; group?: string } = {},
): string {
  const { items, placers, group, ...writer } = options;
  const single = { ...order, prescribedItems: [order.prescribedItems[0]!] };
  const segments = writeRde011(single, writer).split('\r');
  const head = segments.filter((s) => !s.startsWith('ORC|') && !s.startsWith('RXE|'));
  const orc = segments.find((s) => s.startsWith('ORC|'))!;
  const id = order.prescription.clinicOrderId;
  const chosen = items ?? order.prescribedItems.map((_, index) => index + 1);
  const body = chosen.flatMap((number, index) => {
    const fields = orc.split('|');
    fields[2] = placers?.[index] ?? `${id}-${number}`;
    while (fields.length < 5) fields.push('');
    fields[4] = group ?? id;
    const rxe = writeRde011({ ...order, prescribedItems: [order.prescribedItems[number - 1]!] }, writer)
      .split('\r')
      .find((s) => s.startsWith('RXE|'))!;
    return [fields.join('|'), rxe];
  });
  return [...head, ...body].join('\r');
}

/** An order of three items (paracetamol, ibuprofen, an 18-digit dm+d code), for sending as a placer group. */
export function threeItems(): CreateWithClinicV1Input {
  const order = uniqueOrder({}, 'GRP');
  const first = order.prescribedItems[0]!;
  order.prescribedItems = [
    first,
    { ...first, dmdCode: '39695211000001102', medication: 'Ibuprofen 200mg tablets' },
    { ...first, dmdCode: eighteenDigitDmd(3), medication: 'A third product' },
  ];
  return order;
}
