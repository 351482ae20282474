/** Time left as `m:ss` for the eye and as words for a screen reader ("4 minutes 5 seconds"). */
export function formatRemaining(ms: number): { clock: string; words: string } {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const words =
    minutes > 0
      ? seconds > 0
        ? `${unit(minutes, 'minute')} ${unit(seconds, 'second')}`
        : unit(minutes, 'minute')
      : unit(seconds, 'second');
  return { clock: `${minutes}:${String(seconds).padStart(2, '0')}`, words };
}

export { formatCount, plural } from '../../../../shared/count-words.js';
