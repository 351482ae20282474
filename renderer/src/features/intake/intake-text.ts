import type { IntakeChannelView, IntakeStatus } from '../../../../shared/intake-contract.js';
import type { IntakeModeView, IntakeRuleSetView } from '../../../../shared/intake-rules.js';
import { plural } from '../format/format-time.js';

/** The words of the Intake screen that are worked out from the status (kept apart so they are tested alone). */

export type IntakeUnit = 'message' | 'file';

export function describeSeries(series: readonly number[], unit: IntakeUnit): string {
  const total = series.reduce((sum, value) => sum + value, 0);
  if (total === 0) return `No ${unit}s in the last hour.`;
  const most = Math.max(...series);
  const last = series.at(-1) ?? 0;
  return `${plural(total, unit)} in the last hour; at most ${most} in one minute; ${last} in the current minute.`;
}

export const STATE_TEXT: Record<IntakeChannelView['state'], string> = {
  starting: 'Starting',
  listening: 'Listening',
  watching: 'Watching',
  stopped: 'Stopped',
  failed: 'Failed',
};

export const OUTCOME_TEXT: Record<IntakeChannelView['problems'][number]['outcome'], string> = {
  AE: 'AE: cannot become an order',
  AR: 'AR: not read',
  review: 'AA: needs fixing',
  refused: 'Refused',
  failed: 'File set aside',
  waiting: 'File waiting',
};

export function channelTitle(channel: IntakeChannelView): string {
  return channel.kind === 'mllp' ? `MLLP listener ${channel.address}` : `Watched folder ${channel.address}`;
}

/** The two rules, in the admin's words. */
export const MODE_TEXT: Record<IntakeModeView, string> = {
  hold: 'Hold for review in Preview',
  send: 'Send valid orders as they arrive',
};

export function sameRules(a: IntakeRuleSetView, b: IntakeRuleSetView): boolean {
  return (
    a.onArrival === b.onArrival &&
    a.senders.length === b.senders.length &&
    a.senders.every((rule, i) => rule.sender === b.senders[i]?.sender && rule.onArrival === b.senders[i]?.onArrival)
  );
}

/** What a running intake does with what arrives: its default, and the senders with their own rule. */
export function describeRunRules(rules: IntakeRuleSetView): string {
  const base =
    rules.onArrival === 'send' ? 'valid orders are sent as they arrive' : 'orders are held for review in Preview';
  if (rules.senders.length === 0) return `${base}.`;
  const own = rules.senders.map(
    (rule) => `${rule.sender} (${rule.onArrival === 'send' ? 'sent as they arrive' : 'held'})`,
  );
  return `${base}; senders with a rule of their own: ${own.join(', ')}.`;
}

/**
 * The `rx-batch serve` command that runs what the screen shows (or would start) unattended. It needs no rule
 * flags: serve uses the environment's saved rules, as a start here does.
 */
export function serveCommand(environmentId: string, status: IntakeStatus | undefined, port: string): string {
  const channels = status?.running ? status.channels : [];
  const listener = channels.find((channel) => channel.kind === 'mllp');
  const folders = channels.filter((channel) => channel.kind === 'folder').map((channel) => channel.address);
  const parts = ['rx-batch serve', `--env ${environmentId}`];
  if (listener) parts.push(`--mllp ${listener.address}`);
  else if (!status?.running) parts.push(`--mllp 127.0.0.1:${port || '2575'}`);
  for (const folder of folders) parts.push(`--watch ${/\s/.test(folder) ? `"${folder}"` : folder}`);
  return parts.join(' ');
}
