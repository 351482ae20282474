/** `rx-batch-log-2025-03-03.csv`, from the local date. */
export function exportFileName(format: 'csv' | 'jsonl', now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  return `rx-batch-log-${day}.${format}`;
}
