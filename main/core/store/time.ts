/** Every time the store writes is ISO-8601 UTC with milliseconds, so texts sort exactly as the instants do. */
export function isoTime(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('invalid date');
  return date.toISOString();
}

export function isoTimeOrNull(date: Date | null | undefined): string | null {
  return date ? isoTime(date) : null;
}
