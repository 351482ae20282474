import { describe, expect, it } from 'vitest';
import { ChannelActivity, reasonFromAck, seriesEnd } from './channel-activity.js';
import { buildAck, readMessageHeader } from './hl7-ack.js';
import { noteMessage } from './intake-channels.js';

describe('channel activity', () => {
  it('counts per minute over the last hour, the current minute last, older minutes dropped', () => {
    let now = new Date('2026-11-26T10:00:30Z');
    const activity = new ChannelActivity(() => now);
    activity.count();
    activity.count();
    now = new Date('2026-11-26T10:01:05Z');
    activity.count();
    let series = activity.series();
    expect(series).toHaveLength(60);
    expect(series.slice(-2)).toEqual([2, 1]);
    expect(seriesEnd(now)).toBe('2026-11-26T10:01:00.000Z');
    // 59 minutes later the 10:00 minute is the first of the hour; a minute after that it has gone.
    now = new Date('2026-11-26T10:59:10Z');
    expect(activity.series()[0]).toBe(2);
    now = new Date('2026-11-26T11:00:10Z');
    series = activity.series();
    expect(series[0]).toBe(1);
    expect(series.reduce((a, b) => a + b, 0)).toBe(1);
    // Kept small however long it runs: one entry per minute of the last hour at most.
    for (let minute = 0; minute < 200; minute += 1) {
      now = new Date(Date.parse('2026-11-26T12:00:00Z') + minute * 60_000);
      activity.count();
    }
    expect(activity.series().every((value) => value === 1)).toBe(true);
    expect(activity.received).toBe(203);
  });

  it('keeps the last 20 problems, newest first, and the batches fed newest first', () => {
    const activity = new ChannelActivity(() => new Date('2026-11-26T10:00:00Z'));
    for (let i = 1; i <= 25; i += 1) {
      activity.problem({ controlId: `C${i}`, peer: 'p', outcome: 'AE', reason: 'r', batchId: null });
    }
    expect(activity.problems()).toHaveLength(20);
    expect(activity.problems()[0]!.controlId).toBe('C25');
    activity.fed(3, 'a.csv');
    activity.fed(4, 'b.csv');
    activity.fed(3, 'a.csv');
    expect(activity.batches()).toEqual([
      { batchId: 4, name: 'b.csv', count: 1 },
      { batchId: 3, name: 'a.csv', count: 2 },
    ]);
  });

  it("gives a reason from the ACK's error names and locations, never ERR-8's text", () => {
    const header = readMessageHeader('MSH|^~\\&|EPR|CLINIC|RX|PH|20261126||ADT^A01|C1|P|2.5\r');
    const ack = buildAck(header, {
      code: 'AE',
      errors: [
        { hl7Code: '200', location: 'MSH^1^9', text: 'Message type ADT^A01 is not accepted.' },
        { hl7Code: '102', text: 'patient.surname: "Zebedee" is too long' },
        { hl7Code: '102', text: 'patient.postcode: "LS1 4AP" is not valid' },
      ],
    });
    const reason = reasonFromAck(ack);
    expect(reason).toBe('Unsupported message type (MSH-9); Data type error');
    expect(reason).not.toMatch(/Zebedee|LS1/);
    expect(reasonFromAck(buildAck(header, { code: 'AA', errors: [] }))).toBe('No reason given in the acknowledgement.');
  });

  it('leaves out warnings: the reason is what the message got wrong', () => {
    const header = readMessageHeader('MSH|^~\\&|EPR|CLINIC|RX|PH|20261126||RDE^O11|C1|P|2.5\r');
    const ack = buildAck(header, {
      code: 'AE',
      errors: [
        { hl7Code: '207', severity: 'W', text: "The pharmacy's settings for EPR^CLINIC give no courier." },
        { hl7Code: '100', text: 'The message has no RXE item.' },
      ],
    });
    expect(reasonFromAck(ack)).toBe('Segment sequence error');
  });
});

describe('a message answered AA with problems, on the Intake screen', () => {
  const header = readMessageHeader('MSH|^~\\&|EPR|CLINIC|RX|PH|20261207||RDE^O11|C7|P|2.5\r');
  const now = () => new Date('2026-12-07T10:00:00Z');

  it('is kept as one to fix, with its errors and warnings named, never their text', () => {
    const activity = new ChannelActivity(now);
    const ack = buildAck(header, {
      code: 'AA',
      errors: [
        { hl7Code: '101', location: 'PID^1^5^1^5', text: 'Title is required: "Zebedee" has none' },
        { hl7Code: '207', severity: 'W', text: "The pharmacy's settings for EPR^CLINIC give no courier." },
      ],
    });
    const raw = Buffer.from('MSH|^~\\&|EPR|CLINIC|RX|PH|20261207||RDE^O11|C7|P|2.5\rPID|1\r');
    noteMessage(activity, raw, '127.0.0.1:5100', { code: 'AA', ack, resent: false, batchId: null, recordId: 1 });
    expect(activity.received).toBe(1);
    const [problem] = activity.problems();
    expect(problem).toMatchObject({ controlId: 'C7', peer: '127.0.0.1:5100', outcome: 'review', batchId: null });
    expect(problem!.reason).toBe(
      "Staged with problems to fix in the sender's batch of the day before it can be sent: Required field missing (PID-5); the sender's profile here gives no payment type, courier or currency (an HL7 order does not carry them)",
    );
    expect(problem!.reason).not.toMatch(/Zebedee/);
  });

  it('is not a problem when its ACK carries no ERR', () => {
    const activity = new ChannelActivity(now);
    const ack = buildAck(header, { code: 'AA', errors: [] });
    noteMessage(activity, Buffer.from('MSH|^~\\&|EPR|CLINIC|RX|PH|20261207||RDE^O11|C8|P|2.5\r'), '127.0.0.1:5100', {
      code: 'AA',
      ack,
      resent: false,
      batchId: null,
      recordId: 2,
    });
    expect(activity.received).toBe(1);
    expect(activity.problems()).toEqual([]);
  });
});
