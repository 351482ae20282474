import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventPayload } from '../../shared/contract.js';
import { ORDER_STATE_NAMES } from '../../shared/order-views.js';
import { CoreEvents } from '../../main/core/platform/events.js';
import { Notification } from './electron-double.js';

vi.mock('electron', () => import('./electron-double.js'));
const { attentionNote, electronNotifier, notifyFromCoreEvents } = await import('../../main/electron/notifications.js');

const AT = '2030-01-01T09:00:00.000Z';

function attention(kind: string, message: string, orderIds: number[] = []): EventPayload<'attention'> {
  return { environmentId: 'cloudrx-sandbox', kind, message, orderIds, at: AT };
}

function progress(state: EventPayload<'outbox.progress'>['state']): EventPayload<'outbox.progress'> {
  return {
    environmentId: 'cloudrx-sandbox',
    state,
    counts: Object.fromEntries(ORDER_STATE_NAMES.map((name) => [name, 0])) as never,
    ordersPerSecond: 0,
    message: null,
  };
}

let events: CoreEvents;
let focused: boolean;
let shown: Array<{ title: string; body: string }>;
let clicks: Array<() => void>;
let focusWindow: ReturnType<typeof vi.fn<() => void>>;
let stop: () => void;

beforeEach(() => {
  vi.useFakeTimers();
  events = new CoreEvents();
  focused = false;
  shown = [];
  clicks = [];
  focusWindow = vi.fn<() => void>();
  stop = notifyFromCoreEvents(events, {
    notifier: {
      isSupported: () => true,
      show: (note, onClick) => {
        shown.push(note);
        clicks.push(onClick);
      },
    },
    isWindowFocused: () => focused,
    focusWindow,
    coalesceMs: 1000,
  });
});
afterEach(() => {
  stop();
  vi.useRealTimers();
});

describe('OS notifications', () => {
  it('tell the admin when something needs attention, and a click brings the window forward', () => {
    events.emit('attention', attention('sign-in-required', 'Sign in to CloudRx sandbox again to keep sending.'));
    expect(shown).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(shown).toEqual([{ title: 'Sign-in needed', body: 'Sign in to CloudRx sandbox again to keep sending.' }]);
    clicks[0]?.();
    expect(focusWindow).toHaveBeenCalled();
  });

  it('fold a burst into one notification', () => {
    events.emit('attention', attention('order', 'Order 7 was rejected: quantity.', [7]));
    events.emit('attention', attention('order', 'Order 8 was rejected: quantity.', [8]));
    events.emit('attention', attention('service-unavailable', 'The Order Service is not answering.'));
    vi.advanceTimersByTime(1000);
    expect(shown).toHaveLength(1);
    expect(shown[0]?.title).toBe('Rx Batch');
    expect(shown[0]?.body).toMatch(/^3 things need your attention/);
  });

  it('stay quiet while the window has focus (the screen shows the same)', () => {
    focused = true;
    events.emit('attention', attention('order', 'Order 7 was rejected.', [7]));
    vi.advanceTimersByTime(5000);
    expect(shown).toEqual([]);
  });

  it('say when an outbox has finished sending, once per run of sending', () => {
    events.emit('outbox.progress', progress('idle'));
    events.emit('outbox.progress', progress('sending'));
    events.emit('outbox.progress', progress('sending'));
    events.emit('outbox.progress', progress('idle'));
    events.emit('outbox.progress', progress('idle'));
    vi.advanceTimersByTime(1000);
    expect(shown).toEqual([{ title: 'Batch sent', body: 'Every queued order for cloudrx-sandbox has been sent.' }]);
  });

  it('cap long messages', () => {
    expect(attentionNote(attention('order', 'x'.repeat(1000))).body.length).toBeLessThanOrEqual(240);
    expect(attentionNote(attention('something-new', 'Look.')).title).toBe('Rx Batch needs attention');
  });

  it('drop a pending burst when unsubscribed', () => {
    events.emit('attention', attention('order', 'Order 7 was rejected.', [7]));
    stop();
    vi.advanceTimersByTime(5000);
    expect(shown).toEqual([]);
  });
});

describe("Electron's notifier", () => {
  it('shows a native notification whose click runs the callback', () => {
    const onClick = vi.fn();
    electronNotifier.show({ title: 'Batch sent', body: 'Done.' }, onClick);
    const [notification] = Notification.shown;
    expect(notification?.options).toMatchObject({ title: 'Batch sent', body: 'Done.' });
    notification?.emit('click');
    expect(onClick).toHaveBeenCalled();
    Notification.supported = false;
    expect(electronNotifier.isSupported()).toBe(false);
  });
});
