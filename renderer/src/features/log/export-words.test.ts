import { describe, expect, it } from 'vitest';
import { exportSentence } from './export-words.js';

describe('exportSentence', () => {
  it('says plainly that filters matching nothing exported nothing, and wrote no file', () => {
    const sentence = exportSentence({ outcome: 'empty' });
    expect(sentence).toBe(
      'No entry matches the filters, so nothing was exported and no file was written. Change or clear the filters to export.',
    );
  });

  it('says what an export wrote, where, and whether identifiers were masked', () => {
    const exported = { format: 'csv', masked: true, count: 1234, fileName: 'rx-batch-log-2026-12-03.csv' } as const;
    expect(exportSentence({ outcome: 'saved', ...exported, filtered: false })).toBe(
      'Exported 1,234 entries to rx-batch-log-2026-12-03.csv, clinic order ids masked.',
    );
    expect(
      exportSentence({ outcome: 'download', ...exported, count: 1, masked: false, filtered: true, downloadId: 'x' }),
    ).toBe('Exported 1 matching entry to rx-batch-log-2026-12-03.csv, clinic order ids in full.');
  });

  it('says a cancelled export left nothing', () => {
    expect(exportSentence({ outcome: 'cancelled' })).toBe('Export cancelled: nothing was written.');
  });
});
