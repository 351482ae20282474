import type { SkippedFile } from '../../../../shared/desktop-contract.js';
import type { ImportOutcome } from '../../../../shared/staging-views.js';
import { invalidInWords } from '../../../../shared/hl7-message-types.js';
import { describeFailure } from '../errors/describe-failure.js';

/** One file of several imported in turn (a folder, a multiple choice, files handed over by the OS). */
export interface FileResult {
  name: string;
  ok: boolean;
  text: string;
}

/** Several files imported in turn: how each went, how many are still to come, and those passed over and why. */
export interface HandOver {
  results: FileResult[];
  remaining: number;
  /** Not imported at all: not a batch, not found, a folder inside the chosen one… */
  skipped: SkippedFile[];
  /** The admin cancelled one import: the rest were left. */
  stoppedWith?: number;
}

export function fileResult(name: string, result: { outcome: ImportOutcome } | { error: unknown }): FileResult {
  if ('error' in result) {
    const failure = describeFailure(result.error);
    return { name, ok: false, text: failure.detail ?? failure.summary };
  }
  const { outcome } = result;
  switch (outcome.status) {
    case 'staged':
      return {
        name,
        ok: true,
        text: `${outcome.orders.toLocaleString('en-GB')} orders: ${outcome.valid.toLocaleString('en-GB')} valid, ${invalidInWords(outcome.invalid, outcome.notOrders, 'with errors')}`,
      };
    case 'refused':
      return { name, ok: false, text: `cannot be imported: ${outcome.problems[0]?.text ?? 'unusable file'}` };
    case 'cancelled':
      return { name, ok: false, text: 'cancelled; nothing was staged' };
  }
}

/** Shown only when there is more to say than the one outcome below the file chooser. */
export function HandOverList({ handOver }: { handOver: HandOver }) {
  const { results, remaining, skipped, stoppedWith } = handOver;
  const several = results.length + remaining > 1;
  if (!several && skipped.length === 0) return null;
  return (
    <div className="hand-over">
      {several ? (
        <section aria-label="Files imported">
          <ul className="problem-list">
            {results.map((result, index) => (
              <li key={index}>
                <span aria-hidden="true">{result.ok ? '✓ ' : '✗ '}</span>
                <strong>{result.name}</strong>: {result.text}
              </li>
            ))}
          </ul>
          {remaining > 0 ? (
            <p role="status">
              {remaining === 1 ? '1 more file' : `${remaining.toLocaleString('en-GB')} more files`} to import after this
              one.
            </p>
          ) : null}
          {stoppedWith ? (
            <p role="status">
              {stoppedWith === 1 ? '1 file was' : `${stoppedWith.toLocaleString('en-GB')} files were`} left unimported.
            </p>
          ) : null}
        </section>
      ) : null}
      {skipped.length > 0 ? (
        <section aria-label="Files not imported" className="message">
          <p className="message-summary">Not imported:</p>
          <ul className="problem-list">
            {skipped.map((file, index) => (
              <li key={index}>
                <strong>{file.name}</strong>: {file.reason}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
