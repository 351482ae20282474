import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueOrders, type Store } from '../store/store.js';
import { manualClock, removeDir, sampleOrder, storeWithBatch } from '../store/testing/store-fixtures.js';
import { csvCell } from './csv-cell.js';
import { exportAuditLog } from './export-log.js';
import { maskFileName, maskIdentifier } from './mask-identifier.js';

/** Collects what was written; optionally slow, with a tiny buffer, to make the exporter wait for 'drain'. */
function sink(options: { slow?: boolean; onChunk?: () => void } = {}) {
  const chunks: string[] = [];
  const stream = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      options.onChunk?.();
      if (options.slow) setImmediate(callback);
      else callback();
    },
  });
  return { stream, chunks, text: () => chunks.join('') };
}

/** RFC 4180 reader, to check what a spreadsheet would see. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        cell += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      index += 1;
    } else cell += char;
  }
  return rows;
}

describe('audit export', () => {
  let store: Store;
  let dataDir: string;
  let batchId: number;

  function setUp() {
    const clock = manualClock();
    ({ store, dataDir, batchId } = storeWithBatch(clock.now));
  }

  afterEach(() => {
    store.close();
    removeDir(dataDir);
  });

  /** One order with an attempt whose service message is hostile to spreadsheets and quotes the clinic order id. */
  function orderWithHostileMessage(message: string, clinicOrderId = 'RX-2025-000417') {
    const [id] = enqueueOrders(store, batchId, [sampleOrder({ clinicOrderId })]);
    store.attempts.record({
      orderId: id!,
      operation: 'create',
      startedAt: new Date('2025-03-03T09:00:01.000Z'),
      latencyMs: 42,
      httpStatus: 400,
      outcome: 'rejected',
      errorMessage: message,
    });
    return id!;
  }

  it('writes CSV with a header, masked clinic order ids, and formulas neutralised', async () => {
    setUp();
    orderWithHostileMessage('=HYPERLINK("http://evil.test","clinicOrderId RX-2025-000417 exists")');
    const out = sink();

    const { count } = await exportAuditLog(store, out.stream, { format: 'csv' });

    expect(count).toBe(1);
    expect(out.text().endsWith('\r\n')).toBe(true);
    const [header, row] = parseCsv(out.text());
    const cell = (name: string) => row![header!.indexOf(name)];
    expect(header!.slice(0, 9)).toEqual([
      'seq',
      'at',
      'actor',
      'action',
      'environment_id',
      'batch_id',
      'order_id',
      'clinic_code',
      'clinic_order_id',
    ]);
    expect(cell('clinic_order_id')).toBe('***********417');
    expect(cell('clinic_code')).toBe('CLINIC-A');
    expect(cell('httpStatus')).toBe('400');
    expect(cell('errorMessage')).toBe(`'=HYPERLINK("http://evil.test","clinicOrderId ***********417 exists")`);
    expect(out.text()).not.toContain('RX-2025-000417');
  });

  it('shows clinic order ids in full when asked to unmask', async () => {
    setUp();
    orderWithHostileMessage('duplicate clinicOrderId RX-2025-000417');
    const out = sink();
    await exportAuditLog(store, out.stream, { format: 'csv', unmask: true });
    const [header, row] = parseCsv(out.text());
    expect(row![header!.indexOf('clinic_order_id')]).toBe('RX-2025-000417');
    expect(row![header!.indexOf('errorMessage')]).toBe('duplicate clinicOrderId RX-2025-000417');
  });

  it('writes JSON Lines, one entry per line, masked by default and verifiable when unmasked', async () => {
    setUp();
    orderWithHostileMessage('+cmd|calc');
    store.audit.append({ actor: 'user', action: 'signin' });

    const masked = sink();
    expect(await exportAuditLog(store, masked.stream, { format: 'jsonl' })).toEqual({ count: 2 });
    const lines = masked
      .text()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.seq)).toEqual([1, 2]);
    expect(lines[0]).toMatchObject({ clinicOrderId: '***********417', details: { errorMessage: '+cmd|calc' } });
    expect(lines[1]).toMatchObject({ action: 'signin', clinicOrderId: null });

    const full = sink();
    await exportAuditLog(store, full.stream, { format: 'jsonl', unmask: true });
    const first = JSON.parse(full.text().split('\n')[0]!) as { clinicOrderId: string; hash: string };
    expect(first.clinicOrderId).toBe('RX-2025-000417');
    expect(first.hash).toBe(store.audit.page(0, 1)[0]!.hash);
  });

  it('streams page by page with backpressure, and exports a snapshot of the log as it was when it began', async () => {
    setUp();
    for (let index = 0; index < 40; index += 1) store.audit.append({ actor: 'user', action: 'signin' });
    let appendedDuring = 0;
    const out = sink({
      slow: true,
      onChunk: () => {
        // The submitter keeps writing while the export runs: the connection must be free between pages.
        if (appendedDuring < 5) {
          store.audit.append({ actor: 'submitter', action: 'order.attempt' });
          appendedDuring += 1;
        }
      },
    });

    const { count } = await exportAuditLog(store, out.stream, { format: 'jsonl', pageSize: 7 });

    expect(count).toBe(40);
    expect(appendedDuring).toBe(5);
    expect(out.chunks.length).toBeGreaterThan(1);
    expect(out.text().trimEnd().split('\n')).toHaveLength(40);
    expect(out.text()).not.toContain('order.attempt');
    expect(store.audit.lastSeq()).toBe(45);
  });

  it('masks file names (keeping the extension) unless asked to unmask', async () => {
    setUp();
    const fileName = 'Wollstonecraft Mariana referral.csv';
    store.audit.append({
      actor: 'user',
      action: 'batch.imported',
      batchId,
      details: { fileName, fileKind: 'csv', orderCount: 1 },
    });
    store.audit.append({ actor: 'user', action: 'batch.imported', batchId, details: { fileName: 'x.hl7' } });

    const csv = sink();
    await exportAuditLog(store, csv.stream, { format: 'csv' });
    const [header, ...rows] = parseCsv(csv.text());
    expect(rows.map((row) => row[header!.indexOf('fileName')])).toEqual([
      `${'*'.repeat('Wollstonecraft Mariana referral'.length)}.csv`,
      '*.hl7',
    ]);
    const jsonl = sink();
    await exportAuditLog(store, jsonl.stream, { format: 'jsonl' });
    for (const text of [csv.text(), jsonl.text()]) {
      expect(text).not.toContain('Wollstonecraft');
      expect(text).not.toContain('referral');
    }
    expect(jsonl.text()).toContain(`"fileName":"${'*'.repeat(31)}.csv"`);

    const full = sink();
    await exportAuditLog(store, full.stream, { format: 'jsonl', unmask: true });
    expect(full.text()).toContain(fileName);
  });

  it('keeps memory flat on a large log: one page per chunk, never more than two pages read ahead of the destination', async () => {
    setUp();
    const entries = 6_000;
    const pageSize = 100;
    store.inTransaction(() => {
      for (let index = 0; index < entries; index += 1) {
        store.audit.append({ actor: 'submitter', action: 'order.attempt', details: { attempt: index } });
      }
    });
    let pagesRead = 0;
    const page = store.audit.page.bind(store.audit);
    store.audit.page = (...args) => {
      pagesRead += 1;
      return page(...args);
    };
    // A slow destination with a small buffer: the export may only read what it can hand over.
    let taken = 0;
    let largestLead = 0;
    let largestChunk = 0;
    const destination = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        taken += 1;
        largestLead = Math.max(largestLead, pagesRead - taken);
        largestChunk = Math.max(largestChunk, chunk.length);
        setImmediate(callback);
      },
    });
    const progress: number[] = [];
    const { count } = await exportAuditLog(store, destination, {
      format: 'csv',
      pageSize,
      onProgress: (written) => progress.push(written),
    });

    expect(count).toBe(entries);
    // The header, then one chunk per page: nothing is gathered into one text.
    expect(taken).toBe(1 + entries / pageSize);
    expect(largestLead).toBeLessThanOrEqual(2);
    expect(largestChunk).toBeLessThan(pageSize * 1024);
    expect(progress.at(-1)).toBe(entries);
    expect(progress).toHaveLength(entries / pageSize);
  });

  it('exports only the entries the filters select, oldest first, and stops between pages when cancelled', async () => {
    setUp();
    for (let index = 0; index < 30; index += 1) {
      store.audit.append({ actor: 'user', action: index % 3 === 0 ? 'outbox.paused' : 'signin.failed' });
    }
    const out = sink();
    const { count } = await exportAuditLog(store, out.stream, {
      format: 'jsonl',
      pageSize: 4,
      filter: { action: 'outbox.' },
    });
    const seqs = out
      .text()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; action: string });
    expect(count).toBe(10);
    expect(seqs.every((entry) => entry.action === 'outbox.paused')).toBe(true);
    expect(seqs.map((entry) => entry.seq)).toEqual([...seqs.map((entry) => entry.seq)].sort((x, y) => x - y));

    const controller = new AbortController();
    const stopped = sink({ slow: true });
    const running = exportAuditLog(store, stopped.stream, {
      format: 'csv',
      pageSize: 2,
      signal: controller.signal,
      onProgress: (written) => {
        if (written >= 4) controller.abort(new Error('cancelled by the admin'));
      },
    });
    await expect(running).rejects.toThrow();
    expect(stopped.text().split('\r\n').length).toBeLessThan(10);
  });

  it('exports and finds a refused connection by its reason, a column after the ones before it', async () => {
    setUp();
    const refused = (reason: 'allow-list' | 'http' | 'tls', connectionCount?: number) =>
      store.audit.append({
        actor: 'system',
        action: 'intake.peer.refused',
        details: { peer: '10.0.0.9', outcome: 'peer', reason, ...(connectionCount ? { connectionCount } : {}) },
      });
    refused('allow-list');
    refused('http', 24);
    refused('tls');

    const out = sink();
    await exportAuditLog(store, out.stream, { format: 'csv' });
    const [header, ...rows] = parseCsv(out.text());
    // New keys go last, so a spreadsheet reading earlier exports' columns by position still finds them.
    expect(header!.slice(-4)).toEqual(['connectionCount', 'reason', 'prev_hash', 'hash']);
    const at = (name: string) => header!.indexOf(name);
    expect(rows.map((row) => [row[at('outcome')], row[at('reason')], row[at('connectionCount')]])).toEqual([
      ['peer', 'allow-list', ''],
      ['peer', 'http', '24'],
      ['peer', 'tls', ''],
    ]);

    // The log screen's search (and an export of what it found) reads the reason as it reads any detail.
    expect(store.audit.search({ search: 'allow-list' }).map((entry) => entry.details.reason)).toEqual(['allow-list']);
    const found = sink();
    const { count } = await exportAuditLog(store, found.stream, { format: 'jsonl', filter: { search: 'http' } });
    expect(count).toBe(1);
    expect((JSON.parse(found.text()) as { details: object }).details).toEqual({
      peer: '10.0.0.9',
      outcome: 'peer',
      reason: 'http',
      connectionCount: 24,
    });
  });

  it('rejects when the destination fails', async () => {
    setUp();
    store.audit.append({ actor: 'user', action: 'signin' });
    const broken = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('disk full'));
      },
    });
    await expect(exportAuditLog(store, broken, { format: 'csv' })).rejects.toThrow('disk full');
  });
});

