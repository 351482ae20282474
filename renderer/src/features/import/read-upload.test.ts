import { describe, expect, it } from 'vitest';
import { parseValueMaps } from './value-maps.js';
import { decodeUpload } from './read-upload.js';

describe('reading a chosen file for upload', () => {
  it('reads UTF-8 (with or without BOM), UTF-16 by its BOM, and falls back to Windows-1252', async () => {
    const text = 'Zoë,£5';
    expect(await decodeUpload(new TextEncoder().encode(text))).toEqual({ text, encoding: 'utf-8', detected: true });
    expect((await decodeUpload(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]))).text).toBe(text);
    const utf16 = new Uint8Array([
      0xff,
      0xfe,
      ...[...text].flatMap((c) => [c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8]),
    ]);
    expect(await decodeUpload(utf16)).toEqual({ text, encoding: 'utf-16le', detected: true });
    // Excel on a UK Windows machine: ë is 0xEB and £ is 0xA3, which are not valid UTF-8.
    const cp1252 = new Uint8Array([0x5a, 0x6f, 0xeb, 0x2c, 0xa3, 0x35]);
    expect(await decodeUpload(cp1252)).toEqual({ text, encoding: 'windows-1252', detected: true });
  });

  it('lets the admin override the encoding', async () => {
    const bytes = new TextEncoder().encode('Zoë');
    expect(await decodeUpload(bytes, 'windows-1252')).toEqual({
      text: 'ZoÃ«',
      encoding: 'windows-1252',
      detected: false,
    });
    // UTF-8 chosen for Windows-1252 bytes: what it cannot read is U+FFFD, and the upload says so.
    expect(await decodeUpload(new Uint8Array([0x5a, 0x6f, 0xeb]), 'utf-8')).toEqual({
      text: 'Zo\uFFFD',
      encoding: 'utf-8',
      detected: false,
      unreadable: true,
    });
  });
});

describe('reading an upload in an encoding Rx Batch does not read, or was not told', () => {
  it('refuses ISO-2022-JP by name and double-byte text nobody named, as the core does for a file on disk', async () => {
    // "ESC $ B" switches ISO-2022-JP into JIS X 0208: every byte is ASCII, so it would pass as UTF-8.
    const iso2022 = new Uint8Array([
      ...new TextEncoder().encode('MSH|^~\\&|A|B|C|D|20260101||RDE^O11|1|P|2.5\rPID|||1||'),
      0x1b,
      0x24,
      0x42,
      0x3b,
      0x33,
      0x45,
      0x44,
      0x1b,
      0x28,
      0x42,
      ...new TextEncoder().encode('\r'),
    ]);
    const refused = await decodeUpload(iso2022);
    expect(refused.refused).toMatch(/ISO-2022-JP.*save it as UTF-8/);
    expect(refused.text).toBe('');

    // Shift_JIS surnames in a CSV nobody said was Shift_JIS: refused, naming the encoding to choose.
    const surnames = new TextDecoder('shift_jis');
    const sjis = Uint8Array.from(
      Array.from({ length: 12 }, () => [0x8e, 0x52, 0x93, 0x63, 0x2c, 0x97, 0xe9, 0x8e, 0x71, 0x0a]).flat(),
    );
    expect(surnames.decode(sjis)).toContain('山田');
    expect((await decodeUpload(sjis)).refused).toMatch(/Shift_JIS/);
    // Named, it is read.
    expect((await decodeUpload(sjis, 'shift_jis')).text).toContain('山田,');
  });
});

describe('value maps typed in the mapping step', () => {
  it('reads "column: from => to" lines and reports the lines it cannot read', () => {
    expect(
      parseValueMaps('gender: M => Male\ngender: F=>Female\n\ncourierCode: Royal Mail 24 => RMT24\nnonsense'),
    ).toEqual({
      maps: { gender: { M: 'Male', F: 'Female' }, courierCode: { 'Royal Mail 24': 'RMT24' } },
      bad: ['nonsense'],
    });
  });
});
