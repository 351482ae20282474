import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_SANDBOX_ID } from '../core/environments/presets.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * A workbook saved from Excel instead of a CSV was refused as "binary data (is it the right file?)": the advice to
 * save it as CSV UTF-8 was only given to a file that starts like a workbook and holds no run of zero bytes, and a
 * real one has them (an .xls header's CLSID, a ZIP's central directory). Both shapes as their formats write them.
 */

const dir = mkdtempSync(join(tmpdir(), 'rx-cli-workbook-'));
const dataDir = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);

/** A ZIP archive of one stored entry: local header, data, central directory, end record (APPNOTE 4.3). */
function zipOf(name: string, text: string): Buffer {
  const data = Buffer.from(text);
  const file = Buffer.from(name);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(file.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(file.length, 28);
  // Comment length, disk, internal and external attributes, offset: zeros, as Excel writes them.
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + file.length, 12);
  end.writeUInt32LE(local.length + file.length + data.length, 16);
  return Buffer.concat([local, file, data, central, file, end]);
}

/** The start of a compound file (.xls): signature, a zero CLSID, then its version fields. */
function xlsHeader(): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header);
  header.writeUInt16LE(0x003e, 24);
  header.writeUInt16LE(0x0003, 26);
  header.writeUInt16LE(0xfffe, 28);
  return Buffer.concat([header, Buffer.from('Workbook'.repeat(64))]);
}

describe('rx-batch import of a workbook saved instead of a CSV', () => {
  it('names an .xlsx and says to save it as CSV UTF-8', async () => {
    const file = join(dir, 'orders.xlsx');
    writeFileSync(file, zipOf('[Content_Types].xml', '<?xml version="1.0"?><Types/>'));
    const run = await cli('import', file, '--env', LOCAL_SANDBOX_ID);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'The file is an Excel workbook (.xlsx) or another ZIP archive, not a CSV or HL7 text file: in Excel, save it as "CSV UTF-8"',
    );
  });

  it('names an old .xls', async () => {
    const file = join(dir, 'orders.xls');
    writeFileSync(file, xlsHeader());
    const run = await cli('import', file, '--env', LOCAL_SANDBOX_ID);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('The file is an old Excel workbook (.xls) or a Word document');
  });
});
