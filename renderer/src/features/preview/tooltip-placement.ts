/**
 * Where the grid's tooltip goes: under its cell when it fits in the window, else above it, else wherever it is
 * least cut; shifted left to stay inside the window, never past its left edge. Coordinates are the window's
 * (the tooltip is `position: fixed`), so no scrolling container can cut it off.
 */

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export function placeTooltip(
  cell: Box,
  tip: { width: number; height: number },
  viewport: { width: number; height: number },
  margin = 8,
): { left: number; top: number } {
  const below = cell.top + cell.height + 2;
  const above = cell.top - tip.height - 2;
  let top: number;
  if (below + tip.height <= viewport.height - margin) top = below;
  else if (above >= margin) top = above;
  else top = Math.max(margin, viewport.height - margin - tip.height);
  const left = Math.max(margin, Math.min(cell.left, viewport.width - margin - tip.width));
  return { left, top };
}
