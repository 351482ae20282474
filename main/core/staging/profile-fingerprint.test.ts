import { afterEach, describe, expect, it } from 'vitest';
import { TEMPLATE_COLUMNS } from '../model/field-catalogue.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { stagingFixture, templateCsv, uniqueOrder, type StagingFixture } from './testing/staging-fixtures.js';

/**
 * A CSV profile saved as the Import screen's "Map this layout" step saves it: named columns, no header fingerprint
 * (the page sends none), and the batch it was made from. It was never chosen again: the next file with that header
 * (in the app after a restart, in a watched folder, from the CLI) came in as "suggested" again.
 */

let f: StagingFixture | undefined;
afterEach(() => {
  f?.close();
  f = undefined;
});

// Not our template's header (so first read with a suggested mapping), every column still named.
const header = TEMPLATE_COLUMNS.map((column) =>
  column === 'dateOfBirth' ? 'DOB' : column === 'surname' ? 'Patient Surname' : column,
);
const csv = () => `${header.join(',')}\r\n${templateCsv([uniqueOrder()]).split('\r\n').slice(1).join('\r\n')}`;
const mapping = (name: string): MappingProfile => ({
  name,
  columns: Object.fromEntries(header.map((cell, i) => [TEMPLATE_COLUMNS[i]!, cell])),
  constants: {},
  valueMaps: {},
});

async function importCsv(fixture: StagingFixture, name: string) {
  const outcome = await fixture.staging.importFile({ environmentId: LOCAL.id, path: fixture.file(name, csv()) });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
  return outcome;
}

describe('a CSV profile saved from the mapping step', () => {
  it('is chosen by its header for the next file, and stays so when saved again without a batch', async () => {
    f = stagingFixture();
    const first = await importCsv(f, 'first.csv');
    expect(first.summary.profile).toBe('suggested');
    f.staging.saveProfile(mapping('EPR layout'), first.batchId);

    const next = await importCsv(f, 'next.csv');
    expect(next.summary.profile).toBe('EPR layout');
    expect(next.summary.profileChoice).toMatchObject({ via: 'header' });
    expect(next.valid).toBe(1);

    // Saved again (a constant changed) with no batch to take the header from: still chosen by it.
    f.staging.saveProfile({ ...mapping('EPR layout'), constants: { paymentType: 'Account' } });
    expect((await importCsv(f, 'third.csv')).summary.profile).toBe('EPR layout');
  });

  it('of a file refused for want of a header row: its offered row, mapped and saved, reads that file and the next', async () => {
    f = stagingFixture();
    const own = ['Ref', 'Who', 'Born', 'Item'];
    const text = `${own.join(',')}\r\nA-1,Example,1980-01-15,42109611000001109\r\n`;
    const refused = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file('own.csv', text) });
    if (refused.status !== 'refused') throw new Error(`expected a refusal, got ${refused.status}`);
    expect(refused.problems.map((p) => p.code)).toEqual(['csv.noHeader']);
    expect(refused.summary.candidateHeader).toEqual({ row: 1, cells: own });

    const columns = { clinicOrderId: 'Ref', surname: 'Who', dateOfBirth: 'Born', dmdCode: 'Item' };
    f.staging.saveProfile({ name: 'Own', columns, constants: {}, valueMaps: {} }, undefined, own);
    const again = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file('own-next.csv', text) });
    if (again.status !== 'staged') throw new Error(`expected a staged batch, got ${again.status}`);
    expect(again.summary.profile).toBe('Own');
    expect(again.summary.profileChoice).toMatchObject({ via: 'header' });
    const [order] = f.staging.getBatch(again.batchId, { limit: 1 }).orders;
    expect(order!.body).toMatchObject({ customer: { surname: 'Example', dateOfBirth: '1980-01-15' } });
  });

  it('takes the fingerprint of the header it was made from, not one the caller sends', async () => {
    f = stagingFixture();
    const first = await importCsv(f, 'first.csv');
    f.staging.saveProfile({ ...mapping('EPR layout'), headerFingerprint: 'not-this-header' }, first.batchId);
    expect((await importCsv(f, 'next.csv')).summary.profile).toBe('EPR layout');
  });
});
