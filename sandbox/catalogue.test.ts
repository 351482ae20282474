import { describe, expect, it } from 'vitest';
import { checkSnomedConceptId } from '../shared/snomed.js';
import { PRODUCTS } from './catalogue.js';

// The importer refuses a dm+d code that is not a valid SNOMED CT identifier, so a catalogue product with a bad
// check digit could never be ordered from the app against the sandbox.
describe('sandbox catalogue', () => {
  it('holds only dm+d codes the importer accepts', () => {
    expect(PRODUCTS.filter((product) => !checkSnomedConceptId(product.dmdCode).ok).map((p) => p.dmdCode)).toEqual([]);
  });

  it('has one product per dm+d code', () => {
    expect(new Set(PRODUCTS.map((product) => product.dmdCode)).size).toBe(PRODUCTS.length);
  });
});
