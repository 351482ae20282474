import type { EventPayload } from '../../../../shared/contract.js';

export type CoreState = EventPayload<'app.core'>;

export interface CoreNotice {
  /** An alert for a core that gave up; a status while it restarts. */
  role: 'alert' | 'status';
  tone: 'bad' | 'waiting';
  title: string;
  text: string;
}

/**
 * What the header says about the app's core process (`app.core`): nothing while it runs; at once when it died and
 * is restarting (what was accepted is safe in the database; what was in progress may need doing again); and what
 * to do when it was not restarted.
 */
export function coreNotice(core: CoreState): CoreNotice | undefined {
  switch (core.state) {
    case 'running':
      return undefined;
    case 'restarting':
      return {
        role: 'status',
        tone: 'waiting',
        title: 'Rx Batch’s core stopped unexpectedly and is restarting…',
        text: 'Orders already accepted are safe. Something you started just now may need doing again once it is back.',
      };
    case 'failed':
      return {
        role: 'alert',
        tone: 'bad',
        title: '! Rx Batch’s core has stopped.',
        text: core.message ?? 'Quit and start Rx Batch again. Orders already accepted are safe.',
      };
  }
}
