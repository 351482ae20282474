/** Every import cycle among the product files under `root`, each as sorted repository-relative paths. */
export function findImportCycles(root: string): string[][];
