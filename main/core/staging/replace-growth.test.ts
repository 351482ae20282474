import { afterEach, expect, it } from 'vitest';
import { LOCAL } from '../store/testing/store-fixtures.js';
import {
  stagingFixture,
  templateCsv,
  uniqueOrder,
  withField,
  type StagingFixture,
} from './testing/staging-fixtures.js';

/**
 * A `contains` find and replace multiplies a value by its occurrences: 1,000 characters each replaced by 1,000 made
 * a million, and one more call a string past V8's limit, a fatal error that ended the core (security finding 29).
 */

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

const surnameOf = (f: StagingFixture, batchId: number, index: number) =>
  (f.staging.getBatch(batchId, { limit: 10 }).orders[index]!.body as { customer: { surname: string } }).customer
    .surname;

it('refuses a replacement that would make a value longer than an edit may write, changing nothing', async () => {
  const f = (fixture = stagingFixture());
  const orders = [withField(uniqueOrder(), 'customer.surname', 'Haz'), uniqueOrder()];
  const outcome = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file('o.csv', templateCsv(orders)) });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
  const { batchId } = outcome;
  const second = f.staging.getBatch(batchId).orders[1]!;
  f.staging.editOrder(second.id, { edits: [{ path: 'customer.surname', value: 'a'.repeat(1000) }] });
  const undoBefore = f.staging.getBatch(batchId).batch.undo;
  const bodiesBefore = f.staging.getBatch(batchId).orders.map((order) => order.body);

  for (const dryRun of [true, false]) {
    await expect(
      f.staging.replace({
        batchId,
        field: 'customer.surname',
        find: 'a',
        replace: 'b'.repeat(900),
        match: 'contains',
        dryRun,
      }),
    ).rejects.toThrow(
      'Replacing each occurrence in customer.surname of order 2 would make it 900,000 characters long; a find and ' +
        'replace may make a value at most 1,000. Nothing was replaced.',
    );
  }
  // Order 1 ('Haz', 902 characters after) comes first and would have been changed in the same step: it is not.
  expect(f.staging.getBatch(batchId).orders.map((order) => order.body)).toEqual(bodiesBefore);
  expect(f.staging.getBatch(batchId).batch.undo).toEqual(undoBefore);

  // Within the limit a replacement that lengthens still applies, and one that shortens a long value too.
  await expect(
    f.staging.replace({ batchId, field: 'customer.surname', find: 'a', replace: 'e', match: 'contains' }),
  ).resolves.toMatchObject({ changed: 2, cells: 2 });
  expect(surnameOf(f, batchId, 0)).toBe('Hez');
  await f.staging.replace({ batchId, field: 'customer.surname', find: 'ee', replace: 'e', match: 'contains' });
  expect(surnameOf(f, batchId, 1)).toBe('e'.repeat(500));
  await f.staging.replace({ batchId, field: 'customer.surname', find: 'He', replace: 'Hoo', match: 'contains' });
  expect(surnameOf(f, batchId, 0)).toBe('Hooz');
});
