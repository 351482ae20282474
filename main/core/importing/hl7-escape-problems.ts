import type { Hl7EscapeNote, Hl7Message } from '../model/hl7-adapter.js';
import type { Problem } from '../model/imported-order.js';
import { problem, quote } from './problems.js';

/**
 * What a message's escape sequences could not say (the adapter's `escapeNotes`, hl7-escapes.ts), one problem per
 * kind naming each value and escape: a locally defined escape left out (warning), a character-set switch the text
 * could not be read under (an error: the characters kept as written may be the wrong ones, and a label must not
 * print them), a value the sender truncated (an error: it is incomplete), an escape character that starts no sequence,
 * kept as text (warning).
 */

const LISTED = 5;

function listed(notes: readonly Hl7EscapeNote[], show: (note: Hl7EscapeNote) => string): string {
  const shown = notes.slice(0, LISTED).map(show);
  const more = notes.length > LISTED ? ` and ${notes.length - LISTED} more` : '';
  if (shown.length === 1) return shown[0]! + more;
  return more ? `${shown.join(', ')}${more}` : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

export function escapeProblems(message: Hl7Message, file: string, messageIndex: number): Problem[] {
  const notes = message.escapeNotes;
  if (notes.length === 0) return [];
  const where = { message: messageIndex };
  const e = message.delimiters.escape;
  const out: Problem[] = [];
  /** One problem for the notes `which` picks, if any: `text` words them. */
  const say = (
    which: (note: Hl7EscapeNote) => boolean,
    severity: Problem['severity'],
    code: string,
    text: (found: Hl7EscapeNote[], one: boolean) => string,
  ) => {
    const found = notes.filter(which);
    if (found.length > 0) out.push(problem(severity, file, where, code, text(found, found.length === 1)));
  };
  say(
    (note) => note.kind === 'local',
    'warning',
    'hl7.localEscape',
    (local, one) =>
      `${listed(local, (n) => `${n.path} (${n.escape})`)} ${one ? 'holds an escape sequence' : 'hold escape sequences'} the sending system defines locally (\\Z..\\ in HL7 v2); what ${one ? 'it stands' : 'they stand'} for is not known here, so ${one ? 'it was' : 'they were'} left out of the value. Check ${one ? 'the value' : 'those values'} with the sender.`,
  );
  say(
    (note) => note.kind === 'charset',
    'error',
    'hl7.characterSetEscape',
    (charset) =>
      `${listed(charset, (n) => `${n.path} switches character set with ${n.escape} (${n.set ?? 'a set Rx Batch does not know'})`)}, which cannot be applied to the text after it, so that text was kept as written and its characters may be wrong. Ask the sender to write the message in one character set named in MSH-18 (UNICODE UTF-8 holds every script).`,
  );
  say(
    (note) => note.kind === 'truncated',
    'error',
    'hl7.truncated',
    (truncated, one) =>
      `${listed(truncated, (n) => n.path)} ${one ? 'ends' : 'end'} with ${quote(truncated[0]!.escape)}, the truncation character MSH-2 declares: the sender cut ${one ? 'the value' : 'those values'} short, so ${one ? 'it is' : 'they are'} incomplete (read without it). Ask the sender for the whole value, or for a field long enough to hold it.`,
  );
  // `\T\` where MSH-2 declares no subcomponent separator (three encoding characters): a sequence HL7 defines,
  // naming a separator this message does not have.
  const noSubcomponent = message.delimiters.subcomponent === '' ? `${e}T${e}` : undefined;
  say(
    (note) => note.kind === 'unreadable' && note.escape === noSubcomponent,
    'warning',
    'hl7.escapeUnreadable',
    (undeclared) =>
      `${listed(undeclared, (n) => n.path)}: ${quote(noSubcomponent!)} stands for the subcomponent separator, which this message's MSH-2 does not declare (it has no fourth encoding character), so it was read as text. Check the value with the sender.`,
  );
  say(
    (note) => note.kind === 'unreadable' && note.escape !== noSubcomponent,
    'warning',
    'hl7.escapeUnreadable',
    (unreadable) =>
      `${listed(unreadable, (n) => `${n.path} (${quote(n.escape)})`)}: the escape character ${quote(e)} starts no escape sequence HL7 defines (a sequence cut by a separator, or ${quote(e)} meant as text, which is written ${e}E${e}), so it was read as text. Check the value.`,
  );
  return out;
}
