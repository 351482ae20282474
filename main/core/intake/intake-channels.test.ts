import { describe, expect, it } from 'vitest';
import { ChannelActivity } from './channel-activity.js';
import { noteRefusal, refusalReason } from './intake-channels.js';

describe('a refused connection on the Intake screen', () => {
  it('says why in its own words: the allow-list, an HTTP request, a failed TLS handshake', () => {
    expect(refusalReason({ kind: 'peer', reason: 'allow', peer: '10.0.0.9:5100' })).toBe(
      'The peer is not in the allow-list.',
    );
    const http = refusalReason({ kind: 'peer', reason: 'http', peer: '127.0.0.1:5100' });
    expect(http).toMatch(/^The connection began as an HTTP request/);
    expect(http).not.toMatch(/allow-list/);
    const tls = refusalReason({ kind: 'peer', reason: 'tls', peer: '10.0.0.9:5100' });
    expect(tls).toMatch(/^The TLS handshake failed/);
    expect(tls).not.toMatch(/allow-list/);
    expect(refusalReason({ kind: 'busy', peer: '10.0.0.9:5100' })).toMatch(/as many connections open as it takes/);
  });

  it('says a coalesced count with the reason it was counted for', () => {
    expect(refusalReason({ kind: 'peer', reason: 'http', peer: '127.0.0.1', count: 24 })).toBe(
      '24 more connections from this address refused for the same reason, counted into this one. ' +
        'The connection began as an HTTP request (a web page or web client sent to the MLLP port?); it was closed unread.',
    );
    expect(refusalReason({ kind: 'peer', reason: 'allow', peer: 'other peers', count: 1 })).toBe(
      '1 more connection from other addresses refused for the same reason, counted into this one. ' +
        'The peer is not in the allow-list.',
    );
  });

  it('keeps it among the channel’s problems, with the peer', () => {
    const activity = new ChannelActivity(() => new Date('2026-12-03T06:00:00Z'));
    noteRefusal(activity, { kind: 'peer', reason: 'tls', peer: '10.0.0.9:5100' });
    expect(activity.problems()).toEqual([
      {
        at: '2026-12-03T06:00:00.000Z',
        controlId: '',
        peer: '10.0.0.9:5100',
        outcome: 'refused',
        reason: refusalReason({ kind: 'peer', reason: 'tls', peer: '10.0.0.9:5100' }),
        batchId: null,
      },
    ]);
  });
});
