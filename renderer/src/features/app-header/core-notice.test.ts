import { describe, expect, it } from 'vitest';
import { events } from '../../../../shared/contract.js';
import { coreNotice } from './core-notice.js';

describe('what the header says about the app’s core process', () => {
  it('nothing while it runs', () => {
    expect(coreNotice({ state: 'running' })).toBeUndefined();
  });

  it('at once when it is restarting, as a status that says accepted orders are safe', () => {
    const notice = coreNotice({ state: 'restarting', message: 'ignored' });
    expect(notice).toMatchObject({ role: 'status', tone: 'waiting' });
    expect(notice?.title).toContain('restarting');
    expect(notice?.text).toContain('Orders already accepted are safe');
  });

  it('an alert with the client’s sentence when it was not restarted', () => {
    const message = 'The app’s core stopped 5 times in a row soon after starting. Quit and start Rx Batch again.';
    expect(coreNotice({ state: 'failed', message })).toMatchObject({ role: 'alert', tone: 'bad', text: message });
    expect(coreNotice({ state: 'failed' })?.text).toMatch(/Quit and start Rx Batch again/);
  });

  it('the event is in the contract, with no other states', () => {
    expect(events['app.core'].safeParse({ state: 'running' }).success).toBe(true);
    expect(events['app.core'].safeParse({ state: 'exploded' }).success).toBe(false);
    expect(events['app.core'].safeParse({ state: 'running', extra: 1 }).success).toBe(false);
  });
});
