import { trimEndWhere } from '../../../shared/trim-end.js';

/**
 * ERR-8 is read by the sender's interface team, who can change only what their system sends; the importer words
 * each problem for the admin, who fixes it in Rx Batch ("Ask the sender to fill it, or type it in the preview").
 * `senderText` keeps what a problem says about the message and leaves out what it tells the admin to do in Rx Batch.
 */

/** Words that name Rx Batch's own screens and settings, which the sender cannot reach. */
const ADMIN_ONLY = /\bpreview\b|\bprofile\b|\bImport\b|\bimport it again\b|\bForward the HL7 message\b/i;

/** Sentence ends, not the full stops of "e.g." and "i.e.". */
const SENTENCE_END = /(?<!\b[ei]\.[ge]\.)(?<=[.!?])\s+/;

/** Clauses and alternatives within a sentence: "X: Y", "X; Y", "X, or Y". */
const CLAUSE = /,\s+or\s+|[;:]\s+/g;

/** The sentence cut into clauses at CLAUSE outside brackets, each with the separator before it ('' for the first). */
function clausesOf(sentence: string): Array<{ before: string; clause: string }> {
  const depthAt: number[] = [];
  let depth = 0;
  for (let i = 0; i < sentence.length; i += 1) {
    const char = sentence[i];
    if (char === '(' || char === '[') depth += 1;
    else if ((char === ')' || char === ']') && depth > 0) depth -= 1;
    depthAt.push(depth);
  }
  const clauses: Array<{ before: string; clause: string }> = [];
  let from = 0;
  let before = '';
  for (const match of sentence.matchAll(CLAUSE)) {
    if (depthAt[match.index] !== 0) continue;
    clauses.push({ before, clause: sentence.slice(from, match.index) });
    before = match[0];
    from = match.index + match[0].length;
  }
  clauses.push({ before, clause: sentence.slice(from) });
  return clauses;
}

/** "Ask the sender to …" / "ask the sender not to …" opening a clause: said to the sender instead. */
const ASK_THE_SENDER = /^[Aa]sk the sender (not )?to\s+/;

/** A clause as the sender reads it: "ask the sender to X" is "X", "ask the sender not to X" is "do not X". */
function toSender(clause: string): string {
  const ask = ASK_THE_SENDER.exec(clause);
  if (!ask) return clause;
  const rest = clause.slice(ask[0].length);
  return ask[1] ? `do not ${rest}` : rest;
}

/**
 * A sentence for the sender: its clauses up to the first that speaks of Rx Batch's own screens or settings, each
 * said to the sender; '' when the first one does.
 */
function sentenceForSender(sentence: string): string {
  let kept = '';
  for (const { before, clause } of clausesOf(sentence)) {
    if (ADMIN_ONLY.test(clause)) break;
    const said = toSender(clause);
    // A sentence that opened with "Ask the sender …" opens with what it asked.
    kept += before === '' && said !== clause ? said.charAt(0).toUpperCase() + said.slice(1) : before + said;
  }
  kept = trimEndWhere(kept, (char) => /[,;:\s]/.test(char));
  if (kept === '') return '';
  return /[.!?]$/.test(kept) ? kept : `${kept}.`;
}

/**
 * `text` (a problem as the admin reads it) for the sender: each sentence that asks the admin to act in Rx Batch
 * (the preview, a mapping profile, the Import screen) is cut before that clause, or left out when it is nothing
 * else, and "ask the sender to X, or Y" becomes "X." with only the alternatives the sender can do. Nothing is
 * reworded otherwise; `fallback` when nothing is left.
 */
export function senderText(text: string, fallback: string): string {
  const sentences = text.split(SENTENCE_END);
  const kept = sentences.map(sentenceForSender).filter((sentence) => sentence !== '');
  return kept.length > 0 ? kept.join(' ') : fallback;
}
