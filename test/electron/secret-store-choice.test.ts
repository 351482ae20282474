import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemorySecretStore } from '../../main/core/platform/secret-store.js';
import { silentLogger } from '../../main/core/platform/logger.js';
import { safeStorage } from './electron-double.js';

vi.mock('electron', () => import('./electron-double.js'));
const { chooseSecretStore, PLAIN_TEXT_CONSENT_FILE } = await import('../../main/electron/secret-store-choice.js');
const { DESKTOP_SECRETS_FILE } = await import('../../main/electron/secrets.js');

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-choice-'));
  safeStorage.available = true;
  safeStorage.backend = 'gnome_libsecret';
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const linuxOnly = process.platform === 'linux' ? it : it.skip;

function choose(answer: { accept: boolean; remember: boolean }) {
  const askPlainText = vi.fn(() => Promise.resolve(answer));
  return { askPlainText, chosen: chooseSecretStore({ dataDir, logger: silentLogger, askPlainText }) };
}

describe('the desktop secret store choice', () => {
  it('uses safeStorage without asking when the OS keychain is there', async () => {
    const { askPlainText, chosen } = choose({ accept: false, remember: false });
    const { store, persistent } = await chosen;
    expect(persistent).toBe(true);
    await store.set('auth/x/tokens', 'refresh-me');
    expect(readFileSync(join(dataDir, DESKTOP_SECRETS_FILE), 'utf8')).not.toContain('refresh-me');
    expect(askPlainText).not.toHaveBeenCalled();
  });

  linuxOnly('warns about the basic_text backend and keeps sign-ins in memory unless the admin accepts', async () => {
    safeStorage.backend = 'basic_text';
    const { askPlainText, chosen } = choose({ accept: false, remember: false });
    const { store, persistent } = await chosen;
    expect(askPlainText).toHaveBeenCalledWith(expect.stringMatching(/keyring/));
    expect(persistent).toBe(false);
    expect(store).toBeInstanceOf(MemorySecretStore);
    await store.set('k', 'v');
    expect(existsSync(join(dataDir, DESKTOP_SECRETS_FILE))).toBe(false);
  });

  linuxOnly('stores on disk once accepted, and asks again next time unless told not to', async () => {
    safeStorage.backend = 'basic_text';
    const once = choose({ accept: true, remember: false });
    expect((await once.chosen).persistent).toBe(true);
    expect(existsSync(join(dataDir, PLAIN_TEXT_CONSENT_FILE))).toBe(false);

    const remembered = choose({ accept: true, remember: true });
    await remembered.chosen;
    expect(existsSync(join(dataDir, PLAIN_TEXT_CONSENT_FILE))).toBe(true);

    const later = choose({ accept: false, remember: false });
    expect((await later.chosen).persistent).toBe(true);
    expect(later.askPlainText).not.toHaveBeenCalled();
  });

  it('keeps sign-ins for the session when the OS offers no encryption at all, without asking', async () => {
    safeStorage.available = false;
    const { askPlainText, chosen } = choose({ accept: true, remember: true });
    const { store, persistent } = await chosen;
    expect(persistent).toBe(false);
    expect(store).toBeInstanceOf(MemorySecretStore);
    expect(askPlainText).not.toHaveBeenCalled();
  });
});
