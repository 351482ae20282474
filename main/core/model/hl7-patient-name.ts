import type { Hl7Segment } from './hl7-adapter.js';

/** PID-5 name types (XPN-7, HL7 table 0200) by preference: legal; display, unspecified or none; other kinds. */
const NAME_RANK: Record<string, number> = { L: 1, D: 2, U: 2, '': 2, BAD: 0 };
const OTHER_NAME_RANK = 3;

const DAY = /^\d{8}/;

/** The day a message was written (MSH-7's YYYYMMDD): what a name's effective and expiry dates are read against. */
export function messageDay(msh: Hl7Segment | undefined): string | undefined {
  return DAY.exec(msh?.value(7, 1, 1, 1) ?? '')?.[0];
}

/**
 * Whether a repetition is a name the patient no longer (or not yet) goes by on `day`: XPN-13 (expiration date)
 * before it, or XPN-12 (effective date) after it. A maiden name kept as an expired legal name beside the current
 * one made two legal names, and the order was held on the tie.
 */
function outOfDate(pid: Hl7Segment, rep: number, day: string | undefined): boolean {
  if (day === undefined) return false;
  const expires = DAY.exec(pid.value(5, 13, 1, rep))?.[0];
  const starts = DAY.exec(pid.value(5, 12, 1, rep))?.[0];
  return (expires !== undefined && expires < day) || (starts !== undefined && starts > day);
}

/**
 * The PID-5 repetitions of the best name type (NAME_RANK), in order, leaving out names out of date on `day` (see
 * outOfDate) unless every name is; empty when the field holds no name.
 */
export function nameCandidates(pid: Hl7Segment, day?: string): number[] {
  const count = pid.repetitions(5);
  if (count <= 1) return count === 1 ? [1] : [];
  const current = bestNames(pid, count, day);
  return current.length > 0 ? current : bestNames(pid, count, undefined);
}

function bestNames(pid: Hl7Segment, count: number, day: string | undefined): number[] {
  let best = Number.POSITIVE_INFINITY;
  const candidates: number[] = [];
  for (let rep = 1; rep <= count; rep += 1) {
    if (pid.value(5, 1, 1, rep) === '' && pid.value(5, 2, 1, rep) === '') continue;
    const rank = NAME_RANK[pid.value(5, 7, 1, rep).toUpperCase()] ?? OTHER_NAME_RANK;
    if (rank === 0 || rank > best || outOfDate(pid, rep, day)) continue;
    if (rank < best) candidates.length = 0;
    best = rank;
    candidates.push(rep);
  }
  return candidates;
}

/**
 * Which PID-5 repetition is the patient's name (legal first, current on `day`; see nameCandidates): the one the map
 * reads surname, first name and title from, for the store's surname search to read the same.
 */
export const chosenNameRepetition = (pid: Hl7Segment, day?: string): number => nameCandidates(pid, day)[0] ?? 1;
