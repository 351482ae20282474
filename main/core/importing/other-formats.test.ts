import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

/**
 * Files that are neither CSV nor HL7 v2 as Rx Batch reads it (HL7's XML encoding, JSON, a web page, HL7 segments that
 * lost their MSH, messages inside a CSV export) were refused as a CSV with no header and told to choose a mapping
 * profile, which reads none of them. Each is said as what it is, with no header row offered to map.
 */

let dir: string;
let segments: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-other-'));
  segments = (await readFile(join(FIXTURE_DIR, 'rde-single.hl7'), 'utf8')).split(/\r\n|\r|\n/).filter((s) => s !== '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importText(name: string, text: string) {
  const path = join(dir, name);
  await writeFile(path, text);
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') });
}

describe('a file in another format', () => {
  it.each([
    [
      'v2.xml',
      '<?xml version="1.0"?>\n<RDE_O11 xmlns="urn:hl7-org:v2xml">\n  <MSH><MSH.1>|</MSH.1></MSH>\n  <PID><PID.5><XPN.1>Example</XPN.1></PID.5></PID>\n</RDE_O11>\n',
      'file.otherFormat',
      'HL7 v2 in its XML encoding',
    ],
    [
      'page.csv',
      '<!DOCTYPE html>\n<html><body><h1>Session expired</h1></body></html>\n',
      'file.otherFormat',
      'a web page',
    ],
    ['orders.xml', '<orders>\n  <order id="1"/>\n</orders>\n', 'file.otherFormat', 'The file is XML'],
    [
      'bundle.json',
      '{\n  "resourceType": "Bundle",\n  "entry": []\n}\n',
      'file.otherFormat',
      'The file is JSON (a FHIR resource)',
    ],
    ['list.json', '[{"id": 1, "drug": "Paracetamol"}]\n', 'file.otherFormat', 'The file is JSON,'],
  ])('%s is named as what it is', async (name, text, code, said) => {
    const report = await importText(name, text);
    expect(report.fileProblems).toHaveLength(1);
    expect(report.fileProblems[0]).toMatchObject({ severity: 'error', code });
    expect(report.fileProblems[0]!.text).toContain(said);
    expect(report.candidateHeader).toBeUndefined();
  });

  it('HL7 segments with no MSH are said to have lost their header, as an HL7 file', async () => {
    const report = await importText('no-msh.hl7', segments.slice(1).join('\n') + '\n');
    expect(report.format).toBe('hl7');
    expect(report.fileProblems).toEqual([
      {
        severity: 'error',
        file: 'no-msh.hl7',
        code: 'hl7.noMessageHeader',
        text: 'The file holds HL7 segments (PID, ORC, RXE) but no MSH header, with which every HL7 message starts and which says how its fields are separated and what kind of message it is, so no message can be read: the file may have lost its start (cut, or copied from the middle of a log). Ask the sender for the whole message.',
      },
    ]);
  });

  it('HL7 messages inside the cells of a CSV export are said to be so', async () => {
    const message = segments.join('\r').replace(/"/g, '""');
    const report = await importText('export.csv', `id,received,message\n1,2025-01-01,"${message}"\n`);
    expect(report.fileProblems.map((p) => p.code)).toEqual(['file.otherFormat']);
    expect(report.fileProblems[0]!.text).toContain('HL7 messages inside another format');
  });

  it('a CSV with no header is still told to choose a mapping profile', async () => {
    const report = await importText('rows.csv', 'A81043,THE SURGERY,Y54\nA81044,OTHER SURGERY,Y54\n');
    expect(report.fileProblems.map((p) => p.code)).toEqual(['csv.noHeader']);
  });
});
