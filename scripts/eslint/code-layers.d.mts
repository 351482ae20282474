/** Layer name → the layers it may import (README "Layout"). */
export const LAYERS: Readonly<Record<string, readonly string[]>>;
export const COMPOSERS: readonly string[];
export function layerOf(path: string): { layer: string; handlers: boolean } | undefined;