describe('csvCell', () => {
  it.each([
    ['=1+2', `"'=1+2"`],
    ['+44 113 496 0000', `"'+44 113 496 0000"`],
    ['-2', `"'-2"`],
    ['@SUM(A1)', `"'@SUM(A1)"`],
    ['\tcmd', `"'\tcmd"`],
    ['\rcmd', `"'\rcmd"`],
    ['\ncmd', `"'\ncmd"`],
    ['\uff1d1+2', `"'\uff1d1+2"`],
    ["'=1+2", `"''=1+2"`],
    ["'plain", "'plain"],
    ['plain text', 'plain text'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=A1,"x"', `"'=A1,""x"""`],
  ])('%j becomes %j', (input, expected) => {
    expect(csvCell(input)).toBe(expected);
  });

  it('writes numbers and booleans by the same rule, and nothing for null', () => {
    expect(csvCell(3)).toBe('3');
    expect(csvCell(-3)).toBe(`"'-3"`);
    expect(csvCell(true)).toBe('true');
    expect(csvCell(null)).toBe('');
  });
});

describe('maskFileName', () => {
  it.each([
    ['Smith John.csv', '**********.csv'],
    ['orders.HL7', '******.HL7'],
    ['no extension', '************'],
    ['.csv', '****'],
    ['a.b.json', '***.json'],
  ])('%j becomes %j', (input, expected) => {
    expect(maskFileName(input)).toBe(expected);
  });
});

describe('maskIdentifier', () => {
  it('keeps the last three characters of a long id and hides a short one whole', () => {
    expect(maskIdentifier('RX-2025-000417')).toBe('***********417');
    expect(maskIdentifier('AB123')).toBe('*****');
    expect(maskIdentifier('ABC123')).toBe('***123');
  });
});
