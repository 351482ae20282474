import { chmodSync, lchownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, PrivateDirError } from './private-files.js';

/**
 * docs/security.md, finding 41: finding 31 refused the root and the home folder as the data directory by the name
 * given, and a link was followed. Any local user can make a link in /tmp where a scheduled `rx-batch --data-dir
 * /tmp/rx-batch` has not made its folder yet (the first run, or after a reboot emptied /tmp), leading to the
 * admin's home folder, or as root to `/` or `/etc`: the folder it led to was made 0700 (as root, the system closed
 * to every other user) and filled with the store, the sign-ins and the audit key. Real links on this file system.
 */

const posix = process.platform !== 'win32';
const asRoot = process.getuid?.() === 0;
let dir: string;
let home: string;
let savedHome: string | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-dir-links-'));
  // A home folder of the test's own (os.homedir() reads HOME), as loose as a home folder usually is.
  home = join(dir, 'home');
  mkdirSync(home);
  chmodSync(home, 0o755);
  savedHome = process.env.HOME;
  process.env.HOME = home;
});

afterEach(() => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(posix)('ensurePrivateDir and links', () => {
  it('refuses a link of your own to your home folder, naming where it leads, and leaves the folder as it was', () => {
    const link = join(dir, 'rx-batch');
    symlinkSync(home, link);
    expect(() => ensurePrivateDir(link)).toThrow(PrivateDirError);
    expect(() => ensurePrivateDir(link)).toThrow(`${link} is your home folder (a link to ${home})`);
    expect(statSync(home).mode & 0o7777).toBe(0o755);
  });

  it.runIf(asRoot)('refuses a link another user made, wherever it leads, and leaves its folder as it was', () => {
    const shared = join(dir, 'tmp');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const mine = join(dir, 'mine');
    mkdirSync(mine);
    chmodSync(mine, 0o755);
    for (const target of [home, mine]) {
      const planted = join(shared, 'rx-batch');
      rmSync(planted, { force: true });
      symlinkSync(target, planted);
      lchownSync(planted, 65_534, 65_534);
      expect(() => ensurePrivateDir(planted), target).toThrow(`${planted} is a link another user made`);
      expect(statSync(target).mode & 0o7777, target).toBe(0o755);
    }
  });

  it('still takes a link of your own to a folder of yours, and tightens that folder', () => {
    const folder = join(dir, 'data');
    mkdirSync(folder);
    chmodSync(folder, 0o755);
    const link = join(dir, 'rx-batch');
    symlinkSync(folder, link);
    ensurePrivateDir(link);
    expect(statSync(folder).mode & 0o7777).toBe(0o700);
  });
});
