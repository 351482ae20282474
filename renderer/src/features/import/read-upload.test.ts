import { describe, expect, it } from 'vitest';
import { parseValueMaps } from './value-maps.js';
import { decodeUpload } from './read-upload.js';

describe('reading a chosen file for upload', () => {
  it('reads UTF-8 (with or without BOM), UTF-16 by its BOM, and falls back to Windows-1252', () => {
    const text = 'Zoë,£5';
    expect(decodeUpload(new TextEncoder().encode(text))).toEqual({ text, encoding: 'utf-8', detected: true });
    expect(decodeUpload(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)])).text).toBe(text);
    const utf16 = new Uint8Array([
      0xff,
      0xfe,
      ...[...text].flatMap((c) => [c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8]),
    ]);
    expect(decodeUpload(utf16)).toEqual({ text, encoding: 'utf-16le', detected: true });
    // Excel on a UK Windows machine: ë is 0xEB and £ is 0xA3, which are not valid UTF-8.
    const cp1252 = new Uint8Array([0x5a, 0x6f, 0xeb, 0x2c, 0xa3, 0x35]);
    expect(decodeUpload(cp1252)).toEqual({ text, encoding: 'windows-1252', detected: true });
  });

  it('lets the admin override the encoding', () => {
    const bytes = new TextEncoder().encode('Zoë');
    expect(decodeUpload(bytes, 'windows-1252')).toEqual({ text: 'ZoÃ«', encoding: 'windows-1252', detected: false });
    // UTF-8 chosen for Windows-1252 bytes: what it cannot read is U+FFFD, and the upload says so.
    expect(decodeUpload(new Uint8Array([0x5a, 0x6f, 0xeb]), 'utf-8')).toEqual({
      text: 'Zo\uFFFD',
      encoding: 'utf-8',
      detected: false,
      unreadable: true,
    });
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
