import { describe, expect, it } from 'vitest';
import type { OrderDetail } from '../../../../shared/order-views.js';
import { formatDate, formatTime } from '../format/format-date.js';
import { buildTimeline, describeLines } from './build-timeline.js';

const t = (second: number) => new Date(Date.UTC(2025, 2, 3, 9, 0, second)).toISOString();

function detail(overrides: Partial<OrderDetail> = {}): OrderDetail {
  return {
    order: {
      id: 7,
      batchId: 2,
      environmentId: 'local-sandbox',
      clinicCode: 'CLINIC-A',
      clinicOrderId: 'ORD-1',
      route: 'v1',
      state: 'cancel_refused',
      pharmacyOrderId: 5001,
      remoteStatus: 'Prescription Dispatched',
      remoteStatusAt: t(40),
      dispatchDate: '2025-03-03',
      trackingId: 'RM123456789GB',
      lastError: null,
      attempts: 2,
      nextAttemptAt: null,
      createdAt: t(0),
      updatedAt: t(50),
    },
    origin: {
      batchId: 2,
      fileName: 'march.csv',
      format: 'csv',
      importedAt: t(0),
      position: 1,
      lines: [2, 3],
      message: null,
      controlId: null,
      sourceKept: true,
      edited: false,
    },
    items: [],
    attempts: [
      {
        id: 1,
        operation: 'create',
        startedAt: t(2),
        latencyMs: 30_000,
        httpStatus: null,
        outcome: 'in-doubt',
        errorMessage: 'timed out',
        remoteId: null,
      },
      {
        id: 2,
        operation: 'lookup',
        startedAt: t(5),
        latencyMs: 12,
        httpStatus: 200,
        outcome: 'ok',
        errorMessage: null,
        remoteId: '5001',
      },
      {
        id: 3,
        operation: 'cancel',
        startedAt: t(45),
        latencyMs: 9,
        httpStatus: 400,
        outcome: 'rejected',
        errorMessage: 'already dispatched',
        remoteId: null,
      },
    ],
    statusHistory: [
      { id: 1, status: 'Waiting Payment Success', dispatchDate: null, trackingId: null, observedAt: t(10) },
      {
        id: 2,
        status: 'Prescription Dispatched',
        dispatchDate: '2025-03-03',
        trackingId: 'RM123456789GB',
        observedAt: t(40),
      },
    ],
    cancellations: [
      {
        id: 1,
        reason: 'Prescriber withdrew it',
        state: 'refused',
        requestedAt: t(44),
        sentAt: t(45),
        resultMessage: 'already dispatched',
      },
    ],
    audit: [
      {
        seq: 10,
        at: t(1),
        actor: 'user',
        action: 'order.accepted',
        environmentId: 'local-sandbox',
        batchId: 2,
        orderId: 7,
        clinicCode: 'CLINIC-A',
        clinicOrderId: 'ORD-1',
        details: {},
        prevHash: 'a',
        hash: 'b',
      },
      {
        seq: 11,
        at: t(2),
        actor: 'submitter',
        action: 'order.attempt',
        environmentId: 'local-sandbox',
        batchId: 2,
        orderId: 7,
        clinicCode: 'CLINIC-A',
        clinicOrderId: 'ORD-1',
        details: {},
        prevHash: 'b',
        hash: 'c',
      },
    ],
    ...overrides,
  };
}

