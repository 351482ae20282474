import { createContext, use } from 'react';
import type { CallOutput, EventPayload } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { AttentionView, OutboxProgressView } from '../../../../shared/outbox-views.js';

export type SignInStatusView = CallOutput<'signin.status'>;
export type DeviceStart = CallOutput<'signin.startDevice'>;

/** A device sign-in as the screen shows it; kept above the screens so leaving the page does not lose the code. */
export type DeviceLogin =
  | { phase: 'starting' }
  | { phase: 'waiting'; start: DeviceStart; intervalSeconds: number; slowDown: boolean }
  | { phase: 'ended'; outcome: 'signed-in' | 'denied' | 'expired' | 'cancelled' | 'failed'; message: string }
  | { phase: 'error'; error: unknown };

export interface LiveState {
  environments: EnvironmentView[];
  signIn: Partial<Record<string, SignInStatusView>>;
  progress: Partial<Record<string, OutboxProgressView>>;
  /** Newest first, the last 50. */
  attention: AttentionView[];
  device: Partial<Record<string, DeviceLogin>>;
  /** The app's core process: running, restarting after it died, or given up (`app.core`). */
  core: EventPayload<'app.core'>;
}

export interface LiveActions {
  refreshSignIn: (environmentId: string) => Promise<void>;
  refreshProgress: (environmentId: string) => Promise<void>;
  setProgress: (progress: OutboxProgressView) => void;
  startDevice: (environmentId: string) => Promise<void>;
  cancelDevice: (environmentId: string) => Promise<void>;
  dismissDevice: (environmentId: string) => void;
}

export const LiveContext = createContext<(LiveState & LiveActions) | null>(null);

/** What the core reports as it happens: environments, sign-in, outbox progress, notifications. */
export function useLive(): LiveState & LiveActions {
  const live = use(LiveContext);
  if (!live) throw new Error('useLive() is only available below <LiveProvider>');
  return live;
}
