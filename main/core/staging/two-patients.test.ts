import { afterEach, describe, expect, it } from 'vitest';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import {
  stagingFixture,
  templateCsv,
  uniqueOrder,
  withField,
  type StagingFixture,
} from './testing/staging-fixtures.js';

// Rows of one clinic order id that name two patients: one of them would get the other's items if the rows were
// made one order by editing cells, so no edit in the preview clears it; a typo in one field of one patient still
// is fixed in the preview.

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

async function stagedOrder(rows: Parameters<typeof templateCsv>[0]) {
  const f = (fixture = stagingFixture());
  const outcome = await f.staging.importFile({
    environmentId: LOCAL.id,
    path: f.file('orders.csv', templateCsv(rows)),
  });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
  const [order, ...others] = f.staging.getBatch(outcome.batchId, { limit: 10 }).orders;
  expect(others).toEqual([]);
  return { f, order: order! };
}

/** `order` under `first`'s clinic order id: its rows then belong to the same order. */
const sameId = (order: CreateWithClinicV1Input, first: CreateWithClinicV1Input): CreateWithClinicV1Input =>
  withField(order, 'prescription.clinicOrderId', first.prescription.clinicOrderId);

const codes = (problems: readonly { code: string }[]) => problems.map((problem) => problem.code);

describe('rows of one order that name two patients', () => {
  it('stay an error whatever is edited, the whole body replaced included, and say to give each its own id', async () => {
    const first = uniqueOrder();
    const second = {
      ...sameId(uniqueOrder(), first),
      customer: { ...first.customer, firstName: 'Sam', surname: 'Other', dateOfBirth: '1990-03-03' },
    };
    const { f, order } = await stagedOrder([first, second]);
    const twoPatients = order.problems.find((problem) => problem.code === 'order.twoPatients');
    expect(twoPatients?.text).toBe(
      'Rows 2 and 3 share a clinic order id but name two patients (their first name, surname and date of birth ' +
        "differ), so they cannot be sent as one order and no edit here makes them one. Give each patient's rows " +
        'their own clinic order id in the file and import it again.',
    );
    expect(order.valid).toBe(false);

    // Each disagreement "corrected" in the preview: those problems go, the two patients stay.
    const edited = f.staging.editOrder(order.id, {
      edits: [
        { path: 'customer.firstName', value: 'Alexa' },
        { path: 'customer.surname', value: 'Smith' },
        { path: 'customer.dateOfBirth', value: '1980-01-16' },
      ],
    });
    expect(codes(edited.problems)).toEqual(['order.twoPatients']);
    expect(edited.valid).toBe(false);
    const replaced = f.staging.editOrder(order.id, { body: edited.body as Record<string, unknown> });
    expect(codes(replaced.problems)).toEqual(['order.twoPatients']);
    expect(replaced.valid).toBe(false);
  });

  it('leave one patient whose rows differ in one field to be corrected in the preview', async () => {
    const first = uniqueOrder();
    // The first row has the typo, so the order holds it until the admin writes the surname the other row has.
    const typo = withField(first, 'customer.surname', `${first.customer.surname}x`);
    const { f, order } = await stagedOrder([typo, sameId(uniqueOrder(), first)]);
    expect(codes(order.problems)).toEqual(['order.rowsDisagree']);
    const edited = f.staging.editOrder(order.id, {
      edits: [{ path: 'customer.surname', value: first.customer.surname }],
    });
    expect(edited).toMatchObject({ valid: true, problems: [] });
  });
});
