import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';
import { entryExecArgv } from '../../main/host/host-entry.js';

/**
 * A test double for the parts of `electron` the shell uses, for `vi.mock('electron', () => import(…))`. No
 * Electron binary exists on the build machine, and importing the real package would try to download one. The
 * double records what the shell asked for (window options, handlers, dialogs) so tests can check it and drive
 * the registered handlers the way Electron would.
 */

export type Listener = (...args: unknown[]) => unknown;

/** Electron's event objects: `preventDefault` plus the details the event carries. */
export function electronEvent<T extends object>(details: T): T & { preventDefault: ReturnType<typeof vi.fn> } {
  return { ...details, preventDefault: vi.fn() };
}

export class FakeSession {
  permissionRequestHandler: Listener | undefined;
  permissionCheckHandler: Listener | undefined;
  devicePermissionHandler: Listener | undefined;
  setPermissionRequestHandler(handler: Listener): void {
    this.permissionRequestHandler = handler;
  }
  setPermissionCheckHandler(handler: Listener): void {
    this.permissionCheckHandler = handler;
  }
  setDevicePermissionHandler(handler: Listener): void {
    this.devicePermissionHandler = handler;
  }
}

export class FakeFrame {
  constructor(public url: string) {}
}

export class FakeWebContents extends EventEmitter {
  readonly session = new FakeSession();
  readonly mainFrame = new FakeFrame('app://rx-batch/');
  windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;
  readonly send = vi.fn();
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }
}

class FakeApp extends EventEmitter {
  isPackaged = true;
  readonly paths: Record<string, string> = { appData: '/nonexistent/appData', documents: '/nonexistent/Documents' };
  readonly enableSandbox = vi.fn();
  readonly quit = vi.fn();
  readonly exit = vi.fn();
  readonly requestSingleInstanceLock = vi.fn((_data?: unknown) => true);
  getPath(name: string): string {
    const path = this.paths[name];
    if (!path) throw new Error(`no path ${name} in the double`);
    return path;
  }
  getVersion(): string {
    return '0.1.0-test';
  }
  whenReady(): Promise<void> {
    return Promise.resolve();
  }
}
export const app = new FakeApp();

export const session = { defaultSession: new FakeSession() };

const display = (id: number, x: number) => ({ id, workArea: { x, y: 0, width: 1920, height: 1050 } });
export const screen = {
  getPrimaryDisplay: () => display(1, 0),
  getAllDisplays: () => [display(2, 1920), display(1, 0)],
};

export class Menu {
  static current: Menu | null = null;
  static buildFromTemplate(template: unknown[]): Menu {
    return new Menu(template);
  }
  static setApplicationMenu(menu: Menu | null): void {
    Menu.current = menu;
  }
  constructor(readonly template: unknown[]) {}
}

