import type { ImportSource } from '../importing/import-source.js';
import type { CodeLists } from '../../../shared/environment.js';
import { parseWireJson } from '../../../shared/wire-json.js';
import type { ImportedOrder, Problem } from '../model/imported-order.js';
import { validateOrder } from '../importing/validate-order.js';
import { normaliseDmdCodes } from './order-edits.js';
import { identityOf } from './reassess.js';

/**
 * A `.json` file holding an array of create-with-clinic v1 bodies (what the CLI imported before the CSV and HL7
 * importer existed, and what scripts produce). Read losslessly (an 18-digit dm+d code stays exact), validated
 * with the same `validateOrder` as CSV and HL7 orders, and handed on like the importer's orders. A JSON array is
 * read whole, so its size is capped; big files belong in the CSV template, which streams.
 */

export const MAX_JSON_BYTES = 20 * 1024 * 1024;

export type JsonRead = { ok: true; orders: ImportedOrder[] } | { ok: false; problem: Problem };

const fileProblem = (file: string, code: string, text: string): JsonRead => ({
  ok: false,
  problem: { severity: 'error', file, code, text },
});

export async function readJsonOrders(
  source: ImportSource,
  options: {
    file: string;
    codeLists: CodeLists;
    today: Date;
    isKnownOrder?: (clinicCode: string, clinicOrderId: string) => boolean;
  },
): Promise<JsonRead> {
  const { file } = options;
  if (source.size > MAX_JSON_BYTES) {
    return fileProblem(
      file,
      'json.tooLarge',
      `The JSON file is larger than ${MAX_JSON_BYTES / 1024 / 1024} MB; use the CSV template for big batches.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = parseWireJson((await readWhole(source)).toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    // The parser recurses: a file nested thousands of levels deep (no order is) runs it out of stack.
    const why =
      error instanceof RangeError
        ? 'it is nested too deeply to be a list of orders'
        : (error as Error).message.slice(0, 120);
    return fileProblem(file, 'json.unreadable', `The file is not JSON (${why}).`);
  }
  if (!Array.isArray(parsed)) {
    return fileProblem(file, 'json.notArray', 'The file must hold a JSON array of create-with-clinic orders.');
  }
  if (parsed.length === 0) return fileProblem(file, 'json.empty', 'The JSON array holds no orders.');

  const seen = new Map<string, number>();
  const orders = parsed.map((entry, index): ImportedOrder => {
    const position = index + 1;
    const isOrder = entry !== null && typeof entry === 'object' && !Array.isArray(entry);
    const body = isOrder ? normaliseDmdCodes(entry as Record<string, unknown>) : {};
    const problems: Problem[] = isOrder
      ? validateOrder(body, { codeLists: options.codeLists, today: options.today, file })
      : [{ severity: 'error', file, code: 'json.notAnOrder', text: `Entry ${position} of the array is not an order.` }];
    const { clinicCode, clinicOrderId } = identityOf(body);
    if (clinicCode && clinicOrderId) {
      const key = `${clinicCode}\u0000${clinicOrderId}`;
      const first = seen.get(key);
      const field = 'prescription.clinicOrderId';
      if (first !== undefined) {
        problems.push({
          severity: 'error',
          file,
          field,
          code: 'order.duplicateInFile',
          text: `Order ${position} repeats order '${clinicOrderId}' of clinic '${clinicCode}' from order ${first}; the service would reject the second as a duplicate.`,
        });
      } else {
        seen.set(key, position);
        if (options.isKnownOrder?.(clinicCode, clinicOrderId)) {
          problems.push({
            severity: 'error',
            file,
            field,
            code: 'order.alreadyKnown',
            text: `Order '${clinicOrderId}' of clinic '${clinicCode}' was already queued or sent from an earlier batch; the service would reject it as a duplicate.`,
          });
        }
      }
    }
    return {
      clinicCode,
      clinicOrderId,
      body,
      valid: !problems.some((problem) => problem.severity === 'error'),
      problems,
      provenance: {},
      source: { file },
    };
  });
  return { ok: true, orders };
}

/** The file's bytes as it was opened (at most MAX_JSON_BYTES, checked first), read from its one handle. */
async function readWhole(source: ImportSource): Promise<Buffer> {
  const bytes = Buffer.alloc(source.size);
  let filled = 0;
  while (filled < bytes.length) {
    const read = await source.read(bytes, filled, bytes.length - filled, filled);
    if (read === 0) break;
    filled += read;
  }
  return bytes.subarray(0, filled);
}
