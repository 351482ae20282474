import { describe, expect, it } from 'vitest';
import { placeTooltip } from './tooltip-placement.js';

const viewport = { width: 1024, height: 700 };
const tip = { width: 300, height: 80 };

describe('the grid tooltip stays inside the window', () => {
  it('goes under its cell when there is room', () => {
    expect(placeTooltip({ left: 100, top: 200, width: 120, height: 32 }, tip, viewport)).toEqual({
      left: 100,
      top: 234,
    });
  });

  it('goes above a cell near the bottom, and shifts left of a cell near the right edge', () => {
    expect(placeTooltip({ left: 900, top: 650, width: 120, height: 32 }, tip, viewport)).toEqual({
      left: 1024 - 8 - 300,
      top: 650 - 80 - 2,
    });
  });

  it('never leaves the window, even when it fits neither above nor below', () => {
    const tall = { width: 2000, height: 690 };
    const place = placeTooltip({ left: -50, top: 300, width: 120, height: 32 }, tall, viewport);
    expect(place.left).toBe(8);
    expect(place.top).toBeGreaterThanOrEqual(8);
  });
});
