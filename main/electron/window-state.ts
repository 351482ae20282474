import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { Logger } from '../core/platform/logger.js';
import { PRIVATE_FILE_MODE } from '../core/platform/private-files.js';

/**
 * The window's size and place, remembered between runs in a small JSON file in the data directory. The file is
 * read as untrusted (hand-edited, truncated, from another machine) and the result is always fully on a screen
 * that exists now: a monitor unplugged since last time must not leave the window out of sight.
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const coordinate = z.number().int().min(-100_000).max(100_000);
const size = z.number().int().min(1).max(100_000);
export const windowStateSchema = z
  .object({ x: coordinate, y: coordinate, width: size, height: size, maximized: z.boolean() })
  .strict();
export type WindowState = z.infer<typeof windowStateSchema>;

export const DEFAULT_SIZE = { width: 1200, height: 820 } as const;
export const WINDOW_STATE_FILE = 'window-state.json';

function overlap(a: Rect, b: Rect): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return width > 0 && height > 0 ? width * height : 0;
}

function clampInto(rect: Rect, area: Rect, minimum: { width: number; height: number }): Rect {
  const width = Math.max(Math.min(rect.width, area.width), Math.min(minimum.width, area.width));
  const height = Math.max(Math.min(rect.height, area.height), Math.min(minimum.height, area.height));
  const x = Math.min(Math.max(rect.x, area.x), area.x + area.width - width);
  const y = Math.min(Math.max(rect.y, area.y), area.y + area.height - height);
  return { x, y, width, height };
}

function centred(area: Rect, width: number, height: number): Rect {
  const w = Math.min(width, area.width);
  const h = Math.min(height, area.height);
  return {
    x: area.x + Math.round((area.width - w) / 2),
    y: area.y + Math.round((area.height - h) / 2),
    width: w,
    height: h,
  };
}

/**
 * Where to open the window. `workAreas` are the displays' usable areas now (the primary first). The saved bounds
 * are kept if they overlap a display, moved and shrunk as needed to fit entirely on the one they overlap most;
 * otherwise (or with nothing saved) the window opens centred on the primary display.
 */
export function restoreBounds(
  saved: WindowState | undefined,
  workAreas: readonly Rect[],
  minimum: { width: number; height: number },
): Rect {
  const primary = workAreas[0] ?? { x: 0, y: 0, ...DEFAULT_SIZE };
  if (!saved) return centred(primary, DEFAULT_SIZE.width, DEFAULT_SIZE.height);
  let best: Rect | undefined;
  let bestOverlap = 0;
  for (const area of workAreas) {
    const shared = overlap(saved, area);
    if (shared > bestOverlap) [best, bestOverlap] = [area, shared];
  }
  if (!best) return centred(primary, Math.max(saved.width, minimum.width), Math.max(saved.height, minimum.height));
  return clampInto(saved, best, minimum);
}

/** The saved state, or undefined when there is none or it is not valid. */
export function loadWindowState(file: string): WindowState | undefined {
  try {
    const parsed = windowStateSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole to a temporary file and renamed over the old one, so a crash mid-write leaves the old state. */
export function saveWindowState(file: string, state: WindowState): void {
  const checked = windowStateSchema.parse(state);
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(checked)}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, file);
}

interface TrackedWindow {
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  on(event: 'close', listener: () => void): unknown;
}

/** Saves the window's normal (un-maximised) bounds and whether it is maximised, when it closes. */
export function rememberWindowState(window: TrackedWindow, file: string, logger: Logger): void {
  window.on('close', () => {
    const bounds = window.getNormalBounds();
    try {
      saveWindowState(file, {
        x: Math.round(bounds.x),
        y: Math.round(bounds.y),
        width: Math.round(bounds.width),
        height: Math.round(bounds.height),
        maximized: window.isMaximized(),
      });
    } catch (error) {
      logger.warn('window state not saved', { reason: error instanceof Error ? error.name : 'unknown' });
    }
  });
}
