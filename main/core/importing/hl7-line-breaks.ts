import { FIELDS, describePath, fieldIndex, itemPath } from '../model/field-catalogue.js';
import type { Problem } from '../model/imported-order.js';
import type { Cell } from './order-builder.js';
import { capitalise, problem, quote } from './problems.js';

/**
 * HL7's `\.br\`, `\.sp\` and a hex escape of CR or LF are read as line breaks (hl7-escapes.ts). A dosage is FT text,
 * where they are the layout the sender asked for; any other field is one line (a name, an address line, an order id),
 * and a line break there was sent with nothing said, where a CSV cell's gets csv.lineBreakInCell. Said, not mended:
 * the sender may have meant two values.
 */

const MULTILINE: ReadonlySet<number> = new Set([fieldIndex('dosageInstructions')!]);
const BREAK = /[\r\n]/;

export function hl7LineBreakProblems(
  order: readonly (Cell | undefined)[],
  items: readonly (readonly (Cell | undefined)[])[],
  file: string,
  message: number,
): Problem[] {
  const problems: Problem[] = [];
  const check = (cell: Cell | undefined, index: number, path: string) => {
    if (!cell || MULTILINE.has(index) || !BREAK.test(cell.value)) return;
    const from = cell.provenance.kind === 'hl7' ? `${cell.provenance.path} ` : '';
    const shown = quote(cell.value.replace(/\r\n|\r|\n/g, ' ↵ '));
    problems.push(
      problem(
        'warning',
        file,
        { message },
        'hl7.lineBreakInValue',
        `Message ${message}: ${from}(${describePath(path)} ${shown}) holds a line break (↵), written as a formatting command such as \\.br\\ or as an escaped line end; it is sent with the line break, as written. ${capitalise(describePath(path))} is usually one line, so it may hold two values: check it, and write it on one line in the preview if so.`,
        path,
      ),
    );
  };
  order.forEach((cell, index) => check(cell, index, FIELDS[index]!.path));
  items.forEach((cells, item) => cells.forEach((cell, index) => check(cell, index, itemPath(index, item))));
  return problems;
}
