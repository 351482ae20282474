import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import {
  bomEncoding,
  doubleByteEncoding,
  isRead,
  iso2022Encoding,
  namedEncoding,
  readMsh18,
  zeroByteEncoding,
} from './encoding-sniff.js';

const bytes = (text: string, encoding: string) => new Uint8Array(iconv.encode(text, encoding));
const CSV = 'clinicCode,clinicOrderId,surname,firstName,dateOfBirth\r\nCLINIC-A,ORD-1,Example,Alex,1980-01-15\r\n';

describe('telling an encoding from the bytes', () => {
  it('reads byte order marks, UTF-32 LE before UTF-16 LE', () => {
    expect(bomEncoding(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toEqual({ encoding: 'utf-8', length: 3 });
    expect(bomEncoding(new Uint8Array([0xff, 0xfe, 0, 0, 0x41, 0, 0, 0]))).toEqual({ encoding: 'utf-32le', length: 4 });
    expect(bomEncoding(new Uint8Array([0, 0, 0xfe, 0xff]))).toEqual({ encoding: 'utf-32be', length: 4 });
    expect(bomEncoding(new Uint8Array([0xff, 0xfe, 0x41, 0]))).toEqual({ encoding: 'utf-16le', length: 2 });
    expect(bomEncoding(new Uint8Array([0xfe, 0xff, 0, 0x41]))).toEqual({ encoding: 'utf-16be', length: 2 });
    expect(bomEncoding(bytes(CSV, 'utf-8'))).toBeUndefined();
  });

  it('tells UTF-16 and UTF-32 without a BOM by where the zero bytes are', () => {
    for (const encoding of ['utf-16le', 'utf-16be', 'utf-32le', 'utf-32be'])
      expect(zeroByteEncoding(bytes(`${CSV}Zoë,Brontë\r\n`, encoding)), encoding).toBe(encoding);
    expect(zeroByteEncoding(bytes(CSV, 'utf-8'))).toBeUndefined();
    expect(zeroByteEncoding(new Uint8Array(2048))).toBeUndefined();
  });

  it('names ISO-2022 text by its escape sequences, and nothing else', () => {
    const esc = (...codes: string[]) =>
      new Uint8Array(Buffer.from(`PID|1||||\x1b${codes.join('')}xx\x1b(B^Alex`, 'latin1'));
    expect(iso2022Encoding(esc('$B'))?.name).toMatch(/^ISO-2022-JP/);
    expect(iso2022Encoding(esc('$@'))?.name).toMatch(/^ISO-2022-JP/);
    expect(iso2022Encoding(esc('(J'))?.name).toMatch(/^ISO-2022-JP/);
    expect(iso2022Encoding(esc('$)C'))?.name).toMatch(/^ISO-2022-KR/);
    expect(iso2022Encoding(esc('$)A'))?.name).toMatch(/^ISO-2022-CN/);
    expect(iso2022Encoding(esc('$*H'))?.name).toMatch(/^ISO-2022-CN/);
    // A terminal colour code is an escape sequence too, but no ISO-2022 one.
    expect(iso2022Encoding(esc('[31m'))).toBeUndefined();
    expect(iso2022Encoding(bytes(CSV, 'utf-8'))).toBeUndefined();
  });

  it('names the double-byte encoding of Japanese and Chinese text', () => {
    const japanese = `${CSV}CLINIC-A,ORD-2,山田,太郎,1980-01-15,東京,1日3回 食後に服用\r\n`;
    expect(doubleByteEncoding(bytes(japanese, 'shift_jis'), true)?.encoding).toBe('shift_jis');
    expect(doubleByteEncoding(bytes(japanese, 'euc-jp'), true)?.encoding).toBe('euc-jp');
    const chinese = `${CSV}CLINIC-A,ORD-3,王,小明,1980-01-15,北京市,每日三次 饭后服用\r\n`;
    expect(doubleByteEncoding(bytes(chinese, 'gb18030'), true)?.name).toMatch(/Chinese/);
    // Too few characters to tell: no guess.
    expect(doubleByteEncoding(bytes(`${CSV}山田\r\n`, 'shift_jis'), true)).toBeUndefined();
  });

  it('does not take Windows-1252 text, or UTF-8 with a stray byte, for Asian text', () => {
    const western = `${CSV}CLINIC-A,ORD-4,O’Brien,Zoë,1980-01-15,St Mary’s Road,“Two” tablets; £4.50 (café dose) – naïve Brontë\r\n`;
    expect(doubleByteEncoding(bytes(western.repeat(20), 'windows-1252'), true)).toBeUndefined();
    const brokenUtf8 = new Uint8Array([...bytes(western.repeat(5), 'utf-8'), 0x92, 0x73]);
    expect(doubleByteEncoding(brokenUtf8, true)).toBeUndefined();
    // Short text whose quotes and accents all happen to form valid Shift_JIS pairs (found by the property below).
    const pairsByChance = `${CSV}‘PØe”’ ‘XÅuU’’; ‘yTlVxWDsÅ’’\r\n`;
    expect(doubleByteEncoding(bytes(pairsByChance, 'windows-1252'), true)).toBeUndefined();
  });

  it('never takes English text with accents and curly quotes for a double-byte encoding (property)', () => {
    const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const accented = [...'éèëêïîöôüûñçàâäåæøœßÉÈÖÜÅØ'];
    const word = fc
      .tuple(
        fc.string({ unit: fc.constantFrom(...letters), minLength: 1, maxLength: 10 }),
        fc.option(fc.tuple(fc.constantFrom(...accented), fc.nat()), { nil: undefined }),
        fc.constantFrom('', '', '', '’s', '’', '“', '”', '…', ' –', '£', '€'),
        fc.boolean(),
      )
      .map(([base, accent, mark, quoted]) => {
        const withAccent = accent
          ? base.slice(0, accent[1] % (base.length + 1)) + accent[0] + base.slice(accent[1] % (base.length + 1))
          : base;
        const text = mark === '£' || mark === '€' ? `${mark}${withAccent}` : `${withAccent}${mark}`;
        return quoted ? `‘${text}’` : text;
      });
    const line = fc
      .tuple(fc.array(word, { minLength: 1, maxLength: 12 }), fc.constantFrom(' ', ', ', '; ', ','))
      .map(([words, separator]) => words.join(separator));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 60 }), (lines) => {
        const text = `${CSV}${lines.join('\r\n')}\r\n`;
        expect(doubleByteEncoding(bytes(text, 'windows-1252'), true)).toBeUndefined();
      }),
      { numRuns: Number(process.env.SNIFF_RUNS ?? 500) },
    );
  });

  it('tells Japanese text in Shift_JIS and EUC-JP apart (property)', () => {
    const kanji = [...'山田太郎花子東京都大阪市日月火水木金土回食後前服用錠剤一二三四五分朝昼夕寝'];
    const kana = [...'あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん'];
    const word = fc.string({ unit: fc.constantFrom(...kanji, ...kana), minLength: 2, maxLength: 8 });
    const row = fc.array(word, { minLength: 2, maxLength: 6 }).map((words) => `CLINIC-A,ORD-1,${words.join(',')}`);
    fc.assert(
      fc.property(fc.array(row, { minLength: 2, maxLength: 20 }), (rows) => {
        const text = `${CSV}${rows.join('\r\n')}\r\n`;
        expect(doubleByteEncoding(bytes(text, 'shift_jis'), true)?.encoding).toBe('shift_jis');
        const hasKana = [...text].some((c) => kana.includes(c));
        expect(doubleByteEncoding(bytes(text, 'euc-jp'), true)?.encoding).toBe(hasKana ? 'euc-jp' : 'gb18030');
      }),
      { numRuns: Number(process.env.SNIFF_RUNS ?? 300) },
    );
  });
});

