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

/** "Ask the sender to …" / "Ask the sender not to …" at a sentence's start: said to the sender instead. */
const ASK_THE_SENDER = /^Ask the sender (not )?to\s+/;

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function ended(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** The sentence's clauses before the first one that speaks of Rx Batch's own screens or settings; '' if none. */
function clausesForSender(sentence: string): string {
  let kept = '';
  for (const { before, clause } of clausesOf(sentence)) {
    if (ADMIN_ONLY.test(clause)) break;
    kept += before + clause;
  }
  return kept.replace(/[,;:\s]+$/, '');
}

function sentenceForSender(sentence: string): string {
  const ask = ASK_THE_SENDER.exec(sentence);
  if (ask) {
    const rest = clausesForSender(sentence.slice(ask[0].length));
    if (rest === '') return '';
    return ended(ask[1] ? `Do not ${rest}` : capitalised(rest));
  }
  const kept = clausesForSender(sentence);
  return kept === '' ? '' : ended(kept);
}

/**
 * `text` (a problem as the admin reads it) for the sender: each sentence that asks the admin to act in Rx Batch
 * (the preview, a mapping profile, the Import screen) is cut before that clause, or left out when it is nothing
 * else, and "Ask the sender to X, or Y" becomes "X." with only the alternatives the sender can do. Nothing is
 * reworded otherwise; `fallback` when nothing is left.
 */
export function senderText(text: string, fallback: string): string {
  const sentences = text.split(SENTENCE_END);
  const kept = sentences.map(sentenceForSender).filter((sentence) => sentence !== '');
  return kept.length > 0 ? kept.join(' ') : fallback;
}
