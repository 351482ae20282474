import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir } from './data-dir.js';

describe('defaultDataDir', () => {
  it('follows XDG on Linux, falling back to ~/.config', () => {
    expect(defaultDataDir({ XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe(join('/xdg', 'rx-batch'));
    expect(defaultDataDir({ XDG_CONFIG_HOME: '' }, 'linux')).toBe(join(homedir(), '.config', 'rx-batch'));
  });

  it('uses Application Support on macOS and %APPDATA% on Windows, as Electron does', () => {
    expect(defaultDataDir({}, 'darwin')).toBe(join(homedir(), 'Library', 'Application Support', 'rx-batch'));
    expect(defaultDataDir({ APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'win32')).toBe(
      join('C:\\Users\\a\\AppData\\Roaming', 'rx-batch'),
    );
  });
});
