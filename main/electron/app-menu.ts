import type { MenuItemConstructorOptions } from 'electron';

/** Ids of the app's own items, for `Menu.getApplicationMenu().getMenuItemById` (the end-to-end test uses them). */
export const MENU_IDS = {
  importFiles: 'import-files',
  importFolder: 'import-folder',
  openDataFolder: 'open-data-folder',
  openLogsFolder: 'open-logs-folder',
} as const satisfies Record<keyof MenuActions, string>;

/** What the menu's own items do; the shell supplies them (dialogs, the file manager). */
export interface MenuActions {
  importFiles(): void;
  importFolder(): void;
  openDataFolder(): void;
  openLogsFolder(): void;
}

export interface MenuOptions {
  platform: NodeJS.Platform;
  /** Developer tools in the View menu: development builds only. */
  devTools: boolean;
  actions: MenuActions;
}

/**
 * The application menu: the platform's usual roles (so copy, paste, undo, zoom, full screen and quit keep their
 * native shortcuts and, on macOS, the app menu) plus the app's own file actions.
 */
export function appMenuTemplate({ platform, devTools, actions }: MenuOptions): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const separator: MenuItemConstructorOptions = { type: 'separator' };
  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [
      {
        id: MENU_IDS.importFiles,
        label: 'Import Files…',
        accelerator: 'CmdOrCtrl+O',
        click: () => actions.importFiles(),
      },
      {
        id: MENU_IDS.importFolder,
        label: 'Import Folder…',
        accelerator: 'CmdOrCtrl+Shift+O',
        click: () => actions.importFolder(),
      },
      separator,
      { id: MENU_IDS.openDataFolder, label: 'Open Data Folder', click: () => actions.openDataFolder() },
      separator,
      mac ? { role: 'close' } : { role: 'quit' },
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: '&View',
    submenu: [
      { role: 'reload' },
      ...(devTools ? [{ role: 'toggleDevTools' } as const] : []),
      separator,
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      separator,
      { role: 'togglefullscreen' },
    ],
  };
  const help: MenuItemConstructorOptions = {
    role: 'help',
    submenu: [
      { id: MENU_IDS.openLogsFolder, label: 'Open Logs Folder', click: () => actions.openLogsFolder() },
      ...(mac ? [] : [separator, { role: 'about' } as const]),
    ],
  };
  return [
    ...(mac ? [{ role: 'appMenu' } as const] : []),
    file,
    { role: 'editMenu' },
    view,
    { role: 'windowMenu' },
    help,
  ];
}
