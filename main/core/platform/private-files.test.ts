import { chownSync, mkdtempSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
    mkdirSync(loose, { mode: 0o777 });
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
});