describe('an order’s timeline', () => {
  it('tells the whole story in order: staged, accepted, in doubt, found, statuses, cancel refused', () => {
    const events = buildTimeline(detail());
    expect(events.map((event) => event.title)).toEqual([
      'Imported from march.csv, lines 2–3',
      'Staged in batch 2',
      'Accepted into the outbox',
      'Sent, but no answer came back (in doubt)',
      'Looked up: the service has it, pharmacy order id 5001',
      'Status: Waiting Payment Success',
      'Status: Prescription Dispatched',
      'Cancel requested',
      'Cancel refused',
    ]);
    const dispatched = events.find((event) => event.title === 'Status: Prescription Dispatched');
    expect(dispatched?.details).toEqual([`Dispatch date ${formatDate('2025-03-03')}`, 'Tracking id RM123456789GB']);
    const cancel = events.find((event) => event.title === 'Cancel requested');
    // The refusal's words once, in its own entry.
    expect(cancel?.details).toEqual(['Reason: Prescriber withdrew it', 'Outcome: Refused']);
    expect(events.find((event) => event.title === 'Cancel refused')).toMatchObject({
      details: ['The service said: already dispatched'],
      technical: ['HTTP 400, 9 ms'],
    });
  });

  it('says in words that the connection was cut while sending and nothing is sent twice; the cause is technical', () => {
    const cut = {
      id: 1,
      operation: 'create' as const,
      startedAt: t(2),
      latencyMs: 812,
      httpStatus: null,
      outcome: 'in-doubt' as const,
      errorMessage: 'sent, but the connection was lost before an answer (ECONNRESET): the outcome is unknown',
      remoteId: null,
    };
    const events = buildTimeline(detail({ attempts: [cut], statusHistory: [], cancellations: [], audit: [] }));
    const sent = events.find((event) => event.key === 'attempt-1')!;
    expect(sent.title).toBe('Sent, but no answer came back (in doubt)');
    expect(sent.details).toEqual([
      'The connection was cut while the order was being sent, so whether the service received it is unknown. The app looks the order up before sending anything again, so nothing is sent twice.',
    ]);
    expect(sent.details.join(' ')).not.toMatch(/ECONNRESET/);
    expect(sent.technical).toEqual([cut.errorMessage, '812 ms']);
  });

  it('keeps every failed attempt’s error text behind the disclosure, never in the words shown', () => {
    const failed = (operation: OrderDetail['attempts'][number]['operation'], outcome: 'retryable' | 'auth') => ({
      id: 1,
      operation,
      startedAt: t(2),
      latencyMs: null,
      httpStatus: null,
      outcome,
      errorMessage: 'could not reach the service: connect ECONNREFUSED 127.0.0.1:4000 (ECONNREFUSED)',
      remoteId: null,
    });
    for (const attempt of [
      failed('create', 'retryable'),
      failed('create', 'auth'),
      failed('lookup', 'retryable'),
      failed('cancel', 'retryable'),
      failed('status', 'retryable'),
    ]) {
      const events = buildTimeline(detail({ attempts: [attempt], statusHistory: [], cancellations: [], audit: [] }));
      const event = events.find((candidate) => candidate.key === 'attempt-1')!;
      expect(event.details.length, `${attempt.operation} ${attempt.outcome}`).toBe(1);
      expect(event.details.join(' ')).not.toMatch(/ECONN|127\.0\.0\.1/);
      expect(event.technical).toEqual([attempt.errorMessage]);
    }
  });

  it('tells an in-doubt 5xx from a send that got no answer, for creates and cancels', () => {
    const attempt = (operation: 'create' | 'cancel', httpStatus: number | null) => ({
      id: 1,
      operation,
      startedAt: t(2),
      latencyMs: 40,
      httpStatus,
      outcome: 'in-doubt' as const,
      errorMessage: 'the service failed (502): Bad Gateway',
      remoteId: null,
    });
    const titles = (attempts: OrderDetail['attempts']) =>
      buildTimeline(detail({ attempts, statusHistory: [], cancellations: [], audit: [] })).map((e) => e.title);
    expect(titles([attempt('create', 502)])).toContain(
      'Sent, but the service failed without saying whether it was created (in doubt): looked up first',
    );
    expect(titles([attempt('create', null)])).toContain('Sent, but no answer came back (in doubt)');
    expect(titles([attempt('cancel', 504)])).toContain(
      'Cancel sent, no clear answer: its status is checked before it is sent again',
    );
  });

  it('shows a rejection found when accepting (no attempt was made) from the log', () => {
    const events = buildTimeline(
      detail({
        attempts: [],
        statusHistory: [],
        cancellations: [],
        audit: [
          {
            seq: 3,
            at: t(1),
            actor: 'user',
            action: 'order.rejected',
            environmentId: 'local-sandbox',
            batchId: 2,
            orderId: 7,
            clinicCode: 'CLINIC-A',
            clinicOrderId: 'ORD-1',
            details: { errorMessage: 'ORD-1 of clinic CLINIC-A is already in the outbox' },
            prevHash: 'a',
            hash: 'b',
          },
        ],
      }),
    );
    expect(events.map((event) => [event.title, event.details])).toEqual([
      ['Imported from march.csv, lines 2–3', []],
      ['Accepted into the outbox from batch 2', ['Route v1']],
      ['Rejected', ['ORD-1 of clinic CLINIC-A is already in the outbox']],
    ]);
  });

  it('shows when the service stopped finding the order, why, when it found it again, and when it listed it otherwise', () => {
    const reason = 'the service has not found order ORD-1 (pharmacy id 5001) on 3 lookups since 2025-03-03 09:00 UTC';
    const listed = 'the service lists order ORD-1 (pharmacy id 5001) as clinic order id "ord-1", pharmacy id 5001';
    const entry = (seq: number, at: string, action: string, details: Record<string, string>) => ({
      seq,
      at,
      actor: 'system' as const,
      action,
      environmentId: 'local-sandbox',
      batchId: 2,
      orderId: 7,
      clinicCode: 'CLINIC-A',
      clinicOrderId: 'ORD-1',
      details,
      prevHash: 'a',
      hash: 'b',
    });
    const events = buildTimeline(
      detail({
        attempts: [],
        statusHistory: [],
        cancellations: [],
        audit: [
          entry(4, t(20), 'order.lost-at-service', { outcome: 'not-found', errorMessage: reason }),
          entry(5, t(30), 'order.found-at-service', { outcome: 'found' }),
          entry(6, t(40), 'order.listed-differently', { outcome: 'listed-differently', errorMessage: listed }),
        ],
      }),
    );
    expect(events.slice(2).map((event) => [event.title, event.details, event.tone])).toEqual([
      ['Not found at the service on repeated lookups', [reason], 'attention'],
      ['Found at the service again', [], 'good'],
      ['Listed by the service under other ids (not taken)', [listed], 'attention'],
    ]);
  });

  describe('starts where the order came from', () => {
    const origin = (overrides: Partial<OrderDetail['origin']>) =>
      buildTimeline(detail({ origin: { ...detail().origin, ...overrides } }))[0]!;

    it('a CSV order: the file and its records’ lines, with the source on request', () => {
      const first = origin({ lines: [7] });
      expect(first).toMatchObject({ key: 'origin', title: 'Imported from march.csv, line 7', showSource: true });
      expect(first.at).toBe(t(0));
      expect(first.details).toEqual([]);
    });

    it('an HL7 order: the message index and its control id', () => {
      expect(
        origin({ fileName: 'batch.hl7', format: 'hl7', lines: [], message: 3, controlId: 'MSG-0003' }),
      ).toMatchObject({ title: 'Imported from batch.hl7, HL7 message 3 (control id MSG-0003)', showSource: true });
      expect(origin({ fileName: 'batch.hl7', format: 'hl7', lines: [], message: 3, controlId: null }).title).toBe(
        'Imported from batch.hl7, HL7 message 3',
      );
    });

    it('a JSON order: its entry, and plainly that no original text is kept', () => {
      const first = origin({ fileName: 'seed.json', format: 'json', lines: [], position: 4, sourceKept: false });
      expect(first.title).toBe('Imported from seed.json, order 4 of the JSON array');
      expect(first.details).toEqual(['A JSON import: the app keeps no original text of it to show.']);
      expect(first.showSource).toBeUndefined();
    });

    it('an order from before staging: the batch file only, and why there is no line', () => {
      const first = origin({ lines: [], position: null, sourceKept: false });
      expect(first.title).toBe('Imported from march.csv');
      expect(first.details).toEqual([
        'No line or message was recorded: this order was imported before the app kept where each order came from.',
      ]);
      expect(first.showSource).toBeUndefined();
    });

    it('says when the order was edited before it was accepted', () => {
      expect(origin({ edited: true }).details).toEqual([
        'Edited in the app before it was accepted; the source shows the file as it was.',
      ]);
    });

    it('comes first, also when the file was imported and accepted in the same instant', () => {
      const sameInstant = detail();
      expect(sameInstant.origin.importedAt).toBe(sameInstant.order.createdAt);
      expect(
        buildTimeline(sameInstant)
          .map((event) => event.key)
          .slice(0, 2),
      ).toEqual(['origin', 'imported']);
    });
  });

  it('names CSV lines as a person would', () => {
    expect(describeLines([4])).toBe('line 4');
    expect(describeLines([2, 3, 4])).toBe('lines 2–4');
    expect(describeLines([2, 5, 9])).toBe('lines 2, 5 and 9');
    expect(describeLines([])).toBe('');
  });
});

