import { checkSnomedConceptId } from '../../../../shared/snomed.js';

/**
 * What to try when a product search finds nothing. The service matches part of a name, or a dm+d code only whole,
 * so the hint depends on what was typed.
 */
export function noMatchHint(searchTerm: string): string {
  const term = searchTerm.trim();
  if (/^\d+$/.test(term)) {
    const check = checkSnomedConceptId(term);
    // A well-formed code was typed whole: asking to check its digits would send the admin hunting for a typo.
    if (check.ok) {
      return "The code is a well-formed dm+d code, so this service's catalogue does not list it: search by the product's name to find what it does list.";
    }
    return `This is not a whole dm+d code (${check.message}), and a code is found only whole: check its digits, or search by the product's name.`;
  }
  const words = term.split(/\s+/);
  if (words.length > 1) {
    return `The name must hold these words as typed, together and in this order: try one word, such as “${words[0]}”, or check the spelling.`;
  }
  const start = term.slice(0, 4);
  return term.length > 4
    ? `Try the start of the name, such as “${start}”, or check the spelling. Brands may be listed under their generic name; a dm+d code must be given whole.`
    : 'Check the spelling, or try the generic name rather than a brand; a dm+d code must be given whole.';
}
