import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { sendWithLibrary } from '../../test/support/hl7-client.js';
import { writeRde011 } from '../core/importing/rde-writer.js';
import { uniqueOrder } from '../core/staging/testing/staging-fixtures.js';
import { runCliCaptured } from './testing/run-cli-captured.js';
import { envAddArgs } from './testing/run-cli-process.js';
import { freePort } from '../../test/support/free-port.js';

// Issue #17: `rx-batch intake rules` keeps an environment's staging rules without the UI (shown, changed, audited,
// bad senders refused with the reason), and `rx-batch serve` runs under them: a sender set to "send" has its valid
// order accepted into the outbox while the default holds another sender's; a rule flag wins for that run only.

const SEND_FROM = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' };
const OTHER = { sendingApplication: 'LAB-2', sendingFacility: 'CLINIC-H' };

let sandbox: RunningSandbox;
let dir: string;
let dataDir: string;
const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-intake-rules-'));
  dataDir = join(dir, 'data');
  expect((await cli(...envAddArgs('sbx', sandbox))).code).toBe(0);
  // What an HL7 message cannot carry, for both senders: their orders are valid, only the rule tells them apart.
  for (const sender of [SEND_FROM, OTHER]) {
    const sets = ['paymentType=Account', 'courierCode=RMT24', 'currencyCode=GBP'].flatMap((set) => ['--set', set]);
    const saved = await cli(
      'profile',
      'add-hl7',
      sender.sendingApplication,
      '--sender',
      `${sender.sendingApplication}^${sender.sendingFacility}`,
      ...sets,
    );
    expect(saved.code).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function listening(port: number): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

/** Runs `serve` in this process, sends one valid order from each sender, stops it; the clinic order ids sent. */
async function serveOnce(...flags: string[]) {
  const port = await freePort();
  const stop = new AbortController();
  const run = runCliCaptured(
    ['serve', '--env', 'sbx', '--mllp', `127.0.0.1:${port}`, ...flags, '--data-dir', dataDir],
    stop.signal,
  );
  await listening(port);
  const sent = uniqueOrder({}, 'CLI-SEND');
  const held = uniqueOrder({}, 'CLI-HOLD');
  const acks = await sendWithLibrary(port, [
    writeRde011(sent, { controlId: `S-${port}`, timestamp: '20261126101500', ...SEND_FROM }),
    writeRde011(held, { controlId: `H-${port}`, timestamp: '20261126101500', ...OTHER }),
  ]);
  expect(acks.map((ack) => ack.get('MSA.1'))).toEqual(['AA', 'AA']);
  stop.abort();
  return { result: await run, sent: sent.prescription.clinicOrderId, held: held.prescription.clinicOrderId };
}

async function orderIds(): Promise<string[]> {
  const status = await cli('status', '--json', '--env', 'sbx');
  return (JSON.parse(status.stdout) as Array<{ clinicOrderId: string }>).map((order) => order.clinicOrderId);
}

describe('rx-batch intake rules and serve', () => {
  it('shows the default, refuses bad senders with the reason, saves and audits changes', async () => {
    const shown = await cli('intake', 'rules', '--env', 'sbx');
    expect(shown).toMatchObject({ code: 0 });
    expect(shown.stdout).toBe(
      'sbx: hold\n  every sender: hold for review in Preview\n(none saved yet: everything is held for review)\n',
    );

    for (const [flags, message] of [
      [['--send-from', 'EPR|7'], '--send-from: "EPR|7": | is an HL7 separator and cannot be in a sender.'],
      [['--hold-from', 'A^B^C'], '--hold-from: "A^B^C" has more than one ^: a sender is APP or APP^FACILITY.'],
      [['--send-from', 'LAB', '--hold-from', 'LAB'], 'LAB is given to both --send-from and --hold-from'],
      [['--on-arrival', 'soon'], '--on-arrival is send (valid orders go to the outbox at once) or hold'],
      [['--forget', 'NOBODY'], '--forget NOBODY: that sender has no rule of its own for sbx'],
    ] as const) {
      const refused = await cli('intake', 'rules', '--env', 'sbx', ...flags);
      expect(refused.code, flags.join(' ')).toBe(2);
      expect(refused.stderr).toContain(message);
    }
    expect((await cli('intake', 'rules', '--env', 'nowhere')).stderr).toContain('there is no environment "nowhere"');

    const saved = await cli('intake', 'rules', '--env', 'sbx', '--send-from', 'EPR-7^CLINIC-H', '--hold-from', 'OLD');
    expect(saved.stdout).toBe(
      [
        'sbx: hold; send: EPR-7^CLINIC-H; hold: OLD',
        '  EPR-7^CLINIC-H: send valid orders as they arrive',
        '  OLD: hold for review in Preview',
        '  every other sender: hold for review in Preview',
        'Saved; serve and the Intake screen use them from their next start.',
        '',
      ].join('\n'),
    );
    // Changed one sender at a time: the others keep theirs.
    const forgot = await cli('intake', 'rules', '--env', 'sbx', '--forget', 'OLD', '--json');
    expect(JSON.parse(forgot.stdout)).toMatchObject({
      environmentId: 'sbx',
      changed: true,
      rules: { onArrival: 'hold', senders: [{ sender: 'EPR-7^CLINIC-H', onArrival: 'send' }] },
    });
    const again = await cli('intake', 'rules', '--env', 'sbx', '--send-from', 'EPR-7^CLINIC-H');
    expect(again.stdout.trim().split('\n').at(-1)).toBe('Unchanged.');

    const log = await cli('log', 'export', '--format', 'jsonl');
    const changes = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; environmentId: string; details: Record<string, unknown> })
      .filter((entry) => entry.action === 'intake.rules.changed');
    expect(changes.map((entry) => [entry.environmentId, entry.details])).toEqual([
      ['sbx', { intakeRules: 'hold; send: EPR-7^CLINIC-H; hold: OLD', previousIntakeRules: 'hold' }],
      [
        'sbx',
        { intakeRules: 'hold; send: EPR-7^CLINIC-H', previousIntakeRules: 'hold; send: EPR-7^CLINIC-H; hold: OLD' },
      ],
    ]);
  }, 60_000);

  it('serve runs under the saved rules; a rule flag wins for that run only', async () => {
    const first = await serveOnce();
    expect(first.result.code).toBe(0);
    expect(first.result.stderr).toContain('rules: hold; send: EPR-7^CLINIC-H (saved for sbx)\n');
    // Where held orders wait, said once at start: nothing else tells a CLI-only admin.
    expect(first.result.stderr).toContain(
      'held orders wait for review in a batch per sender a day: rx-batch batch list --env sbx, then batch show and ' +
        "accept; or the app's Import screen\n",
    );
    const after = await orderIds();
    expect(after).toContain(first.sent);
    expect(after).not.toContain(first.held);

    // --hold-from for this run: that sender is held too, and the saved rules stay as they were.
    const second = await serveOnce('--hold-from', 'EPR-7^CLINIC-H');
    expect(second.result.stderr).toContain(
      'rules: hold; hold: EPR-7^CLINIC-H (saved for sbx; --hold-from for this run)',
    );
    const later = await orderIds();
    expect(later).not.toContain(second.sent);
    expect(later).not.toContain(second.held);
    expect((await cli('intake', 'rules', '--env', 'sbx', '--json')).stdout).toContain(
      '"senders":[{"sender":"EPR-7^CLINIC-H","onArrival":"send"}]',
    );

    // Nothing held under this run's rules: no word about held orders.
    const third = await serveOnce('--on-arrival', 'send');
    expect(third.result.stderr).toContain('rules: send; send: EPR-7^CLINIC-H');
    expect(third.result.stderr).not.toContain('held orders wait');
  }, 120_000);
});
