import { chmodSync, chownSync, mkdtempSync, mkdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePrivateDir, PrivateDirError } from './private-files.js';

/**
 * The data directory holds patient data, sign-ins and the audit key. One that belongs to someone else (a
 * RXBATCH_DATA_DIR or --data-dir pointing at another user's folder) is refused with a sentence saying so, never
 * taken over (as root, chmod would succeed and leave files the owner cannot open) nor used as it is.
 */

const posix = process.platform !== 'win32';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-private-dir-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder of another user: made and given away when running as root, else one of the system's. */
function othersFolder(): string {
  if (process.getuid?.() !== 0) return '/usr';
  const folder = join(dir, 'someone-else');
  mkdirSync(folder, { mode: 0o777 });
  chownSync(folder, 65_534, 65_534);
  return folder;
}

describe.runIf(posix)('ensurePrivateDir', () => {
  it('creates a missing folder 0700 and tightens one of your own', () => {
    const fresh = join(dir, 'a', 'b');
    ensurePrivateDir(fresh);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    const loose = join(dir, 'loose');
    mkdirSync(loose);
    chmodSync(loose, 0o755);
    ensurePrivateDir(loose);
    expect(statSync(loose).mode & 0o777).toBe(0o700);
  });

  it("refuses another user's folder by name, and leaves it as it was", () => {
    const folder = othersFolder();
    const before = statSync(folder);
    expect(() => ensurePrivateDir(folder)).toThrow(PrivateDirError);
    expect(() => ensurePrivateDir(folder)).toThrow(`${folder} belongs to another user`);
    const after = statSync(folder);
    expect(after.mode).toBe(before.mode);
    expect(after.uid).toBe(before.uid);
  });

  it('refuses a shared folder of your own and your home folder, leaving each as it was (finding 31)', () => {
    const shared = join(dir, 'shared-tmp');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const cases: Array<[string, string]> = [[shared, `${shared} is shared: other users can write to it (mode 1777)`]];
    // Asked only where the old code's chmod would have changed nothing (`/` never is: it is not asked here).
    if ((statSync(homedir()).mode & 0o777) === 0o700) cases.push([homedir(), `${homedir()} is your home folder`]);
    // A group other than the user's own (root may give it any; another user one it belongs to).
    const otherGroup = process.getuid!() === 0 ? 65_534 : process.getgroups!().find((gid) => gid !== process.getgid!());
    if (otherGroup !== undefined) {
      const groupShared = join(dir, 'group-project');
      mkdirSync(groupShared);
      chownSync(groupShared, process.getuid!(), otherGroup);
      chmodSync(groupShared, 0o770);
      cases.push([groupShared, `${groupShared} is shared: other users can write to it (mode 0770)`]);
    }
    for (const [folder, message] of cases) {
      const before = statSync(folder);
      expect(() => ensurePrivateDir(folder), folder).toThrow(PrivateDirError);
      expect(() => ensurePrivateDir(folder), folder).toThrow(message);
      expect(statSync(folder).mode, folder).toBe(before.mode);
    }
    // A folder of the user's own group, writable by it (a umask of 002), is still the user's: tightened.
    const ownGroup = join(dir, 'own-group');
    mkdirSync(ownGroup);
    chmodSync(ownGroup, 0o775);
    ensurePrivateDir(ownGroup);
    expect(statSync(ownGroup).mode & 0o7777).toBe(0o700);
  });

  // As root a system folder is root's own, so finding 15's check passes it; the old code made it 0700. /boot is
  // used by nothing while the system runs, and its mode is put back whatever happens.
  it.runIf(process.getuid?.() === 0 && statSync('/boot', { throwIfNoEntry: false })?.isDirectory())(
    'refuses a system folder of root, by name and through a link, leaving it as it was',
    () => {
      const before = statSync('/boot').mode;
      const link = join(dir, 'typo-link');
      symlinkSync('/boot', link);
      try {
        expect(() => ensurePrivateDir('/boot')).toThrow('/boot is a system folder: Rx Batch makes its folder');
        expect(() => ensurePrivateDir(link)).toThrow(`${link} is a system folder (a link to /boot)`);
        expect(statSync('/boot').mode).toBe(before);
        // A folder inside one is still a data directory (a service's /var/lib/NAME).
        const inside = mkdtempSync('/var/tmp/rxbatch-data-');
        try {
          ensurePrivateDir(inside);
          expect(statSync(inside).mode & 0o777).toBe(0o700);
        } finally {
          rmSync(inside, { recursive: true, force: true });
        }
      } finally {
        chmodSync('/boot', before & 0o7777);
      }
    },
  );
});
