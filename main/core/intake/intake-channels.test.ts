import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { intakeStatusSchema } from '../../../shared/intake-contract.js';
import type { Store } from '../store/store.js';
import { ChannelActivity } from './channel-activity.js';
import { allowListView, channelView, noteFile, noteRefusal, refusalReason } from './intake-channels.js';
import { MllpListener } from './mllp-listener.js';

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
    // A flood reaches thousands within the interval: counted as the rest of the screen counts.
    expect(refusalReason({ kind: 'peer', reason: 'allow', peer: '10.0.0.9', count: 1234 })).toMatch(
      /^1,234 more connections from this address/,
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

describe("a listener's allow-list on the Intake screen", () => {
  const listener = (allow?: string[]) =>
    new MllpListener({
      host: '0.0.0.0',
      ...(allow ? { allow } : {}),
      handle: () => Promise.reject(new Error('unused')),
    });

  it('is what the listener compares peers with, so the screen can tell it from no allow-list', () => {
    expect(allowListView(listener().allowed)).toBeNull();
    // serve --mllp 0.0.0.0:2575 --allow 10.0.0.5 (an IPv4-mapped address is compared as IPv4).
    expect(allowListView(listener(['::ffff:10.0.0.5']).allowed)).toEqual({
      count: 1,
      addresses: ['10.0.0.5'],
      loopbackOnly: false,
    });
  });

  it("says when every address is this computer's, and counts all of a long list it names the first of", () => {
    expect(allowListView(['127.0.0.1', '::1'])?.loopbackOnly).toBe(true);
    expect(allowListView(['127.0.0.1', '10.0.0.5'])?.loopbackOnly).toBe(false);
    // An empty list answers no one: not "this computer only".
    expect(allowListView([])).toEqual({ count: 0, addresses: [], loopbackOnly: false });
    const many = Array.from({ length: 25 }, (_, i) => `10.0.0.${i + 1}`);
    const view = allowListView(many)!;
    expect([view.count, view.addresses.length, view.addresses[0], view.addresses.at(-1)]).toEqual([
      25,
      20,
      '10.0.0.1',
      '10.0.0.20',
    ]);
  });
});

describe("a watched folder's access on the Intake screen", () => {
  const root = mkdtempSync(join(tmpdir(), 'rx-channel-access-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const store = { isOpen: false } as Store;
  const run = { environmentId: 'local-sandbox', afterMessageId: 0 };
  const view = (mode: number) => {
    const folder = join(root, `inbox-${mode.toString(8)}`);
    mkdirSync(folder);
    chmodSync(folder, mode);
    const channel = { kind: 'folder' as const, address: folder, state: 'watching' as const };
    return channelView(store, run, { ...channel, activity: new ChannelActivity(() => new Date()) });
  };

  it('says who else can put files in it or list it, and the fix; nothing for a folder only its owner can use', () => {
    expect(view(0o770).access).toBe(
      'its group can put files in it (mode 0770), which are imported as orders; its group can list it (mode 0770) ' +
        'and read the patient files its modes allow; chmod 700 it (or 770, with a group of this account and the ' +
        'system that writes there only)',
    );
    expect(view(0o700)).not.toHaveProperty('access');
    expect(intakeStatusSchema.shape.channels.element.safeParse(view(0o777)).success).toBe(true);
  });

  it('says so of done/ and failed/ too: they keep every file the folder had, for good', () => {
    const folder = join(root, 'inbox-kept');
    mkdirSync(join(folder, 'done'), { recursive: true, mode: 0o700 });
    mkdirSync(join(folder, 'failed'), { mode: 0o700 });
    chmodSync(folder, 0o700);
    const channel = { kind: 'folder' as const, address: folder, state: 'watching' as const };
    const shown = () => channelView(store, run, { ...channel, activity: new ChannelActivity(() => new Date()) });
    expect(shown()).not.toHaveProperty('access');
    chmodSync(join(folder, 'done'), 0o755);
    expect(shown().access).toBe(
      'its group and every user can list done/ (mode 0755) and read the patient files its modes allow; chmod 700 ' +
        'done/ (or 770, with a group of this account and the system that writes there only)',
    );
    chmodSync(join(folder, 'failed'), 0o773);
    chmodSync(folder, 0o750);
    expect(shown().access).toBe(
      'its group can list it (mode 0750) and read the patient files its modes allow; its group and every user can ' +
        'list done/ (mode 0755) and read the patient files its modes allow; its group and every user can add or ' +
        'remove files in failed/ (mode 0773); its group can list failed/ (mode 0773) and read the patient files ' +
        'its modes allow; chmod 700 it, done/ and failed/ (or 770, with a group of this account and ' +
        'the system that writes there only)',
    );
  });
});

describe('a watched file on the Intake screen', () => {
  it('shows an empty file left waiting as a problem, not as a file received', () => {
    const activity = new ChannelActivity(() => new Date('2026-12-07T10:00:00Z'));
    const store = {} as Store; // a waiting file names no batch, so the store is not read
    noteFile(activity, store, { name: 'later.csv', outcome: 'waiting', batchId: null, movedTo: '/in/later.csv' });
    expect(activity.received).toBe(0);
    const [problem] = activity.problems();
    expect(problem).toMatchObject({ controlId: 'later.csv', outcome: 'waiting', batchId: null, peer: '' });
    expect(problem!.reason).toMatch(/^The file is empty: it stays in the folder, and is imported once something/);
    noteFile(activity, store, {
      name: 'refused.csv',
      outcome: 'failed',
      batchId: null,
      movedTo: '/in/failed/refused.csv',
    });
    expect(activity.received).toBe(1);
    expect(activity.problems().map((shown) => shown.outcome)).toEqual(['failed', 'waiting']);
  });

  it("says why a refused file was refused, from its problems' codes, and where the whole reasons are", () => {
    const activity = new ChannelActivity(() => new Date('2026-12-07T10:00:00Z'));
    noteFile(activity, {} as Store, {
      name: 'layout.csv',
      outcome: 'failed',
      batchId: null,
      movedTo: '/in/failed/layout.csv',
      refused: { codes: ['csv.noHeader', 'csv.noHeader'], note: '/in/failed/layout.csv.problems.txt' },
    });
    noteFile(activity, {} as Store, {
      name: 'odd.csv',
      outcome: 'failed',
      batchId: null,
      movedTo: '/in/failed/odd.csv',
      refused: { codes: ['csv.somethingNew'], note: '/in/failed/odd.csv.problems.txt' },
    });
    noteFile(activity, {} as Store, {
      name: 'orders.xml',
      outcome: 'failed',
      batchId: null,
      movedTo: '/in/failed/orders.xml',
      refused: { codes: ['file.otherFormat'], note: '/in/failed/orders.xml.problems.txt' },
    });
    const [xml, odd, layout] = activity.problems();
    expect(xml!.reason).toBe(
      'The file was refused because it is neither CSV nor HL7 v2 as Rx Batch reads them (HL7 XML, XML, JSON or a web ' +
        'page?). Every reason is in /in/failed/orders.xml.problems.txt.',
    );
    expect(layout!.reason).toBe(
      'The file was refused because no header row names the fields of an order: it needs a mapping profile for its ' +
        'layout. Every reason is in /in/failed/layout.csv.problems.txt.',
    );
    expect(odd!.reason).toBe('The file was refused. Every reason is in /in/failed/odd.csv.problems.txt.');
  });
});
