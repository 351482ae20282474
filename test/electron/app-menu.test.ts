import { describe, expect, it, vi } from 'vitest';
import { appMenuTemplate, MENU_IDS, type MenuActions } from '../../main/electron/app-menu.js';

// The template's item type, without importing Electron here (lint keeps Electron inside main/electron/).
type MenuItemConstructorOptions = ReturnType<typeof appMenuTemplate>[number];
type Spy = ReturnType<typeof vi.fn<() => void>>;
function actions(): Record<keyof MenuActions, Spy> {
  return {
    importFiles: vi.fn<() => void>(),
    importFolder: vi.fn<() => void>(),
    openDataFolder: vi.fn<() => void>(),
    openLogsFolder: vi.fn<() => void>(),
  };
}

function flatten(items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? flatten(item.submenu) : [])]);
}

function roles(items: MenuItemConstructorOptions[]): string[] {
  return flatten(items).flatMap((item) => (item.role ? [item.role] : []));
}

function byLabel(items: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions {
  const item = flatten(items).find((entry) => entry.label === label);
  if (!item) throw new Error(`no menu item ${label}`);
  return item;
}

describe('the application menu', () => {
  it('has the usual roles (edit, zoom, full screen, window, quit) so native shortcuts work', () => {
    const template = appMenuTemplate({ platform: 'linux', devTools: false, actions: actions() });
    expect(roles(template)).toEqual(
      expect.arrayContaining([
        'quit',
        'editMenu',
        'reload',
        'resetZoom',
        'zoomIn',
        'zoomOut',
        'togglefullscreen',
        'windowMenu',
        'help',
        'about',
      ]),
    );
    expect(roles(template)).not.toContain('toggleDevTools');
  });

  it('follows macOS conventions there: the app menu first, Close in File, About in the app menu', () => {
    const template = appMenuTemplate({ platform: 'darwin', devTools: false, actions: actions() });
    expect(template[0]).toEqual({ role: 'appMenu' });
    expect(roles(template)).toContain('close');
    expect(roles(template)).not.toContain('quit');
    expect(roles(template)).not.toContain('about');
  });

  it('offers developer tools only in development builds', () => {
    expect(roles(appMenuTemplate({ platform: 'win32', devTools: true, actions: actions() }))).toContain(
      'toggleDevTools',
    );
  });

  it('has import and folder items with their shortcuts, each running its action', () => {
    const spies = actions();
    const template = appMenuTemplate({ platform: 'linux', devTools: false, actions: spies });
    const cases: Array<[string, string | undefined, keyof MenuActions]> = [
      ['Import Files…', 'CmdOrCtrl+O', 'importFiles'],
      ['Import Folder…', 'CmdOrCtrl+Shift+O', 'importFolder'],
      ['Open Data Folder', undefined, 'openDataFolder'],
      ['Open Logs Folder', undefined, 'openLogsFolder'],
    ];
    for (const [label, accelerator, action] of cases) {
      const item = byLabel(template, label);
      expect(item.accelerator, label).toBe(accelerator);
      expect(item.id, label).toBe(MENU_IDS[action]);
      (item.click as () => void)();
      expect(spies[action], label).toHaveBeenCalledTimes(1);
    }
  });

  it('uses no accelerator twice', () => {
    const template = appMenuTemplate({ platform: 'linux', devTools: true, actions: actions() });
    const accelerators = flatten(template).flatMap((item) => (item.accelerator ? [item.accelerator] : []));
    expect(new Set(accelerators).size).toBe(accelerators.length);
  });
});
