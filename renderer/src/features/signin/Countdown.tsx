import { formatRemaining } from '../format/format-time.js';
import { useNow } from '../format/use-now.js';

/** Time left until the code expires, live; the timer role keeps screen readers from announcing every second. */
export function Countdown({ expiresAt }: { expiresAt: string }) {
  const now = useNow(1000);
  const left = Date.parse(expiresAt) - now;
  const { clock, words } = formatRemaining(left);
  if (left <= 0) return <p className="countdown expired">The code has expired.</p>;
  return (
    <p className="countdown">
      Code expires in{' '}
      <span role="timer" aria-label={`Code expires in ${words}`} className="countdown-clock">
        {clock}
      </span>
    </p>
  );
}
