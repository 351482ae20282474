import type { Hl7Message, Hl7Segment } from '../model/hl7-adapter.js';
import type { Problem } from '../model/imported-order.js';
import { fieldIndex, itemPath } from '../model/field-catalogue.js';
import { problem, quote } from './problems.js';

/**
 * RXC segments give the components of a compound item (an IV mixture, a made-up cream): HL7 table 0166's B the base,
 * A an additive. An order item carries one product (RXE-2 or RXO-1), so they are never sent. An additive, or a
 * component of no known type, changes what is dispensed: an error naming it. Bases only (often the product RXE-2 already
 * names, written again) are a warning, so the admin checks the item is the whole of it.
 *
 * In RDE^O11 an item's RXC follow its RXO (the order detail) and its RXE; each ORC starts a group, so a component
 * belongs to the item segment before it in its group, else to the first one after it.
 */

const MEDICATION = fieldIndex('medication')!;

function componentText(rxc: Hl7Segment): string {
  const name = rxc.value(2, 2) || rxc.value(2, 1) || '(no product)';
  const amount = [rxc.value(3), rxc.value(4, 2) || rxc.value(4, 1)].filter(Boolean).join(' ');
  return amount ? `${name} ${amount}` : name;
}

function addTo(byItem: Map<number, Hl7Segment[]>, item: number, rxcs: Hl7Segment[]): void {
  byItem.set(item, [...(byItem.get(item) ?? []), ...rxcs]);
}

export function compoundProblems(message: Hl7Message, file: string, index: number): Problem[] {
  const itemName = message.first('RXE') ? 'RXE' : 'RXO';
  const byItem = new Map<number, Hl7Segment[]>();
  let items = 0;
  let current: number | undefined;
  let pending: Hl7Segment[] = [];
  for (const segment of message.segments) {
    if (segment.name === 'ORC') current = undefined;
    else if (segment.name === itemName) {
      current = items++;
      if (pending.length > 0) addTo(byItem, current, pending);
      pending = [];
    } else if (segment.name === 'RXC') {
      if (current === undefined) pending.push(segment);
      else addTo(byItem, current, [segment]);
    }
  }
  if (pending.length > 0 && items > 0) addTo(byItem, items - 1, pending);

  const product = itemName === 'RXE' ? 'RXE-2' : 'RXO-1';
  const problems: Problem[] = [];
  for (const [item, rxcs] of byItem) {
    const described = rxcs.map((rxc) => {
      const type = rxc.value(1).toUpperCase();
      const kind = type === 'B' ? 'base' : type === 'A' ? 'additive' : `type ${quote(type || '(empty)')}`;
      return { type, text: `segment ${rxc.position + 1} ${quote(componentText(rxc))} (${kind})` };
    });
    const added = described.filter((component) => component.type !== 'B');
    const list = (components: typeof described) => components.map((component) => component.text).join(', ');
    problems.push(
      added.length > 0
        ? problem(
            'error',
            file,
            { message: index },
            'hl7.compound',
            `Item ${item + 1} is a compound: RXC ${list(added)} ${added.length === 1 ? 'is a component' : 'are components'} of it besides its product (${product}). An order item carries one product, so ${added.length === 1 ? 'it' : 'they'} would not be sent; ask the sender to order the compound as one product, or send it another way.`,
            itemPath(MEDICATION, item),
          )
        : problem(
            'warning',
            file,
            { message: index },
            'hl7.compoundBase',
            `Item ${item + 1} names its base in RXC ${list(described)}; an order item carries only its product (${product}), so the RXC is not sent: check that product is the whole item.`,
            itemPath(MEDICATION, item),
          ),
    );
  }
  return problems;
}
