import { useLayoutEffect, type RefObject } from 'react';

/** Room left under the grid, px, so its bottom border shows above the window's edge. */
const GAP = 8;
/** The least height, px (18rem): in a window shorter than the preview's tools and this, the page scrolls instead. */
const MINIMUM = 288;

/**
 * The grid's height so that it ends at the window's bottom when its preview is at the window's top (where the
 * preview opens): the window's height less what the preview shows above the grid. That part wraps to more lines
 * in a narrow window and grows with notices, so no fixed allowance fits every window.
 */
export function fitHeight(windowHeight: number, offsetInPreview: number): number {
  return Math.max(MINIMUM, Math.floor(windowHeight - offsetInPreview - GAP));
}

/**
 * Keeps `ref`'s element at `fitHeight` (as `--grid-height`) while the window or the preview (`.preview`) changes
 * size. Measured after layout, before paint, so the grid never shows at another height first.
 */
export function useFitToWindow(ref: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const element = ref.current;
    const preview = element?.closest<HTMLElement>('.preview');
    if (!element || !preview) return;
    const fit = () => {
      const offset = element.getBoundingClientRect().top - preview.getBoundingClientRect().top;
      element.style.setProperty('--grid-height', `${fitHeight(window.innerHeight, offset)}px`);
    };
    fit();
    const observer = new ResizeObserver(fit);
    observer.observe(preview);
    window.addEventListener('resize', fit);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', fit);
    };
  }, [ref]);
}
