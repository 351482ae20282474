import { describe, expect, it } from 'vitest';
import { readMessageHeader, readMessageHeaderOf, type MessageHeader } from './hl7-ack.js';

// The listener reads a received message's header from its bytes, decoding only the MSH segment: it must read what
// the whole message decoded would give, whatever comes before or after the header.

const MSH = 'MSH|^~\\&|EPR-7|CLINIC-H|CLOUDRX|PHARMACY|20261126101500||RDE^O11^RDE_O11|CTL-1|P|2.5';
const REST = 'PID|1||123^^^NHS||Smith^Anne\rORC|NW|ORD-1';

function fields(header: MessageHeader | undefined) {
  if (!header) return undefined;
  const { fieldSeparator, encodingCharacters, sender, controlId, messageType, version } = header;
  const mirrored = Array.from({ length: 14 }, (_, n) => header.field(n + 1));
  return { fieldSeparator, encodingCharacters, sender, controlId, messageType, version, mirrored };
}

describe('the header of a received message', () => {
  it.each([
    ['CR line ends', `${MSH}\r${REST}\r`],
    ['LF line ends', `${MSH}\n${REST.replaceAll('\r', '\n')}\n`],
    ['blank lines and spaces before it', `\r\n \t\r${MSH}\r${REST}`],
    ['a BOM before it', `\ufeff${MSH}\r${REST}`],
    ['only the header, no line end', MSH],
    ['escapes and non-ASCII in the header', MSH.replace('EPR-7', 'EPR\\T\\7').replace('CLINIC-H', 'CLÍNICA-Ñ')],
    ['something else first', `EVN|A01\r${MSH}\r${REST}`],
    ['no MSH at all', `PID|1\r${REST}`],
    ['an MSH without separators', 'MSH\rPID|1'],
  ])('reads the same from its bytes as from its text: %s', (_, text) => {
    const raw = Buffer.from(text, 'utf8');
    expect(fields(readMessageHeaderOf(raw))).toEqual(fields(readMessageHeader(raw.toString('utf8'))));
  });

  it('reads the same where the bytes are not valid UTF-8', () => {
    const raw = Buffer.concat([
      Buffer.from(MSH.slice(0, 20)),
      Buffer.from([0xe2, 0x80]),
      Buffer.from(`${MSH.slice(20)}\r${REST}`),
    ]);
    expect(fields(readMessageHeaderOf(raw))).toEqual(fields(readMessageHeader(raw.toString('utf8'))));
    expect(readMessageHeaderOf(raw)?.controlId).toBe('CTL-1');
  });
});
