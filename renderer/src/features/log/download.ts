/**
 * Hands text to the browser as a file download (a Blob URL, no server round trip). In the desktop app the same
 * download goes through Electron's download handling.
 */
export function downloadText(fileName: string, text: string, mimeType: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mimeType }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own reference by now; release ours once the click has been handled.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** `rx-batch-log-2025-03-03.csv`, from the local date. */
export function exportFileName(format: 'csv' | 'jsonl', now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  return `rx-batch-log-${day}.${format}`;
}
