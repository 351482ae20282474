/**
 * Saves text as a file through the browser's download (the same in Electron and browser mode): a Blob URL on a
 * temporary link, revoked once the click has started the download.
 */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** `orders.csv` → `orders-errors.csv`. */
export function derivedFileName(sourceFileName: string, suffix: string, extension = 'csv'): string {
  const base = sourceFileName.replace(/\.[^.]*$/, '') || 'batch';
  return `${base}-${suffix}.${extension}`;
}
