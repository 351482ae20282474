import { Notification } from 'electron';
import type { EventPayload } from '../../shared/contract.js';
import type { CoreEvents } from '../core/platform/events.js';

/**
 * OS notifications for what the admin should know while looking elsewhere: something needs attention (sign-in,
 * an outage, an order set aside) or an outbox finished sending. Only while the window is not focused (the screen
 * shows the same), and bursts are folded into one notification. Bodies are the core's operational sentences,
 * capped in length; the core never puts patient data in them.
 */

export interface Notifier {
  isSupported(): boolean;
  show(note: { title: string; body: string }, onClick: () => void): void;
}

export interface NotificationOptions {
  notifier: Notifier;
  isWindowFocused(): boolean;
  focusWindow(): void;
  /** How long to gather a burst before showing it. Default 1500 ms. */
  coalesceMs?: number;
}

const MAX_BODY = 240;

const TITLES: Record<string, string> = {
  'sign-in-required': 'Sign-in needed',
  'service-unavailable': 'Order Service unavailable',
  'service-unreadable': 'Order Service answers unreadable',
  order: 'An order needs attention',
};

type Note = { title: string; body: string };

function clip(text: string): string {
  return text.length > MAX_BODY ? `${text.slice(0, MAX_BODY - 1)}…` : text;
}

export function attentionNote(attention: EventPayload<'attention'>): Note {
  return { title: TITLES[attention.kind] ?? 'Rx Batch needs attention', body: clip(attention.message) };
}

/** Subscribes to the core's events; returns the unsubscribe (which also drops a burst not yet shown). */
export function notifyFromCoreEvents(events: Pick<CoreEvents, 'subscribe'>, options: NotificationOptions): () => void {
  const coalesceMs = options.coalesceMs ?? 1500;
  let burst: Note[] = [];
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    timer = undefined;
    const notes = burst;
    burst = [];
    if (notes.length === 0 || options.isWindowFocused() || !options.notifier.isSupported()) return;
    const note =
      notes.length === 1 && notes[0]
        ? notes[0]
        : {
            title: 'Rx Batch',
            body: `${notes.length} things need your attention: ${notes.map((n) => n.title).join(', ')}.`,
          };
    options.notifier.show({ title: note.title, body: clip(note.body) }, () => options.focusWindow());
  };
  const queue = (note: Note) => {
    if (options.isWindowFocused()) return;
    burst.push(note);
    timer ??= setTimeout(flush, coalesceMs);
  };

  const sending = new Set<string>();
  const offs = [
    events.subscribe('attention', (attention) => queue(attentionNote(attention))),
    events.subscribe('outbox.progress', (progress) => {
      const wasSending = sending.has(progress.environmentId);
      if (progress.state === 'sending') sending.add(progress.environmentId);
      else sending.delete(progress.environmentId);
      if (wasSending && progress.state === 'idle') {
        queue({ title: 'Batch sent', body: `Every queued order for ${progress.environmentId} has been sent.` });
      }
    }),
  ];
  return () => {
    if (timer) clearTimeout(timer);
    burst = [];
    offs.forEach((off) => off());
  };
}

/** Electron's notifications. Clicking one brings the window forward. */
export const electronNotifier: Notifier = {
  isSupported: () => Notification.isSupported(),
  show(note, onClick) {
    const notification = new Notification({ title: note.title, body: note.body, silent: false });
    notification.on('click', onClick);
    notification.show();
  },
};
