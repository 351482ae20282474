import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile, type MappingProfile } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

// HL7 profiles chosen by the file's sender (MSH-3, MSH-4, message type; FHS/BHS first), as CSV ones are by header.

const base = { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') };
const fixture = (name: string) => join(FIXTURE_DIR, name);
const RXBATCH_CLINIC_A = { application: 'RXBATCH', facility: 'CLINIC-A', messageType: 'RDE^O11' };

const hl7Profile = (name: string, hl7Sender?: MappingProfile['hl7Sender']): MappingProfile => ({
  name,
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
  ...(hl7Sender ? { hl7Sender } : {}),
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-hl7-sender-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the sender of an HL7 file', () => {
  it('is read from the first MSH: sending application, sending facility and message type', async () => {
    const report = await importFile(fixture('rde-single.hl7'), base);
    expect(report.hl7Sender).toEqual(RXBATCH_CLINIC_A);
    expect((await importFile(fixture('omp-o09.hl7'), base)).hl7Sender).toEqual({
      ...RXBATCH_CLINIC_A,
      messageType: 'OMP^O09',
    });
    // Declared delimiters are followed (MSH#@*$%#…).
    expect((await importFile(fixture('custom-delimiters.hl7'), base)).hl7Sender).toEqual(RXBATCH_CLINIC_A);
  });

  it('prefers the FHS/BHS header field by field, and holds nothing from the patient segments', async () => {
    // batch.hl7: FHS-3 and BHS-3 name the application, neither names a facility (MSH-4 does).
    const batch = await importFile(fixture('batch.hl7'), base);
    expect(batch.hl7Sender).toEqual(RXBATCH_CLINIC_A);

    const text = readFileSync(fixture('rde-single.hl7'), 'utf8');
    const path = join(dir, 'headers.hl7');
    await writeFile(path, `FHS|^~\\&|FILE-APP\rBHS|^~\\&|BATCH-APP^1.2.3^ISO|BATCH-FAC\r${text}\rBTS|1\rFTS|1\r`);
    const report = await importFile(path, base);
    expect(report.fileProblems).toEqual([]);
    expect(report.hl7Sender).toEqual({ application: 'FILE-APP', facility: 'BATCH-FAC', messageType: 'RDE^O11' });
    const values = Object.values(report.hl7Sender!).join(' ');
    const pid = text.split('\r').find((segment) => segment.startsWith('PID'))!;
    for (const value of pid.split(/[|^~&]/).filter((v) => v.length > 2)) expect(values).not.toContain(value);
  });

  it('is absent when no header names an application or a facility', async () => {
    const text = readFileSync(fixture('rde-single.hl7'), 'utf8').replace('MSH|^~\\&|RXBATCH|CLINIC-A|', 'MSH|^~\\&|||');
    const path = join(dir, 'anonymous.hl7');
    await writeFile(path, text);
    const report = await importFile(path, { ...base, profiles: [hl7Profile('anyone', RXBATCH_CLINIC_A)] });
    expect(report.hl7Sender).toBeUndefined();
    expect(report.profile).toBeUndefined();
    expect(report.profileChoice).toEqual({
      via: 'none',
      reason: 'the file names no sending application or facility: the standard HL7 field map was used',
    });
  });
});

describe('choosing an HL7 profile by its sender', () => {
  it('chooses the one profile saved for the sender, says why, and applies its constants', async () => {
    const mine = hl7Profile('Clinic A EPR', { application: 'rxbatch', facility: ' clinic-a ', messageType: 'RDE^O11' });
    const profiles = [hl7Profile('no sender'), hl7Profile('elsewhere', { ...RXBATCH_CLINIC_A, facility: 'B' }), mine];
    const report = await importFile(fixture('rde-single.hl7'), { ...base, profiles });
    expect(report).toMatchObject({ profile: 'Clinic A EPR', appliedProfile: mine, invalidCount: 0 });
    expect(report.profileChoice).toEqual({
      via: 'sender',
      reason: "profile 'Clinic A EPR' was chosen for sending application 'RXBATCH' at facility 'CLINIC-A' (RDE^O11)",
    });
    expect(report.orders[0]!.provenance['prescription.courierCode']).toEqual({
      kind: 'constant',
      profile: 'Clinic A EPR',
      column: 'courierCode',
    });
  });

  it('leaves another facility or another message type to the standard map', async () => {
    const profiles = [hl7Profile('Clinic A EPR', RXBATCH_CLINIC_A)];
    const other = await importFile(fixture('clinic-from-msh4.hl7'), { ...base, profiles });
    expect(other.profile).toBeUndefined();
    expect(other.invalidCount).toBe(1);
    expect(other.profileChoice).toEqual({
      via: 'none',
      reason:
        "no saved profile is for sending application 'RXBATCH' at facility 'CLINIC-MSH' (RDE^O11): the standard HL7 field map was used",
    });
    const omp = await importFile(fixture('omp-o09.hl7'), { ...base, profiles });
    expect(omp.profile).toBeUndefined();
    expect(omp.profileChoice?.via).toBe('none');
  });

  it('takes an RDE^O01 (HL7 2.3) from the sender with the profile saved for its RDE^O11, and the other way round', async () => {
    const v23 = join(dir, 'rde-o01.hl7');
    await writeFile(
      v23,
      readFileSync(fixture('rde-single.hl7'), 'latin1').replace('RDE^O11^RDE_O11', 'RDE^O01'),
      'latin1',
    );
    const saved11 = hl7Profile('Clinic A EPR', RXBATCH_CLINIC_A);
    const read = await importFile(v23, { ...base, profiles: [saved11] });
    expect(read.hl7Sender?.messageType).toBe('RDE^O01');
    expect(read).toMatchObject({ profile: 'Clinic A EPR', invalidCount: 0 });
    const saved01 = hl7Profile('Clinic A v2.3', { ...RXBATCH_CLINIC_A, messageType: 'RDE^O01' });
    expect(await importFile(fixture('rde-single.hl7'), { ...base, profiles: [saved01] })).toMatchObject({
      profile: 'Clinic A v2.3',
    });
  });

  it('asks when several profiles are saved for the sender, counting a profile offered twice once', async () => {
    const first = hl7Profile('EPR one', RXBATCH_CLINIC_A);
    const second = hl7Profile('EPR two', RXBATCH_CLINIC_A);
    // Staging offers a CSV-saved profile twice (the error export's fingerprint); the same name is one profile.
    const once = await importFile(fixture('rde-single.hl7'), {
      ...base,
      profiles: [first, { ...first, headerFingerprint: 'abc' }],
    });
    expect(once.profile).toBe('EPR one');

    const report = await importFile(fixture('rde-single.hl7'), { ...base, profiles: [second, first] });
    expect(report.profile).toBeUndefined();
    expect(report.appliedProfile).toBeUndefined();
    expect(report.invalidCount).toBe(1);
    expect(report.profileChoice).toEqual({
      via: 'several',
      reason:
        "profiles 'EPR one', 'EPR two' are all saved for sending application 'RXBATCH' at facility 'CLINIC-A' (RDE^O11): choose one (the standard HL7 field map was used)",
      candidates: ['EPR one', 'EPR two'],
    });
  });

  it('always lets a profile given explicitly win over the sender’s', async () => {
    const named = hl7Profile('Named', { ...RXBATCH_CLINIC_A, facility: 'SOMEWHERE-ELSE' });
    const report = await importFile(fixture('rde-single.hl7'), {
      ...base,
      profile: named,
      profiles: [hl7Profile('Clinic A EPR', RXBATCH_CLINIC_A)],
    });
    expect(report.profile).toBe('Named');
    expect(report.profileChoice).toEqual({ via: 'explicit', reason: "profile 'Named' was chosen for this import" });
    expect(report.hl7Sender).toEqual(RXBATCH_CLINIC_A);
  });

  it('chooses before the first message is read, whatever the chunking of a long batch', async () => {
    const text = readFileSync(fixture('rde-many.hl7'), 'utf8');
    const path = join(dir, 'many.hl7');
    // Past one 256 KB read: every message of a multi-chunk file gets the profile, the first included.
    const copies = Math.ceil((300 * 1024) / text.length);
    await writeFile(
      path,
      Array.from({ length: copies }, (_, n) => text.replace(/ORC\|NW\|([^|]+)/g, `ORC|NW|$1-${n}`)).join('\r'),
    );
    const report = await importFile(path, { ...base, profiles: [hl7Profile('Clinic A EPR', RXBATCH_CLINIC_A)] });
    expect(report.profile).toBe('Clinic A EPR');
    expect(report.orderCount).toBeGreaterThan(100);
    expect(report.orders.filter((order) => order.provenance['prescription.paymentType']?.kind !== 'constant')).toEqual(
      [],
    );
  });
});
