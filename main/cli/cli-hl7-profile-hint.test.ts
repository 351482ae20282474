import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_SANDBOX_ID } from '../core/environments/presets.js';
import { hl7File, uniqueOrder } from '../core/staging/testing/staging-fixtures.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * An HL7 file imported from the CLI without a profile for its sender: every order lacked payment type, courier and
 * currency, and the CLI sent the admin to the app ("Import, HL7 mapping", "Forward the HL7 message") or to
 * `batch errors` (a CSV to fill in by hand, order by order). It now prints the `profile add-hl7` command for the
 * file's sender, the environment's codes to choose from, and `--route hl7`; the command it prints works.
 */

const dir = mkdtempSync(join(tmpdir(), 'rx-cli-hl7-hint-'));
const dataDir = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);

describe('rx-batch import of an HL7 file without a profile for its sender', () => {
  it('prints the profile command for the sender, which makes the orders valid', async () => {
    const file = join(dir, 'clinic.hl7');
    writeFileSync(
      file,
      hl7File([uniqueOrder({}, 'HL7H'), uniqueOrder({}, 'HL7H')], 'NW', { application: 'EPR', facility: 'SITE-9' }),
    );
    const first = await cli('import', file, '--env', LOCAL_SANDBOX_ID, '--problem-text');
    expect(first.code).toBe(1);
    const lines = first.stdout.split('\n');
    const command = lines.find((line) => line.trimStart().startsWith('rx-batch profile add-hl7'))?.trim();
    expect(command).toBe(
      'rx-batch profile add-hl7 NAME --sender EPR^SITE-9 --message-type RDE^O11 ' +
        '--set prescription.paymentType=PAYMENT_TYPE --set prescription.courierCode=COURIER ' +
        '--set prescription.currencyCode=CURRENCY',
    );
    expect(first.stdout).toContain('COURIER one of RMT24, RMT48, DPD');
    expect(first.stdout).toContain('--route hl7');
    // Nothing to fill in by hand, and no directions to the app's screens.
    expect(first.stdout).not.toContain('batch errors');
    expect(first.stderr).toContain('prescription.courierCode: Courier code is required.');
    expect(first.stderr).not.toContain('HL7 mapping');

    // The printed command, with the placeholders chosen, as the admin would run it.
    const args = command!
      .replace('NAME', 'epr-site-9')
      .replace('PAYMENT_TYPE', 'Account')
      .replace('COURIER', 'RMT24')
      .replace('CURRENCY', 'GBP')
      .split(' ')
      .slice(1);
    expect((await cli(...args)).code).toBe(0);
    const again = await cli('import', file, '--env', LOCAL_SANDBOX_ID, '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ orders: 2, valid: 2, invalid: 0 });
  });
});
