import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { connectionStatus } from '../../api/connection-state.js';
import { LiveContext, type DeviceLogin, type LiveActions, type LiveState } from './live-context.js';

const ATTENTION_KEPT = 50;

/**
 * Subscribes once to the core's events and keeps what the screens share: the environments, each one's sign-in
 * and outbox progress, recent notifications, device sign-ins in progress, and whether the core itself runs.
 */
export function LiveProvider({
  initialEnvironments,
  children,
}: {
  initialEnvironments: EnvironmentView[];
  children: ReactNode;
}) {
  const api = useApi();
  const [state, setState] = useState<LiveState>(() => ({
    environments: initialEnvironments,
    signIn: {},
    progress: {},
    attention: [],
    device: {},
    core: { state: 'running' },
  }));

  // The progress on screen, for a restarted core to refresh (read in an event listener, not while rendering).
  const shown = useRef(state.progress);
  useEffect(() => {
    shown.current = state.progress;
  }, [state.progress]);

  const setDevice = useCallback(
    (environmentId: string, update: (current: DeviceLogin | undefined) => DeviceLogin | undefined) =>
      setState((s) => ({ ...s, device: { ...s.device, [environmentId]: update(s.device[environmentId]) } })),
    [],
  );

  const refreshSignIn = useCallback(
    async (environmentId: string) => {
      try {
        const status = await api.call('signin.status', { environmentId });
        setState((s) => ({ ...s, signIn: { ...s.signIn, [environmentId]: status } }));
      } catch {
        // Shown as "unknown" until the next change; the sign-in screen reports errors of its own calls.
      }
    },
    [api],
  );

  const refreshProgress = useCallback(
    async (environmentId: string) => {
      try {
        const progress = await api.call('outbox.progress', { environmentId });
        setState((s) => ({ ...s, progress: { ...s.progress, [environmentId]: progress } }));
      } catch {
        // The next progress event fills it in.
      }
    },
    [api],
  );

  useEffect(() => {
    const offs = [
      api.on('environments.changed', (environments) => setState((s) => ({ ...s, environments }))),
      api.on('outbox.progress', (progress) =>
        setState((s) => ({ ...s, progress: { ...s.progress, [progress.environmentId]: progress } })),
      ),
      api.on('attention', (view) =>
        setState((s) => ({ ...s, attention: [view, ...s.attention].slice(0, ATTENTION_KEPT) })),
      ),
      api.on('signin.changed', (change) => {
        const { environmentId } = change;
        if (change.state === 'waiting' || change.state === 'slow-down') {
          // The first "waiting" can arrive before startDevice answers: only a login already shown is updated.
          setDevice(environmentId, (current) =>
            current?.phase === 'waiting'
              ? {
                  ...current,
                  intervalSeconds: change.intervalSeconds ?? current.intervalSeconds,
                  slowDown: current.slowDown || change.state === 'slow-down',
                }
              : current,
          );
        } else if (change.state !== 'signed-out') {
          const outcome = change.state;
          setDevice(environmentId, (current) =>
            // Only a login on screen ends here: while a new one starts, a result is the replaced login's.
            current?.phase === 'waiting' ? { phase: 'ended', outcome, message: change.message } : current,
          );
        }
        void refreshSignIn(environmentId);
      }),
      api.on('app.core', (core) => {
        setState((s) => ({ ...s, core }));
        // A restarted core has its own view of things: read the environments again (which re-reads every
        // sign-in, below) and the progress already shown; events carry on from here.
        if (core.state === 'running') readAgain();
      }),
      // Back after the page's link dropped: the events sent meanwhile are gone, so what they would have said is read.
      connectionStatus.subscribe((connection) => {
        if (connection.state === 'connected') readAgain();
      }),
    ];
    function readAgain() {
      void api.call('environments.list', {}).then(
        (environments) => setState((s) => ({ ...s, environments })),
        () => {},
      );
      for (const environmentId of Object.keys(shown.current)) void refreshProgress(environmentId);
    }
    return () => offs.forEach((off) => off());
  }, [api, refreshSignIn, refreshProgress, setDevice]);

  // Every environment's sign-in shows in the header and the sign-in screen: read them all at start and whenever
  // the environments change (an added one, or an edited profile, which starts a new session).
  useEffect(() => {
    for (const environment of state.environments) void refreshSignIn(environment.id);
  }, [state.environments, refreshSignIn]);

  const actions: LiveActions = useMemo(
    () => ({
      refreshSignIn,
      refreshProgress,
      setProgress: (progress) =>
        setState((s) => ({ ...s, progress: { ...s.progress, [progress.environmentId]: progress } })),
      startDevice: async (environmentId) => {
        setDevice(environmentId, () => ({ phase: 'starting' }));
        try {
          const start = await api.call('signin.startDevice', { environmentId });
          setDevice(environmentId, () => ({
            phase: 'waiting',
            start,
            intervalSeconds: start.interval,
            slowDown: false,
          }));
        } catch (error) {
          setDevice(environmentId, () => ({ phase: 'error', error }));
        }
        await refreshSignIn(environmentId);
      },
      cancelDevice: async (environmentId) => {
        try {
          await api.call('signin.cancelDevice', { environmentId });
        } catch (error) {
          setDevice(environmentId, () => ({ phase: 'error', error }));
        }
      },
      dismissDevice: (environmentId) => setDevice(environmentId, () => undefined),
    }),
    [api, refreshSignIn, refreshProgress, setDevice],
  );

  const value = useMemo(() => ({ ...state, ...actions }), [state, actions]);
  return <LiveContext value={value}>{children}</LiveContext>;
}
