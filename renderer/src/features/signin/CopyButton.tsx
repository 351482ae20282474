import { useState } from 'react';

/** Copies text to the clipboard and says so; where the clipboard is refused, says how to copy by hand. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [result, setResult] = useState<'copied' | 'refused' | null>(null);

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setResult('copied');
    } catch {
      setResult('refused');
    }
  }

  return (
    <>
      <button type="button" className="secondary" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="hint">
        {result === 'copied'
          ? 'Copied.'
          : result === 'refused'
            ? 'Copying was refused: select the code and copy it.'
            : ''}
      </span>
    </>
  );
}
