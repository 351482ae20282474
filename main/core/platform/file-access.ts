/** A file's or folder's permissions, and why it could not be opened, in words. */

/** Who besides the owner a mode lets read (`r`) or write (`w`), in words; '' for no one. */
function othersWho(mode: number, access: 'r' | 'w'): string {
  const bit = access === 'r' ? 0o4 : 0o2;
  const who = [mode & (bit << 3) ? 'its group' : '', mode & bit ? 'every user' : ''].filter(Boolean);
  return who.join(' and ');
}

/** A phrase for who else may read (`r`) or write (`w`) a file: given who (`its group`…) and its mode (`mode 0644`). */
export type AccessPhrase = readonly ['r' | 'w', (who: string, mode: string) => string];

/**
 * What other accounts may do with a file or folder, in the caller's words and order: that another user owns it, then
 * one phrase for each of `phrases` whose access others have. [] when only its owner may do any of them.
 */
export function othersAccess(info: { mode: number; uid: number }, phrases: readonly AccessPhrase[]): string[] {
  const said: string[] = [];
  const own = process.getuid?.();
  // Root excepted, which can change anything anyway.
  if (own !== undefined && info.uid !== own && info.uid !== 0)
    said.push(`it belongs to another user (uid ${info.uid})`);
  const mode = `mode 0${(info.mode & 0o777).toString(8).padStart(3, '0')}`;
  for (const [access, phrase] of phrases) {
    const who = othersWho(info.mode, access);
    if (who) said.push(phrase(who, mode));
  }
  return said;
}

/** Why a file or folder could not be opened, in words: `not found`, `cannot be read (permission denied)`. */
export function whyUnreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'not found';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  return `cannot be read (${code ?? 'error'})`;
}
