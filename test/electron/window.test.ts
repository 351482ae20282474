import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserWindow } from './electron-double.js';

vi.mock('electron', () => import('./electron-double.js'));
const { createMainWindow, MIN_HEIGHT, MIN_WIDTH } = await import('../../main/electron/window.js');

beforeEach(() => {
  BrowserWindow.created.length = 0;
});

function preferencesOf(window: unknown): Record<string, unknown> {
  return (window as BrowserWindow).options.webPreferences as Record<string, unknown>;
}

describe('the main window', () => {
  it('gives the page no Node, a sandbox, isolation from the preload and the web security model', () => {
    const window = createMainWindow('/app/out/preload/preload.cjs', { width: 1000, height: 700 }, false);
    expect(preferencesOf(window)).toMatchObject({
      preload: '/app/out/preload/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      devTools: false,
    });
  });

  it('enables no Blink feature and turns no security switch off anywhere in its options', () => {
    const window = createMainWindow('/p.cjs', {}, true);
    const preferences = preferencesOf(window);
    expect(preferences).not.toHaveProperty('enableBlinkFeatures');
    expect(preferences).not.toHaveProperty('additionalArguments');
    // Every option not listed above as deliberately false must not be able to weaken the window.
    const allowedFalse = [
      'nodeIntegration',
      'nodeIntegrationInWorker',
      'nodeIntegrationInSubFrames',
      'allowRunningInsecureContent',
      'experimentalFeatures',
      'webviewTag',
      'navigateOnDragDrop',
      'spellcheck',
    ];
    for (const [key, value] of Object.entries(preferences)) {
      if (value === false) expect(allowedFalse, `webPreferences.${key}`).toContain(key);
    }
    expect(preferences.devTools).toBe(true);
  });

  it('opens at the bounds it is given, no smaller than the minimum, and only when ready to show', () => {
    const window = createMainWindow(
      '/p.cjs',
      { x: 10, y: 20, width: 900, height: 600 },
      false,
    ) as unknown as BrowserWindow;
    expect(window.options).toMatchObject({
      x: 10,
      y: 20,
      width: 900,
      height: 600,
      minWidth: MIN_WIDTH,
      minHeight: MIN_HEIGHT,
    });
    expect(window.options.show).toBe(false);
    expect(window.shown).toBe(false);
    window.emit('ready-to-show');
    expect(window.shown).toBe(true);
  });
});
