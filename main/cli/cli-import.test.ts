import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWireJson } from '../../shared/wire-json.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { TEMPLATE_COLUMNS } from '../core/model/field-catalogue.js';
import { TEMPLATE_PROFILE } from '../core/model/mapping-profile.js';
import {
  HL7_PROFILE,
  eighteenDigitDmd,
  hl7File,
  templateCsv,
  uniqueOrder,
  withField,
} from '../core/staging/testing/staging-fixtures.js';
import { openStore } from '../core/store/store.js';
import { envAddArgs, finished, runCli, startCli } from './testing/run-cli-process.js';

interface ShownOrder {
  id: number;
  position: number;
  state: string;
  valid: boolean;
  clinicOrderId: string;
  body: { prescribedItems: Array<{ dmdCode: unknown }>; customer: Record<string, unknown> };
  request: string | null;
  problems: Array<{ row?: number; field?: string; code: string }>;
  provenance: Record<string, { kind: string; row?: number; column?: string }>;
}

// The import commands as a scheduler or an admin's script runs them: real child processes on one data directory,
// sending to a real sandbox.
describe('rx-batch import, batch show / export / errors, accept', () => {
  let sandbox: RunningSandbox;
  let dir: string;
  let dataDir: string;
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

  beforeAll(async () => {
    sandbox = await startSandbox({ statusStepMs: 60_000 });
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-import-'));
    dataDir = join(dir, 'data');
    const added = await cli(...envAddArgs('sbx', sandbox));
    expect(added.code).toBe(0);
    expect(await cli('login', 'sbx')).toMatchObject({ code: 0 });
  }, 60_000);

  afterAll(async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports a CSV, shows it, exports errors to fix and the template, accepts, and submits each order once', async () => {
    const orders = [
      uniqueOrder({ dmdCode: eighteenDigitDmd(21) }, 'CLI'),
      withField(uniqueOrder({}, 'CLI'), 'homeAddress.postCode', 'XX'),
      uniqueOrder({}, 'CLI'),
    ];
    const csv = join(dir, 'orders.csv');
    writeFileSync(csv, templateCsv(orders));

    const imported = await cli('import', csv, '--env', 'sbx', '--json');
    expect(imported.code).toBe(1); // one order needs fixing
    const summary = JSON.parse(imported.stdout) as { batchId: number };
    expect(summary).toEqual({ batchId: expect.any(Number) as unknown, orders: 3, valid: 2, invalid: 1, notOrders: 0 });
    // stderr is no terminal here (a scheduler's log, a redirect): each problem by its code, never its text, which
    // quotes the patient's values; the texts with --problem-text (or on a terminal).
    expect(imported.stderr).toContain(`${csv}: row 3: homeAddress.postCode: error postcode.format\n`);
    expect(imported.stderr).not.toContain("'XX'");
    expect(imported.stderr).toContain(
      `rx-batch batch show ${summary.batchId} gives them, or import with --problem-text`,
    );
    const withText = await cli('import', csv, '--env', 'sbx', '--json', '--problem-text');
    expect(withText.stderr).toContain(`${csv}: row 3: homeAddress.postCode: Home postcode 'XX' is not a UK postcode`);
    const batch = String(summary.batchId);

    const shown = await cli('batch', 'show', batch, '--json');
    expect(shown.code).toBe(1);
    // dm+d codes go out as exact number tokens, and the output says so digit for digit.
    expect(shown.stdout).toContain(`"dmdCode":${eighteenDigitDmd(21)}`);
    const document = parseWireJson(shown.stdout) as { batch: { id: number; route: string }; orders: ShownOrder[] };
    expect(document.batch).toMatchObject({ id: summary.batchId, route: 'v1' });
    expect(document.orders.map((o) => [o.position, o.valid, o.state])).toEqual([
      [1, true, 'staged'],
      [2, false, 'staged'],
      [3, true, 'staged'],
    ]);
    const [first, second] = document.orders;
    expect(first!.body.prescribedItems[0]!.dmdCode).toBe(eighteenDigitDmd(21));
    expect(first!.request).toContain(`"clinicOrderId":"${orders[0]!.prescription.clinicOrderId}"`);
    expect(first!.provenance['customer.surname']).toEqual({
      kind: 'csv',
      file: 'orders.csv',
      row: 2,
      column: 'surname',
    });
    expect(second!.problems).toEqual([
      expect.objectContaining({ row: 3, field: 'homeAddress.postCode', code: 'postcode.format' }),
    ]);
    expect(second!.request).toBeNull();

    const template = join(dir, 'template.csv');
    expect(await cli('batch', 'export', batch, '--template', template)).toMatchObject({ code: 0 });
    const templateText = readFileSync(template, 'utf8');
    expect(templateText.startsWith(`\ufeff${TEMPLATE_COLUMNS.join(',')}\r\n`)).toBe(true);
    expect(templateText).toContain(eighteenDigitDmd(21));
    expect(statSync(template).mode & 0o777).toBe(0o600);

    const errors = join(dir, 'errors.csv');
    const exported = await cli('batch', 'errors', batch, errors);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('Wrote 1 order that needs fixing');
    const errorText = readFileSync(errors, 'utf8');
    expect(errorText.split('\r\n')[0]).toBe(`\ufeff${TEMPLATE_COLUMNS.join(',')},errors`);
    // Fixed in "a spreadsheet": the postcode cell corrected, the errors column left as it is.
    writeFileSync(errors, errorText.replace(',XX,', ',LS1 4AP,'));
    const fixed = await cli('import', errors, '--env', 'sbx', '--json');
    expect(fixed.code).toBe(0);
    const fixedSummary = JSON.parse(fixed.stdout) as { batchId: number };
    expect(fixedSummary).toMatchObject({ orders: 1, valid: 1, invalid: 0 });

    const accepted = await cli('accept', batch);
    expect(accepted.code).toBe(1); // the original invalid order stays staged
    expect(accepted.stdout).toContain('Accepted 2 orders');
    expect(await cli('accept', String(fixedSummary.batchId))).toMatchObject({ code: 0 });
    const again = await cli('accept', String(fixedSummary.batchId));
    expect(again.stdout).toContain('Accepted 0 orders');

    const submitted = await cli('submit', '--env', 'sbx', '--until-idle');
    expect({ code: submitted.code, out: submitted.stdout }).toEqual({
      code: 0,
      out: expect.stringContaining('Done.') as unknown,
    });
    for (const order of orders) {
      const atService = sandbox.listOrders().filter((o) => o.clinicOrderId === order.prescription.clinicOrderId);
      expect(atService).toHaveLength(1);
    }
    const sent = sandbox.listOrders().find((o) => o.clinicOrderId === orders[0]!.prescription.clinicOrderId)!;
    expect(sent.rawBody).toBe(first!.request);

    // Importing the same orders again flags them as already sent.
    const repeat = await cli('import', csv, '--env', 'sbx', '--problem-text');
    expect(repeat.code).toBe(1);
    expect(repeat.stderr).toContain('was already queued or sent from an earlier batch');
  }, 120_000);

  it('imports HL7 with a saved profile’s constants, or forwards the original messages without them', async () => {
    // Saved as the app would (profiles.save), between CLI runs: the data directory's lock is free.
    const store = openStore({ dataDir });
    store.mappingProfiles.save(HL7_PROFILE);
    store.close();
    const orders = [uniqueOrder({}, 'CLIH'), uniqueOrder({}, 'CLIH')];
    const file = join(dir, 'orders.hl7');
    writeFileSync(file, hl7File(orders));

    const plain = await cli('import', file, '--env', 'sbx', '--json');
    expect(plain.code).toBe(1);
    expect(JSON.parse(plain.stdout)).toMatchObject({ orders: 2, valid: 0, invalid: 2 });
    expect(plain.stderr).toContain('prescription.paymentType');

    const mapped = await cli('import', file, '--env', 'sbx', '--profile', HL7_PROFILE.name, '--json');
    expect(mapped.code).toBe(0);
    const mappedBatch = (JSON.parse(mapped.stdout) as { batchId: number; valid: number }).batchId;
    const shown = parseWireJson((await cli('batch', 'show', String(mappedBatch), '--json')).stdout) as {
      orders: ShownOrder[];
    };
    expect(shown.orders[0]!.provenance['prescription.currencyCode']).toEqual({
      kind: 'constant',
      profile: HL7_PROFILE.name,
      column: 'currencyCode',
    });
    expect(shown.orders[0]!.request).toContain('"paymentType":"Account"');

    // The forward route needs no constants: the service gets the message itself.
    const forwarded = await cli('import', file, '--env', 'sbx', '--route', 'hl7', '--json');
    expect(forwarded.code).toBe(0);
    const batch = (JSON.parse(forwarded.stdout) as { batchId: number }).batchId;
    expect(await cli('accept', String(batch))).toMatchObject({ code: 0 });
    expect(await cli('submit', '--env', 'sbx', '--until-idle')).toMatchObject({ code: 0 });
    for (const order of orders) {
      const [sent, ...more] = sandbox.listOrders().filter((o) => o.clinicOrderId === order.prescription.clinicOrderId);
      expect(more).toEqual([]);
      expect(sent!.rawBody.startsWith('MSH|')).toBe(true);
    }
  }, 120_000);

  it('says which messages are no order at all, and offers the errors file only for orders a fix can mend', async () => {
    // A patient administration message among the orders, as a clinic system's export often holds: the errors CSV
    // cannot make it an order, so the summary says so instead of sending the admin to fix it.
    const adt = 'MSH|^~\\&|EPR|CLINIC|RX|PH|20261204101500||ADT^A01|ADT-1|P|2.5\rPID|1||123||Example^Alex\r';
    const mixed = join(dir, 'mixed.hl7');
    writeFileSync(mixed, `${hl7File([uniqueOrder({}, 'CLIA')])}${adt}`);
    const both = await cli('import', mixed, '--env', 'sbx', '--no-profile');
    expect(both.code).toBe(1);
    expect(both.stdout).toContain('2 orders, 0 valid, 2 invalid (1 of them no order at all).');
    expect(both.stdout).toContain('1 message cannot become an order, and no fix in Rx Batch changes that');
    // The order lacks only what a profile gives: the profile command, not the errors file, fixes it.
    expect(both.stdout).toContain('rx-batch profile add-hl7 NAME --sender');
    expect(both.stdout).not.toMatch(/Fix: rx-batch batch errors/);
    const batch = /Staged batch (\d+)/.exec(both.stdout)![1]!;
    const shown = await cli('batch', 'show', batch);
    expect(shown.stdout).toContain('2 orders: 0 valid, 2 invalid (1 of them no order at all), 0 accepted.');
    expect(shown.stdout).toContain('1 message cannot become an order');
    // The errors file is for fixing and importing again: the ADT message has no row in it, and is said to be left out.
    const errors = join(dir, 'mixed-errors.csv');
    const exported = await cli('batch', 'errors', batch, errors);
    expect(exported.stdout).toContain('Wrote 1 order that needs fixing');
    expect(exported.stdout).toContain(`Left out 1 message that no fix makes an order (rx-batch batch show ${batch}).`);
    const rows = readFileSync(errors, 'utf8').trim().split('\r\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).not.toContain('ADT^A01');

    const only = join(dir, 'adt.hl7');
    writeFileSync(only, adt);
    const none = await cli('import', only, '--env', 'sbx', '--problem-text');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("Message 1 is 'ADT^A01' (MSH-9)");
    expect(none.stdout).toContain('1 order, 0 valid, 1 invalid (1 of them no order at all).');
    expect(none.stdout).not.toContain('Fix:');
  }, 60_000);

  it('says on stderr what it made of the file as a whole, as the preview does above the grid', async () => {
    // Converted to UTF-8 with its MSH-18 left naming ISO-2022-JP (7-bit text): read as UTF-8, and said so.
    const order = uniqueOrder({ surname: 'Brontë' }, 'CLIA');
    const file = join(dir, 'converted.hl7');
    writeFileSync(file, hl7File([order]).replace('|P|2.5', '|P|2.5||||||~ISO IR87'), 'utf8');
    const imported = await cli('import', file, '--env', 'sbx', '--no-profile');
    expect(imported.stderr).toContain(`${file}: MSH-18 says 'ISO IR87', but the file is not in ISO-2022-JP`);
    expect(imported.stdout).toContain('Read HL7, utf-8');
    const batch = /Staged batch (\d+)/.exec(imported.stdout)![1]!;
    const shown = parseWireJson((await cli('batch', 'show', batch, '--json')).stdout) as { orders: ShownOrder[] };
    expect(shown.orders[0]!.body.customer.surname).toBe('Brontë');
  }, 60_000);

  it('reads an HL7 file with the profile saved for its sender when no --profile is given, and says so', async () => {
    const sender = { application: `CLI-EPR-${process.pid}`, facility: 'CLINIC-CLI' };
    const file = join(dir, 'from-epr.hl7');
    const write = () => writeFileSync(file, hl7File([uniqueOrder({}, 'CLIS'), uniqueOrder({}, 'CLIS')], 'NW', sender));
    write();
    const first = await cli('import', file, '--env', 'sbx', '--json');
    expect(first.code).toBe(1);
    const firstBatch = (JSON.parse(first.stdout) as { batchId: number }).batchId;
    // The sender the import reported is what a profile saved from it keeps (the app's profiles.save does this).
    const shown = parseWireJson((await cli('batch', 'show', String(firstBatch), '--json')).stdout) as {
      batch: { summary: { hl7Sender: unknown } };
    };
    expect(shown.batch.summary.hl7Sender).toEqual({ ...sender, messageType: 'RDE^O11' });
    const store = openStore({ dataDir });
    store.mappingProfiles.save({
      ...HL7_PROFILE,
      name: 'CLI EPR',
      hl7Sender: shown.batch.summary.hl7Sender as { application: string; facility: string; messageType: string },
    });
    store.close();

    write(); // new orders from the same sender
    const auto = await cli('import', file, '--env', 'sbx', '--json');
    expect(auto.code).toBe(0);
    expect(JSON.parse(auto.stdout)).toMatchObject({ orders: 2, valid: 2, invalid: 0 });
    expect(auto.stderr).toContain(
      `from-epr.hl7: profile 'CLI EPR' was chosen for sending application '${sender.application}' at facility 'CLINIC-CLI' (RDE^O11)`,
    );

    // --profile always wins, and nothing is said about a choice the admin made.
    const named = await cli('import', file, '--env', 'sbx', '--profile', HL7_PROFILE.name, '--json');
    expect(named.code).toBe(0);
    expect(named.stderr).not.toContain('was chosen');

    // --no-profile: the saved profile for the sender is left alone; the standard map reads the file (no constants).
    const plain = await cli('import', file, '--env', 'sbx', '--no-profile', '--json');
    expect(plain.code).toBe(1);
    expect(JSON.parse(plain.stdout)).toMatchObject({ orders: 2, valid: 0, invalid: 2 });
    expect(plain.stderr).not.toContain('was chosen');
    const plainBatch = (JSON.parse(plain.stdout) as { batchId: number }).batchId;
    const plainShown = parseWireJson((await cli('batch', 'show', String(plainBatch), '--json')).stdout) as {
      batch: { summary: { profile?: string; profileChoice: unknown } };
    };
    expect(plainShown.batch.summary.profile).toBeUndefined();
    expect(plainShown.batch.summary.profileChoice).toEqual({
      via: 'none',
      reason: 'no saved profile was asked for: the standard HL7 field map was used',
    });

    // Two profiles for one sender: not a guess. The standard map is used and the CLI says what to give.
    const again = openStore({ dataDir });
    again.mappingProfiles.save({ ...HL7_PROFILE, name: 'CLI EPR 2', hl7Sender: { ...sender, messageType: 'RDE^O11' } });
    again.close();
    const asked = await cli('import', file, '--env', 'sbx', '--json');
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain("profiles 'CLI EPR', 'CLI EPR 2' are all saved for sending application");
    expect(asked.stderr).toContain('give --profile NAME');
  }, 120_000);

  it('imports a CSV with no saved profile when given --no-profile, though one fits its header', async () => {
    const csv = join(dir, 'twin.csv');
    writeFileSync(csv, templateCsv([uniqueOrder({}, 'CLIN')]));
    // A saved profile for the template's own header: chosen by the header, ahead of the template.
    const store = openStore({ dataDir });
    store.mappingProfiles.save({ ...TEMPLATE_PROFILE, name: 'CLI twin' });
    store.close();
    const summaryOf = async (stdout: string) => {
      const { batchId } = JSON.parse(stdout) as { batchId: number };
      const shown = parseWireJson((await cli('batch', 'show', String(batchId), '--json')).stdout) as {
        batch: { summary: { profile?: string; profileChoice: { via: string } } };
      };
      return shown.batch.summary;
    };
    try {
      const auto = await cli('import', csv, '--env', 'sbx', '--json');
      expect(auto.code).toBe(0);
      expect(auto.stderr).toContain("twin.csv: profile 'CLI twin' was chosen for this file's header");
      expect(await summaryOf(auto.stdout)).toMatchObject({ profile: 'CLI twin', profileChoice: { via: 'header' } });

      const fresh = await cli('import', csv, '--env', 'sbx', '--no-profile', '--json');
      expect(fresh.code).toBe(0);
      expect(fresh.stderr).not.toContain('CLI twin');
      expect((await summaryOf(fresh.stdout)).profileChoice).toMatchObject({ via: 'template' });
    } finally {
      // Later tests import template CSVs: leave no profile claiming that header.
      const cleanup = openStore({ dataDir });
      cleanup.mappingProfiles.delete('CLI twin');
      cleanup.close();
    }
  }, 90_000);

  it('stops cleanly when its reader goes away (`batch show --json | head`)', async () => {
    const csv = join(dir, 'many.csv');
    writeFileSync(csv, templateCsv(Array.from({ length: 400 }, () => uniqueOrder({}, 'PIPE'))));
    const imported = await cli('import', csv, '--env', 'sbx', '--json');
    const { batchId } = JSON.parse(imported.stdout) as { batchId: number };

    // Far more than a pipe holds: the CLI is still writing when the reader closes its end.
    const child = startCli(['batch', 'show', String(batchId), '--json', '--data-dir', dataDir]);
    child.stdout!.once('data', () => child.stdout!.destroy());
    const run = await finished(child);
    expect(run.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(run.code).toBe(0);
    // The store was closed properly: the next command opens it.
    expect(await cli('batch', 'show', String(batchId))).toMatchObject({ code: 0 });
  }, 90_000);

  it('exits 2 on unusable input, naming the file and the reason', async () => {
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, '');
    const cases: Array<[string[], RegExp]> = [
      [['import', empty, '--env', 'sbx'], /empty\.csv: The file is empty\./],
      [['import', empty, '--env', 'sbx', '--route', 'v3'], /--route must be v1, v2 or hl7/],
      [['import', empty, '--env', 'sbx', '--profile', 'nope'], /there is no mapping profile "nope"/],
      [
        ['import', empty, '--env', 'sbx', '--profile', 'CLI EPR', '--no-profile'],
        /^--profile and --no-profile cannot be used together/,
      ],
      [['batch', 'show', 'first'], /BATCH must be a batch number/],
      [['batch', 'show', '424242'], /there is no batch 424242/],
      [['batch', 'errors', '1'], /rx-batch batch errors takes BATCH FILE/],
      [['batch', 'export', '1'], /--template is required/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(...args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
    }
    expect(existsSync(join(dataDir, 'import-uploads'))).toBe(false);
  }, 90_000);
});
