/** `orders.csv` → `orders-errors.csv`. */
export function derivedFileName(sourceFileName: string, suffix: string, extension = 'csv'): string {
  const base = sourceFileName.replace(/\.[^.]*$/, '') || 'batch';
  return `${base}-${suffix}.${extension}`;
}