export class BrowserWindow extends EventEmitter {
  static readonly created: BrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  readonly loadURL = vi.fn((_url: string) => Promise.resolve());
  destroyed = false;
  focused = false;
  minimized = false;
  maximized = false;
  shown = false;
  normalBounds = { x: 0, y: 0, width: 1200, height: 820 };
  constructor(readonly options: Record<string, unknown>) {
    super();
    BrowserWindow.created.push(this);
    // As Electron does, before the constructor returns.
    app.emit('web-contents-created', {}, this.webContents);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isFocused(): boolean {
    return this.focused;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  getNormalBounds() {
    return this.normalBounds;
  }
  show(): void {
    this.shown = true;
  }
  focus(): void {
    this.focused = true;
  }
  restore(): void {
    this.minimized = false;
  }
  maximize(): void {
    this.maximized = true;
  }
}

type IpcHandler = (event: unknown, ...args: unknown[]) => unknown;
/** `handle` for invoked calls (one handler per channel), and an EventEmitter for `send` messages (`on`). */
class FakeIpcMain extends EventEmitter {
  readonly handlers = new Map<string, IpcHandler>();
  handle(channel: string, handler: IpcHandler): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
}
export const ipcMain = new FakeIpcMain();

class FakeIpcRenderer extends EventEmitter {
  readonly invoke = vi.fn((..._args: unknown[]): Promise<unknown> => Promise.resolve({ ok: true, value: null }));
  readonly send = vi.fn((..._args: unknown[]): void => undefined);
}
export const ipcRenderer = new FakeIpcRenderer();

/**
 * A File as the page holds one: Electron knows a path only for files the admin dropped or picked, which the
 * double marks with `droppedFrom`; a File made by script has none. Anything else makes Electron throw.
 */
export class FakeFile {
  constructor(
    readonly name: string,
    readonly droppedFrom?: string,
  ) {}
}
export const webUtils = {
  getPathForFile: vi.fn((file: unknown): string => {
    if (!(file instanceof FakeFile)) throw new TypeError('Error processing argument at index 0, conversion failure');
    return file.droppedFrom ?? '';
  }),
};

export const contextBridge = {
  exposed: new Map<string, unknown>(),
  exposeInMainWorld(key: string, api: unknown): void {
    this.exposed.set(key, api);
  },
};

type ProtocolHandler = (request: Request) => Promise<Response> | Response;
export const protocol = {
  privileged: [] as Array<{ scheme: string; privileges?: Record<string, boolean> }>,
  handlers: new Map<string, ProtocolHandler>(),
  registerSchemesAsPrivileged(schemes: Array<{ scheme: string; privileges?: Record<string, boolean> }>): void {
    this.privileged.push(...schemes);
  },
  handle(scheme: string, handler: ProtocolHandler): void {
    this.handlers.set(scheme, handler);
  },
};

export const shell = {
  openExternal: vi.fn((_url: string) => Promise.resolve()),
  openPath: vi.fn((_path: string) => Promise.resolve('')),
};

export const dialog = {
  showOpenDialog: vi.fn((..._args: unknown[]) => Promise.resolve({ canceled: true, filePaths: [] as string[] })),
  showMessageBox: vi.fn((..._args: unknown[]) => Promise.resolve({ response: 0, checkboxChecked: false })),
  showSaveDialog: vi.fn((..._args: unknown[]) =>
    Promise.resolve<{ canceled: boolean; filePath?: string }>({ canceled: true, filePath: '' }),
  ),
};

export class Notification extends EventEmitter {
  static supported = true;
  static readonly shown: Notification[] = [];
  static isSupported(): boolean {
    return Notification.supported;
  }
  constructor(readonly options: { title: string; body: string }) {
    super();
  }
  show(): void {
    Notification.shown.push(this);
  }
}

export const safeStorage = {
  available: true,
  backend: 'gnome_libsecret',
  isAsyncEncryptionAvailable(): Promise<boolean> {
    return Promise.resolve(this.available);
  },
  getSelectedStorageBackend(): string {
    return this.backend;
  },
  encryptStringAsync(plain: string): Promise<Buffer> {
    return Promise.resolve(Buffer.from(`sealed:${plain}`, 'utf8').reverse());
  },
  decryptStringAsync(sealed: Buffer): Promise<{ result: string; shouldReEncrypt: boolean }> {
    const text = Buffer.from(sealed).reverse().toString('utf8');
    if (!text.startsWith('sealed:')) return Promise.reject(new Error('Error while decrypting the ciphertext'));
    return Promise.resolve({ result: text.slice('sealed:'.length), shouldReEncrypt: false });
  },
};

/**
 * Electron's utility process, as a real Node child: `fork` starts the module (TypeScript sources through tsx), and
 * the child sees Node's fork IPC where Electron would give it `process.parentPort` (the core host speaks both).
 * Messages, `exit` with the code, `kill()` (SIGTERM, as Electron on POSIX) and `pid` behave as Electron's do.
 */
export class UtilityProcess extends EventEmitter {
  static readonly forked: UtilityProcess[] = [];
  readonly child: ChildProcess;
  constructor(
    readonly modulePath: string,
    readonly options: Record<string, unknown>,
  ) {
    super();
    this.child = fork(modulePath, [], {
      execArgv: entryExecArgv(modulePath),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    this.child.on('spawn', () => this.emit('spawn'));
    this.child.on('message', (message) => this.emit('message', message));
    this.child.on('exit', (code, signal) => this.emit('exit', code ?? (signal ? 1 : 0)));
    UtilityProcess.forked.push(this);
  }
  get pid(): number | undefined {
    return this.child.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }
  postMessage(message: unknown): void {
    // Electron throws once the process is gone; the shell checks before it posts.
    this.child.send(message as never);
  }
  kill(): boolean {
    return this.child.kill('SIGTERM');
  }
}
export const utilityProcess = {
  fork: vi.fn(
    (modulePath: string, _args?: string[], options: Record<string, unknown> = {}) =>
      new UtilityProcess(modulePath, options),
  ),
};

export default {
  BrowserWindow,
  ipcMain,
  ipcRenderer,
  contextBridge,
  protocol,
  shell,
  dialog,
  Notification,
  safeStorage,
  webUtils,
  utilityProcess,
};
