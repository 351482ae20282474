/** A file's or folder's permissions, and why it could not be opened, in words. */

/** Who besides the owner a mode lets read (`r`) or write (`w`), in words; '' for no one. */
export function othersWho(mode: number, access: 'r' | 'w'): string {
  const bit = access === 'r' ? 0o4 : 0o2;
  const who = [mode & (bit << 3) ? 'its group' : '', mode & bit ? 'every user' : ''].filter(Boolean);
  return who.join(' and ');
}

/** `mode 0644`. */
export const modeText = (mode: number): string => `mode 0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/** Another account than the one running (root excepted, which can change anything anyway). */
export function ownerWarning(uid: number): string | undefined {
  const own = process.getuid?.();
  return own !== undefined && uid !== own && uid !== 0 ? `it belongs to another user (uid ${uid})` : undefined;
}

/** Why a file or folder could not be opened, in words: `not found`, `cannot be read (permission denied)`. */
export function whyUnreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'not found';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  return `cannot be read (${code ?? 'error'})`;
}