describe('HL7 MSH-18', () => {
  it('is read from the first MSH, with its repetitions', () => {
    const msh = 'MSH|^~\\&|EPR|CLINIC|RX|PH|20250101||RDE^O11|1|P|2.5||||||';
    expect(readMsh18(`${msh}UNICODE UTF-8\rPID|1`)).toEqual(['UNICODE UTF-8']);
    expect(readMsh18(`# comment\n  ${msh}~ISO IR87\nPID|1`)).toEqual(['', 'ISO IR87']);
    expect(readMsh18(`${msh}\rPID|1`)).toBeUndefined();
    expect(readMsh18('MSH|^~\\&|EPR\rPID|1')).toBeUndefined();
    expect(readMsh18('surname,firstName\r\nExample,Alex')).toBeUndefined();
    expect(readMsh18('MSH#@*$%#A#B#C#D#E##T@Y#1#P#2.5######8859/1')).toEqual(['8859/1']);
  });

  it('starts a line: after white space and start bytes, not after other text (finding 67)', () => {
    const msh = 'MSH|^~\\&|EPR|CLINIC|RX|PH|20250101||RDE^O11|1|P|2.5||||||8859/1';
    expect(readMsh18(`\x0b \t\r\n \x0b${msh}`)).toEqual(['8859/1']);
    expect(readMsh18(`PID|1\r \t${msh}`)).toEqual(['8859/1']);
    expect(readMsh18(`PID|1 ${msh}`)).toBeUndefined();
    expect(readMsh18(`xMSH|\r${msh}`)).toEqual(['8859/1']);
    expect(readMsh18(`MSH1|\rMSH \r${msh}`)).toEqual(['8859/1']);
    // Past the 64 KB looked at: none, found at once (it took seconds).
    expect(readMsh18(`${'\n'.repeat(70_000)}${msh}`)).toBeUndefined();
    expect(readMsh18(`${' \n'.repeat(30_000)}${msh}`)).toEqual(['8859/1']);
  });

  it('maps every character set of HL7 table 0211 to one Rx Batch reads, or names it as one it does not', () => {
    const read: Record<string, string> = {
      ASCII: 'ascii',
      '8859/1': 'windows-1252',
      '8859/2': 'iso-8859-2',
      '8859/3': 'iso-8859-3',
      '8859/4': 'iso-8859-4',
      '8859/5': 'iso-8859-5',
      '8859/6': 'iso-8859-6',
      '8859/7': 'iso-8859-7',
      '8859/8': 'iso-8859-8',
      '8859/9': 'iso-8859-9',
      '8859/15': 'iso-8859-15',
      'ISO IR6': 'ascii',
      'ISO IR14': 'shift_jis',
      'ISO IR100': 'windows-1252',
      'ISO IR192': 'utf-8',
      'GB 18030-2000': 'gb18030',
      'KS X 1001': 'euc-kr',
      'BIG-5': 'big5',
      UNICODE: 'utf-16',
      'UNICODE UTF-8': 'utf-8',
      'UNICODE UTF-16': 'utf-16',
      'UNICODE UTF-32': 'utf-32',
      'utf-8': 'utf-8',
      Shift_JIS: 'shift_jis',
      'EUC-JP': 'euc-jp',
    };
    for (const [value, encoding] of Object.entries(read)) {
      const named = namedEncoding(value);
      expect(named && isRead(named) ? named.encoding : undefined, value).toBe(encoding);
      expect(iconv.encodingExists(encoding), encoding).toBe(true);
    }
    for (const value of ['ISO IR87', 'ISO IR159', 'CNS 11643-1992', 'ISO-2022-JP', 'UTF-7']) {
      const named = namedEncoding(value);
      expect(named && !isRead(named), value).toBe(true);
    }
    expect(namedEncoding('KLINGON')).toBeUndefined();
  });
});
