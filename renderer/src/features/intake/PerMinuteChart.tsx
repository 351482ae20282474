import { describeSeries, type IntakeUnit } from './intake-text.js';

const WIDTH = 360;
const HEIGHT = 48;

/**
 * Messages per minute over the last hour as bars (inline SVG, no library). The picture is `role="img"` with the
 * same facts in words as its name, so a screen reader hears the figures the bars show.
 */
export function PerMinuteChart({ series, unit }: { series: readonly number[]; unit: IntakeUnit }) {
  const most = Math.max(1, ...series);
  const barWidth = WIDTH / Math.max(series.length, 1);
  return (
    <figure className="intake-chart">
      <svg
        role="img"
        aria-label={describeSeries(series, unit)}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width={WIDTH}
        height={HEIGHT}
        preserveAspectRatio="none"
      >
        <line x1={0} y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} className="intake-chart-axis" />
        {series.map((value, index) =>
          value > 0 ? (
            <rect
              key={index}
              x={index * barWidth + 0.5}
              width={Math.max(barWidth - 1, 1)}
              y={HEIGHT - 1 - (value / most) * (HEIGHT - 2)}
              height={(value / most) * (HEIGHT - 2)}
              className="intake-chart-bar"
            />
          ) : null,
        )}
      </svg>
      <figcaption className="hint">Per minute, the last hour (now at the right); at most {most}.</figcaption>
    </figure>
  );
}
