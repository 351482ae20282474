import type { EnvironmentView } from '../../../../shared/environment.js';
import { useLive } from '../live/live-context.js';
import { NextSteps } from '../workspace/NextSteps.js';
import { AttentionList } from './AttentionList.js';
import { LeftInPreviewPanel } from './LeftInPreviewPanel.js';
import { ProblemOrders } from './ProblemOrders.js';
import { ProgressPanel } from './ProgressPanel.js';
import { StatusBanner } from './StatusBanner.js';

/** Live sending progress for the selected environment, what blocks it, and what needs a person. */
export function SubmissionsScreen({ environment }: { environment: EnvironmentView }) {
  const { progress: all, attention } = useLive();
  const progress = all[environment.id];
  const counts = progress?.counts;
  const countsKey = counts ? [counts.rejected, counts.held, counts.in_doubt, counts.cancel_refused].join(',') : '';
  return (
    <section aria-labelledby="screen-heading" className="screen">
      <h2 id="screen-heading" tabIndex={-1}>
        Submissions
      </h2>
      <StatusBanner environment={environment} progress={progress} />
      {progress && Object.values(progress.counts).every((count) => count === 0) ? (
        <NextSteps
          environment={environment}
          title={`Nothing sent from ${environment.name} yet`}
          why="Orders you accept in Preview are sent from here, and this screen shows how they go."
          waitingListedBelow
        />
      ) : null}
      {progress ? (
        <ProgressPanel environment={environment} progress={progress} />
      ) : (
        <p role="status">Reading the outbox…</p>
      )}
      <LeftInPreviewPanel environment={environment} />
      <ProblemOrders environment={environment} countsKey={countsKey} inDoubt={counts?.in_doubt ?? 0} />
      <AttentionList items={attention.filter((item) => item.environmentId === environment.id)} />
    </section>
  );
}
