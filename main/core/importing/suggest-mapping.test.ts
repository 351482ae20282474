import { describe, expect, it } from 'vitest';
import { TEMPLATE_COLUMNS, headerFingerprint, mappingProfileSchema, suggestMapping } from './index.js';

describe('mapping suggestions and header fingerprints', () => {
  it('maps known synonyms and differently spelled headers to fields', () => {
    const profile = suggestMapping([
      'Patient Surname',
      'FORENAME',
      'D.O.B.',
      'Post_Code',
      'Sex',
      'dm+d',
      'Qty',
      'GMC No',
      'Notes',
    ]);
    expect(profile.columns).toEqual({
      surname: 'Patient Surname',
      firstName: 'FORENAME',
      dateOfBirth: 'D.O.B.',
      homePostCode: 'Post_Code',
      gender: 'Sex',
      dmdCode: 'dm+d',
      quantity: 'Qty',
      prescriberRegistrationNumber: 'GMC No',
    });
    expect(profile.valueMaps.gender).toMatchObject({ M: 'Male', F: 'Female' });
    expect(profile.dateFormat).toBeUndefined();
    expect(mappingProfileSchema.parse(profile)).toEqual(profile);
  });

  it("maps the name parts of Synthea's and OpenEMR's patient exports (PREFIX, FIRST, LAST; fname, lname)", () => {
    expect(
      suggestMapping(['Id', 'BIRTHDATE', 'PREFIX', 'FIRST', 'LAST', 'SUFFIX', 'MAIDEN', 'GENDER', 'ZIP']).columns,
    ).toEqual({
      dateOfBirth: 'BIRTHDATE',
      title: 'PREFIX',
      firstName: 'FIRST',
      surname: 'LAST',
      gender: 'GENDER',
      homePostCode: 'ZIP',
    });
    expect(suggestMapping(['title', 'fname', 'mname', 'lname', 'DOB', 'postal_code']).columns).toEqual({
      title: 'title',
      firstName: 'fname',
      surname: 'lname',
      dateOfBirth: 'DOB',
      homePostCode: 'postal_code',
    });
  });

  it('reads a header without a unit, format or example in brackets, never without a note naming which field', () => {
    const profile = suggestMapping([
      'Qty (tablets)',
      'Date of Birth [DD/MM/YYYY]',
      'Mobile (e.g. 07700 900123)',
      'Postcode (delivery)',
      'Town (2)',
      'Phone {work}',
    ]);
    expect(profile.columns).toEqual({
      quantity: 'Qty (tablets)',
      dateOfBirth: 'Date of Birth [DD/MM/YYYY]',
      telephone: 'Mobile (e.g. 07700 900123)',
    });
    expect(profile.dateFormat).toBe('dd/MM/yyyy');
    expect(suggestMapping(['DOB (YYYY-MM-DD)']).dateFormat).toBe('iso');
    expect(suggestMapping(['DOB (mm/dd/yyyy)']).dateFormat).toBe('MM/dd/yyyy');
    expect(suggestMapping(['DOB (age)']).dateFormat).toBeUndefined();
  });

  it('maps each field once, to the first header that names it', () => {
    expect(suggestMapping(['DOB', 'Date of Birth']).columns).toEqual({ dateOfBirth: 'DOB' });
  });

  it('maps the template columns to themselves', () => {
    const profile = suggestMapping([...TEMPLATE_COLUMNS]);
    expect(Object.entries(profile.columns).every(([column, header]) => column === header)).toBe(true);
    expect(Object.keys(profile.columns)).toHaveLength(TEMPLATE_COLUMNS.length);
  });

  it('fingerprints a layout regardless of column order, case and spacing, and tells layouts apart', () => {
    const a = headerFingerprint(['Order No', 'Patient Surname', 'DOB']);
    expect(headerFingerprint(['dob', 'ORDER  NO', 'Patient_Surname'])).toBe(a);
    expect(headerFingerprint(['Order No', 'Patient Surname', 'DOB', 'Qty'])).not.toBe(a);
    expect(headerFingerprint(['Order No', 'Surname', 'DOB'])).not.toBe(a);
  });
});