describe('repeated failures in the timeline', () => {
  it('shows attempts that failed alike one after another as one line saying how many and until when', () => {
    const failedCheck = (id: number, second: number) => ({
      id,
      operation: 'status' as const,
      startedAt: t(second),
      latencyMs: 3,
      httpStatus: 503,
      outcome: 'retryable' as const,
      errorMessage: `outage ${id}`,
      remoteId: null,
    });
    const outage = detail({
      attempts: [failedCheck(21, 11), failedCheck(22, 12), failedCheck(23, 13), failedCheck(24, 41)],
      cancellations: [],
      audit: [],
    });
    const titles = buildTimeline(outage).map((event) => event.title);
    // Three checks between two statuses are one line; the one after the next status is its own.
    expect(titles.filter((title) => title === 'Status check failed')).toHaveLength(2);
    const first = buildTimeline(outage).find((event) => event.title === 'Status check failed')!;
    expect(first.at).toBe(t(11));
    expect(first.details).toContain(`3 times in a row, the last at ${formatTime(t(13))}.`);
    expect(first.technical).toEqual(['outage 23', 'HTTP 503, 3 ms']);
    const last = buildTimeline(outage).filter((event) => event.title === 'Status check failed')[1]!;
    expect(last.details.some((line) => line.includes('times in a row'))).toBe(false);
  });
});
