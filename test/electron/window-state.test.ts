import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../main/core/platform/logger.js';
import {
  DEFAULT_SIZE,
  loadWindowState,
  rememberWindowState,
  restoreBounds,
  saveWindowState,
  type Rect,
  type WindowState,
} from '../../main/electron/window-state.js';

const minimum = { width: 720, height: 480 };
const laptop: Rect = { x: 0, y: 0, width: 1920, height: 1050 };
const rightMonitor: Rect = { x: 1920, y: 0, width: 2560, height: 1400 };

function state(rect: Rect, maximized = false): WindowState {
  return { ...rect, maximized };
}

function isInside(rect: Rect, area: Rect): boolean {
  return (
    rect.x >= area.x &&
    rect.y >= area.y &&
    rect.x + rect.width <= area.x + area.width &&
    rect.y + rect.height <= area.y + area.height
  );
}

describe('restoreBounds', () => {
  it('opens centred at the default size the first time', () => {
    expect(restoreBounds(undefined, [laptop], minimum)).toEqual({ x: 360, y: 115, ...DEFAULT_SIZE });
  });

  it('keeps saved bounds that are fully on a display', () => {
    const saved = state({ x: 2000, y: 100, width: 1400, height: 900 });
    expect(restoreBounds(saved, [laptop, rightMonitor], minimum)).toEqual({
      x: 2000,
      y: 100,
      width: 1400,
      height: 900,
    });
  });

  it('moves a window hanging off a display back onto it', () => {
    const saved = state({ x: 1500, y: -200, width: 1000, height: 800 });
    const bounds = restoreBounds(saved, [laptop], minimum);
    expect(bounds).toEqual({ x: 920, y: 0, width: 1000, height: 800 });
  });

  it('recentres on the primary display a window last seen on a monitor now unplugged', () => {
    const saved = state({ x: 2200, y: 200, width: 1400, height: 900 });
    const bounds = restoreBounds(saved, [laptop], minimum);
    expect(isInside(bounds, laptop)).toBe(true);
    expect(bounds).toMatchObject({ width: 1400, height: 900 });
  });

  it('shrinks a window larger than the display it is on, but not below the minimum', () => {
    const small: Rect = { x: 0, y: 0, width: 1280, height: 700 };
    const huge = restoreBounds(state({ x: 0, y: 0, width: 3000, height: 2000 }), [small], minimum);
    expect(huge).toEqual(small);
    const tiny = restoreBounds(state({ x: 10, y: 10, width: 100, height: 100 }), [small], minimum);
    expect(tiny).toEqual({ x: 10, y: 10, width: 720, height: 480 });
  });

  it('always lands fully on some display, whatever was saved', () => {
    const areas = [laptop, rightMonitor, { x: -1280, y: 200, width: 1280, height: 1000 }];
    const saved = fc.record({
      x: fc.integer({ min: -100_000, max: 100_000 }),
      y: fc.integer({ min: -100_000, max: 100_000 }),
      width: fc.integer({ min: 1, max: 100_000 }),
      height: fc.integer({ min: 1, max: 100_000 }),
      maximized: fc.boolean(),
    });
    fc.assert(
      fc.property(saved, (state) => areas.some((area) => isInside(restoreBounds(state, areas, minimum), area))),
    );
  });
});

describe('the window-state file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-window-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips, private to the user, leaving no temporary file', () => {
    const file = join(dir, 'window-state.json');
    saveWindowState(file, state({ x: 5, y: 6, width: 900, height: 700 }, true));
    expect(loadWindowState(file)).toEqual({ x: 5, y: 6, width: 900, height: 700, maximized: true });
    expect(readdirSync(dir)).toEqual(['window-state.json']);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['missing', null],
    ['not JSON', '{"x": 1,'],
    ['the wrong shape', JSON.stringify({ x: 'left', y: 0, width: 800, height: 600, maximized: false })],
    ['absurd numbers', JSON.stringify({ x: 1e12, y: 0, width: 800, height: 600, maximized: false })],
    ['extra fields', JSON.stringify({ x: 0, y: 0, width: 800, height: 600, maximized: false, url: 'x' })],
  ])('is ignored when %s', (_label, content) => {
    const file = join(dir, 'window-state.json');
    if (content !== null) writeFileSync(file, content);
    expect(loadWindowState(file)).toBeUndefined();
  });

  it('is written when the window closes, with its normal bounds', () => {
    const file = join(dir, 'window-state.json');
    const window = Object.assign(new EventEmitter(), {
      getNormalBounds: () => ({ x: 10.4, y: 20, width: 1000, height: 700.6 }),
      isMaximized: () => true,
    });
    rememberWindowState(window, file, silentLogger);
    window.emit('close');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ x: 10, y: 20, width: 1000, height: 701, maximized: true });
  });
});
