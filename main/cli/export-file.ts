import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../core/platform/private-files.js';
import { InputError } from './cli-errors.js';

/**
 * Opens the file an export command writes, empty and 0600 before the first byte reaches it. The name is the
 * admin's, but the folder may be one other users write to (/tmp, a shared folder), and whatever they planted there
 * would be written through: a link to a file of the admin's (or, for root, to a system file), a file of their own
 * (root's chmod succeeds on it, and it stays theirs to read), or a second name of another file. Those are refused
 * before anything in them changes (docs/security.md, finding 17): the name is not followed when it is a link, and
 * an existing file is emptied only once it is known to be a plain file of this user's with no other name.
 */
export async function openExportFile(path: string): Promise<FileHandle> {
  // No O_TRUNC: nothing is emptied before it is checked. O_NONBLOCK: a FIFO without a reader fails at once.
  const flags = constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  let handle: FileHandle;
  try {
    handle = await open(path, flags, PRIVATE_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      throw new InputError(`${path} is a symbolic link: an export is not written through a link; give another name`);
    }
    if (code === 'ENXIO') throw new InputError(`${path} is not a regular file; give another name`);
    throw error;
  }
  try {
    const info = await handle.stat();
    const uid = process.getuid?.();
    if (!info.isFile()) throw new InputError(`${path} is not a regular file; give another name`);
    if (uid !== undefined && info.uid !== uid) {
      throw new InputError(
        `${path} belongs to another user, who could read the export there (it holds patient data); give another name`,
      );
    }
    if (info.nlink > 1) {
      throw new InputError(`${path} is also another file (it has ${info.nlink} names); give another name`);
    }
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.truncate(0);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
