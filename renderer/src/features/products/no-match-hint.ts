/**
 * What to try when a product search finds nothing. The service matches part of a name, or a dm+d code only whole,
 * so the hint depends on what was typed.
 */
export function noMatchHint(searchTerm: string): string {
  const term = searchTerm.trim();
  if (/^\d+$/.test(term)) {
    return `A dm+d code is found only whole: check all ${term.length} digits (codes have 6 to 18), or search by the product's name.`;
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
