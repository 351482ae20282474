/**
 * A clinic's order reference can identify a patient to anyone who holds the clinic's records, so exports show
 * only its last three characters by default (enough to tell rows apart when talking to the clinic). Short ids
 * are masked whole: their last three characters would be most of them.
 */
export function maskIdentifier(value: string): string {
  if (value.length < 6) return '*'.repeat(value.length);
  return `${'*'.repeat(value.length - 3)}${value.slice(-3)}`;
}

const EXTENSION = /\.[A-Za-z0-9]{1,10}$/;

/**
 * A file name as masked exports show it: a clinic's file name often carries a patient's name
 * (`Smith John referral.csv`), so every character but the extension is hidden, one `*` each as for a short id
 * (`*********************.csv`). Unlike an order id, no characters are kept: the last letters of a name are the
 * surname's, and the entry's batch id already tells files apart.
 */
export function maskFileName(name: string): string {
  const extension = EXTENSION.exec(name)?.[0] ?? '';
  const stem = name.slice(0, name.length - extension.length);
  if (stem === '') return '*'.repeat(name.length);
  return `${'*'.repeat(stem.length)}${extension}`;
}

/**
 * `text` with every quote of clinic order id `id` masked, in any case: a service that normalises case lists ours as
 * "rx-2025-000417", and the "listed differently" note quotes both spellings (tracking/listed-differently.ts); an
 * exact match left that one in full in masked exports and in notifications on a locked screen.
 */
export function maskIdentifierIn(text: string, id: string): string {
  if (id === '') return text;
  const quoted = new RegExp(id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu');
  return text.replace(quoted, (match) => maskIdentifier(match));
}
