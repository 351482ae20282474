/**
 * A clinic's order reference can identify a patient to anyone who holds the clinic's records, so exports show
 * only its last three characters by default (enough to tell rows apart when talking to the clinic). Short ids
 * are masked whole: their last three characters would be most of them.
 */
export function maskIdentifier(value: string): string {
  if (value.length < 6) return '*'.repeat(value.length);
  return `${'*'.repeat(value.length - 3)}${value.slice(-3)}`;
}
