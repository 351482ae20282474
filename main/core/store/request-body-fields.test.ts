import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { parseHl7Message } from '../model/hl7-adapter.js';
import { chosenNameRepetition } from '../model/hl7-patient-name.js';
import { importFile } from '../importing/index.js';
import { FIXTURE_DIR } from '../importing/testing/write-fixtures.js';
import { hl7ControlId, patientSurnameOf } from './request-body-fields.js';

describe('the fields the store reads from a request body', () => {
  // The store's small reader must read what the importer read: every HL7 message of the fixture corpus (custom
  // delimiters, escapes, Windows-1252, MLLP, batches), PID-5.1 and MSH-10 compared with the importer's own parse.
  it('reads PID-5.1 and MSH-10 of every HL7 fixture message as the importer does', async () => {
    const files = readdirSync(FIXTURE_DIR).filter((name) => name.endsWith('.hl7'));
    let compared = 0;
    for (const name of files) {
      const report = await importFile(join(FIXTURE_DIR, name), { codeLists: DEFAULT_CODE_LISTS });
      for (const order of report.orders) {
        const message = order.source.hl7;
        if (message === undefined) continue;
        let parsed: ReturnType<typeof parseHl7Message>;
        try {
          parsed = parseHl7Message(message.split('\r'));
        } catch {
          // A message the importer cannot read (broken-msh.hl7): nothing to find in it either.
          expect(patientSurnameOf('hl7', message), name).toBeNull();
          continue;
        }
        // PID-5.1 of the repetition the importer reads the name from (the legal name where PID-5 repeats).
        const pid = parsed.first('PID');
        const surname = pid ? pid.value(5, 1, 1, chosenNameRepetition(pid)) : '';
        expect(patientSurnameOf('hl7', message), `${name} message ${order.source.message}`).toBe(surname || null);
        const inBody = (order.body as { customer?: { surname?: string } }).customer?.surname;
        if (inBody !== undefined) expect(surname, name).toBe(inBody);
        expect(hl7ControlId(message), name).toBe(parsed.first('MSH')!.value(10) || null);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(20);
  });

  it('reads the decoded surname through escapes and declared delimiters', () => {
    expect(patientSurnameOf('hl7', "MSH|^~\\&|A|B\rPID|1||||O'Brien \\T\\ Sons^Alex\r")).toBe("O'Brien & Sons");
    expect(patientSurnameOf('hl7', 'MSH#@!$%#A\nPID#1####Smith%x@Jo@@!Other#')).toBe('Smith');
    expect(patientSurnameOf('hl7', 'MSH|^~\\&|A\rPID|1||||\\XC3AB\\l^Jo')).toBe('ël');
    expect(hl7ControlId('MSH|^~\\&|A|B|C|D|20250101||RDE^O11|MSG-7|P|2.5')).toBe('MSG-7');
  });

  it('gives null, not a guess, for what it cannot read', () => {
    expect(patientSurnameOf('hl7', 'not hl7')).toBeNull();
    expect(patientSurnameOf('hl7', 'MSH|^~\\&|A\rPID|1||||^Jo')).toBeNull();
    expect(patientSurnameOf('v1', '{"customer":{"surname":"  "}}')).toBeNull();
    expect(patientSurnameOf('v1', '{"customer":{"surname":42}}')).toBeNull();
    expect(patientSurnameOf('v2', '{"customer":')).toBeNull();
    expect(patientSurnameOf('v1', 'null')).toBeNull();
    expect(patientSurnameOf('v1', '{"customer":{"surname":" Ng "}}')).toBe('Ng');
  });
});
