import { afterEach, describe, expect, it, vi } from 'vitest';
import { RawMllpSocket, frame } from '../../../test/support/hl7-client.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { hl7File, uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';

/**
 * docs/security.md, finding 69: a message's sender (MSH-3^MSH-4) and control id (MSH-10) were kept as sent, and
 * its audit entries take 200 characters of each. One message from any local user to the app's intake on 127.0.0.1
 * with a longer one was answered AA and then failed to stage at every try (the sender told the order was taken;
 * nothing staged, audited or shown). A file with a longer MSH-3 made `import.file`, and then `batches.list` for
 * the environment, answers outside the contract (the batch views take 200): every batch hidden from the admin.
 * The real core through the contract, its real intake over loopback, real SQLite.
 */

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const APPLICATION = `EPR-${'A'.repeat(250)}`;
const FACILITY = `CLINIC-${'F'.repeat(250)}`;

describe('an HL7 sender or control id longer than the intake keeps', () => {
  it('over MLLP: both messages answered AA are staged, audited and listed with every other batch', async () => {
    const lines: string[] = [];
    const log = (message: string) => void lines.push(message);
    t = await openTestCore('long-sender-mllp', { logger: { info: log, warn: log, error: log } });
    const api = t.api;
    await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name: 'usual.hl7', content: hl7File([uniqueOrder({})]) },
    });
    const started = await api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, port: 0, onArrival: 'hold' });
    const port = Number(started.channels[0]!.address.split(':')[1]);
    const socket = await RawMllpSocket.open(port);
    const longSender = writeRde011(uniqueOrder({}, 'LONG'), {
      controlId: 'LONG-1',
      timestamp: '20261207101500',
      sendingApplication: APPLICATION,
      sendingFacility: FACILITY,
    });
    const longId = `ID-${'9'.repeat(300)}`;
    const longControlId = writeRde011(uniqueOrder({}, 'LONG'), {
      controlId: longId,
      timestamp: '20261207101500',
      sendingApplication: 'EPR-7',
      sendingFacility: 'CLINIC-H',
    });
    socket.write(Buffer.concat([frame(longSender), frame(longControlId)]));
    const acks = await socket.waitFor(2);
    socket.close();
    expect(acks.map((ack) => ack.get('MSA.1'))).toEqual(['AA', 'AA']);

    // Before: never staged ("audit details are not valid"), and batches.list outside the contract.
    const batches = await vi.waitFor(
      async () => {
        const listed = await api.call('batches.list', { environmentId: LOCAL_SANDBOX_ID });
        expect(listed).toHaveLength(3);
        return listed;
      },
      { timeout: 10_000, interval: 50 },
    );
    const fed = batches.find((batch) => batch.sourceFileName.startsWith('EPR-A'))!;
    expect(fed.counts.total).toBe(1);
    expect(fed.summary?.hl7Sender).toEqual({
      application: APPLICATION.slice(0, 200),
      facility: FACILITY.slice(0, 200),
      messageType: 'RDE^O11',
    });
    const staged = await api.call('log.list', { action: 'intake.staged' });
    expect(staged.entries.map((entry) => entry.details.controlId)).toEqual(
      expect.arrayContaining(['LONG-1', longId.slice(0, 200)]),
    );
    expect(lines.filter((line) => line.includes('could not be staged'))).toEqual([]);
  });

  it('in a file: imported and listed', async () => {
    t = await openTestCore('long-sender-file');
    const content = hl7File([uniqueOrder({})], 'NW', { application: APPLICATION, facility: FACILITY });
    // Before: "import.file produced an answer outside the contract", the batch staged all the same.
    const imported = await t.api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name: 'long.hl7', content },
    });
    expect(imported.status).toBe('staged');
    const batches = await t.api.call('batches.list', { environmentId: LOCAL_SANDBOX_ID });
    expect(batches[0]?.summary?.hl7Sender?.application).toBe(APPLICATION.slice(0, 200));
  });
});
