import type { Hl7Segment } from './hl7-adapter.js';

/** PID-5 name types (XPN-7, HL7 table 0200) by preference: legal; display, unspecified or none; other kinds. */
const NAME_RANK: Record<string, number> = { L: 1, D: 2, U: 2, '': 2, BAD: 0 };
const OTHER_NAME_RANK = 3;

/** The PID-5 repetitions of the best name type (NAME_RANK), in order; empty when the field holds no name. */
export function nameCandidates(pid: Hl7Segment): number[] {
  const count = pid.repetitions(5);
  if (count <= 1) return count === 1 ? [1] : [];
  let best = Number.POSITIVE_INFINITY;
  const candidates: number[] = [];
  for (let rep = 1; rep <= count; rep += 1) {
    if (pid.value(5, 1, 1, rep) === '' && pid.value(5, 2, 1, rep) === '') continue;
    const rank = NAME_RANK[pid.value(5, 7, 1, rep).toUpperCase()] ?? OTHER_NAME_RANK;
    if (rank === 0 || rank > best) continue;
    if (rank < best) candidates.length = 0;
    best = rank;
    candidates.push(rep);
  }
  return candidates;
}

/**
 * Which PID-5 repetition is the patient's name (legal first; see NAME_RANK): the one the map reads surname, first
 * name and title from, for the store's surname search to read the same.
 */
export const chosenNameRepetition = (pid: Hl7Segment): number => nameCandidates(pid)[0] ?? 1;
