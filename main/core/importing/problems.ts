import type { Problem, Provenance } from '../model/imported-order.js';

/** Small helpers that keep every problem naming its file, row or message, and field the same way. */

export interface Location {
  row?: number;
  message?: number;
}

export function locationOf(provenance: Provenance | undefined, fallback: Location): Location {
  if (provenance?.kind === 'csv') return { row: provenance.row };
  if (provenance?.kind === 'hl7') return { message: provenance.message };
  return fallback;
}

/** Where a value came from, in words: `column "DOB"`, `PID-7`, `the profile's constant`. */
export function describeSource(provenance: Provenance | undefined): string | undefined {
  if (!provenance) return undefined;
  if (provenance.kind === 'csv') return `column "${provenance.column}"`;
  if (provenance.kind === 'hl7') return provenance.path;
  return `the constant in profile "${provenance.profile}"`;
}

export function problem(
  severity: Problem['severity'],
  file: string,
  location: Location,
  code: string,
  text: string,
  field?: string,
): Problem {
  return {
    severity,
    file,
    ...(location.row !== undefined ? { row: location.row } : {}),
    ...(location.message !== undefined ? { message: location.message } : {}),
    ...(field !== undefined ? { field } : {}),
    code,
    text,
  };
}

export const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Quotes a value for a problem sentence, shortened so a stray huge cell cannot flood the screen. */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `'${text.length > 60 ? `${text.slice(0, 57)}...` : text}'`;
}
