import type { CallOutput } from '../../../../shared/contract.js';
import { plural } from '../format/format-time.js';

/** What the Log screen's export says once it has ended, in the words the admin reads in its status line. */
export function exportSentence(result: CallOutput<'log.export'>): string {
  switch (result.outcome) {
    case 'cancelled':
      return 'Export cancelled: nothing was written.';
    case 'empty':
      return 'No entry matches the filters, so nothing was exported and no file was written. Change or clear the filters to export.';
    default: {
      const what = result.filtered ? 'matching ' : '';
      return (
        `Exported ${plural(result.count, `${what}entry`, `${what}entries`)} to ${result.fileName}, clinic order ids ` +
        `${result.masked ? 'masked' : 'in full'}.`
      );
    }
  }
}
