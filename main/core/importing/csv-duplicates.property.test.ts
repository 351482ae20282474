import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { FIELDS } from '../model/field-catalogue.js';
import { TEMPLATE_PROFILE } from '../model/mapping-profile.js';
import { importFile, writeTemplateCsv } from './index.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * A CSV whose header names a column more than once (in any case and spacing) is never read from the first of them
 * silently: one file error names every such column by position, unless the mapping profile says which position to
 * read, and then exactly that column is read. Columns no field reads may repeat freely.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
let dir: string;
let counter = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-dup-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const template = writeTemplateCsv([exampleOrder('DUP-1')])
  .trimEnd()
  .split('\r\n');
const header = template[0]!.split(',');
const row = template[1]!.split(',');

/** The same header as a person or another program might spell it again: case, spaces, underscores. */
const respell = (name: string, n: number) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map(
      (upper) => `${[...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join('')}${'_'.repeat(n)}`,
    );

const layoutArb = fc
  .uniqueArray(fc.integer({ min: 0, max: header.length - 1 }), { minLength: 1, maxLength: 4 })
  .chain((duplicated) =>
    fc.record({
      duplicated: fc.constant(duplicated),
      // For each duplicated column: one or two more copies, each spelled its own way, at random places.
      copies: fc.tuple(
        ...duplicated.map((column) =>
          fc
            .integer({ min: 1, max: 2 })
            .chain((count) =>
              fc.tuple(
                ...Array.from({ length: count }, (_, n) =>
                  fc.tuple(respell(header[column]!, n + 1), fc.integer({ min: 0, max: header.length })),
                ),
              ),
            ),
        ),
      ),
      unmapped: fc.boolean(),
      pick: fc.array(fc.nat(), { minLength: duplicated.length, maxLength: duplicated.length }),
    }),
  );

describe('CSV headers named more than once', () => {
  it('are one file error naming every position, unless the profile picks one; unmapped repeats are fine', async () => {
    await fc.assert(
      fc.asyncProperty(layoutArb, async ({ duplicated, copies, unmapped, pick }) => {
        // Columns as (header text, value, source column) in file order.
        const columns = header.map((text, i) => ({ text, value: row[i]!, source: i }));
        duplicated.forEach((source, d) => {
          for (const [text, at] of copies[d]!) {
            columns.splice(Math.min(at, columns.length), 0, { text, value: row[source]!, source });
          }
        });
        if (unmapped)
          columns.push({ text: 'Notes', value: 'a', source: -1 }, { text: 'NOTES', value: 'b', source: -1 });
        const csv = `${columns.map((c) => c.text).join(',')}\r\n${columns.map((c) => c.value).join(',')}\r\n`;
        const path = join(dir, `dup-${(counter += 1)}.csv`);
        await writeFile(path, csv);

        const positionsOf = (source: number) => columns.flatMap((c, i) => (c.source === source ? [i + 1] : []));
        const list = (n: number[]) => (n.length === 1 ? `${n[0]}` : `${n.slice(0, -1).join(', ')} and ${n.at(-1)}`);

        const plain = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
        const errors = plain.fileProblems.filter((p) => p.code === 'csv.duplicateHeader');
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatchObject({ severity: 'error', row: 1 });
        for (const source of duplicated) expect(errors[0]!.text).toContain(`(columns ${list(positionsOf(source))})`);
        expect(errors[0]!.text).not.toContain('Notes');

        // A profile that names the position to read for each: no error, and that very column is read.
        const columnPositions = Object.fromEntries(
          duplicated.map((source, d) => {
            const positions = positionsOf(source);
            return [header[source]!, positions[pick[d]! % positions.length]!];
          }),
        );
        const chosen = await importFile(path, {
          codeLists: DEFAULT_CODE_LISTS,
          today: TODAY,
          profile: { ...TEMPLATE_PROFILE, name: 'chosen', columnPositions },
        });
        expect(chosen.fileProblems.filter((p) => p.severity === 'error')).toEqual([]);
        const order = chosen.orders[0]!;
        for (const source of duplicated) {
          const field = FIELDS.find((f) => f.column === header[source])!;
          const path = field.path.replace('*', '0');
          const read = order.provenance[path];
          if (read?.kind === 'csv') expect(read.column).toBe(columns[columnPositions[header[source]!]! - 1]!.text);
        }
      }),
      { numRuns: Number(process.env.CSV_DUPLICATE_RUNS ?? 40) },
    );
  });
});
