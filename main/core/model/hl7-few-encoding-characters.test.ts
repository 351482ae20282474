import { describe, expect, it } from 'vitest';
import { Hl7ParseError, parseHl7Message, readDelimiters } from './hl7-adapter.js';

/**
 * MSH-2 with fewer than four encoding characters (`MSH|^~\|`, `MSH|^~|`, hapi-hl7v2's `MSH|^~}|`), as older senders
 * write it: the characters given keep their positions (component, repetition, escape, subcomponent, truncation),
 * and one left out is no separator at all.
 */

describe('readDelimiters', () => {
  it.each([
    ['MSH|^~|A', { component: '^', repetition: '~', escape: '', subcomponent: '' }],
    ['MSH|^~\\|A', { component: '^', repetition: '~', escape: '\\', subcomponent: '' }],
    ['MSH|^~}|A', { component: '^', repetition: '~', escape: '}', subcomponent: '' }],
    ['MSH|^~\\&|A', { component: '^', repetition: '~', escape: '\\', subcomponent: '&' }],
    ['MSH|^~\\&#|A', { component: '^', repetition: '~', escape: '\\', subcomponent: '&', truncation: '#' }],
    ['BHS#@*$#A', { field: '#', component: '@', repetition: '*', escape: '$', subcomponent: '' }],
  ])('%s gives its separators by position', (header, expected) => {
    expect(readDelimiters(header)).toEqual({ field: '|', ...expected });
  });

  it.each([
    [
      'MSH|^|A',
      "MSH-1/MSH-2 must give at least three different separator characters (usually |^~\\&), not '|' and '^' (1 encoding character where HL7 has at least 2: component and repetition, then escape and subcomponent when the message uses them)",
    ],
    ['MSH||A', "not '|' and '' (0 encoding characters where HL7 has at least 2"],
    ['MSH|^^|A', "MSH-1/MSH-2 must give three different separator characters (usually |^~\\&), not '|' and '^^'"],
    ['MSH|^~A|A', "must give four different separator characters (usually |^~\\&), not '|' and '^~A'"],
    ['MSH|^ ~|A', "not '|' and '^ ~'"],
    // hl7apy's test of a wrong MSH-2: more characters than HL7 has encoding characters.
    [
      'MSH|@%\\&$?!|A',
      "MSH-2 is '@%\\&$?!': 7 encoding characters, where HL7 has 4 (component, repetition, escape, subcomponent; usually ^~\\&) and from v2.7 a fifth",
    ],
  ])('refuses %s, quoting MSH-2', (header, message) => {
    expect(() => readDelimiters(header)).toThrow(Hl7ParseError);
    expect(() => readDelimiters(header)).toThrow(message);
  });

  it('still refuses ^~& as HL7 usual ^~\\& less its backslash', () => {
    expect(() => readDelimiters('MSH|^~&|A')).toThrow(
      "MSH-2 is '^~&': its escape character (the third, usually \\) is missing",
    );
  });
});

describe('a message with fewer than four encoding characters', () => {
  it('MSH|^~|: split by component and repetition; a backslash is text and no escape is decoded', () => {
    const message = parseHl7Message(['MSH|^~|S|F', 'PID|1||||O\\Brien\\T\\^Ann & Bea~Other^Cy']);
    const pid = message.first('PID')!;
    expect(message.delimiters).toEqual({ field: '|', component: '^', repetition: '~', escape: '', subcomponent: '' });
    expect(message.first('MSH')!.value(2)).toBe('^~');
    expect(message.first('MSH')!.value(3)).toBe('S');
    expect([pid.value(5, 1), pid.value(5, 2), pid.repetitions(5), pid.value(5, 1, 1, 2)]).toEqual([
      'O\\Brien\\T\\',
      'Ann & Bea',
      2,
      'Other',
    ]);
    expect(message.escapeNotes).toEqual([]);
  });

  it('MSH|^~\\|: escapes are decoded, but & is text and a component has no subcomponents', () => {
    const message = parseHl7Message(['MSH|^~\\|S|F', 'PID|1||||Smith & Jones\\S\\Ltd^Ann\\F\\Bea']);
    const pid = message.first('PID')!;
    expect(message.first('MSH')!.value(2)).toBe('^~\\');
    expect(pid.hasSubcomponents).toBe(false);
    expect(pid.value(5, 1)).toBe('Smith & Jones^Ltd');
    expect(pid.value(5, 1, 2)).toBe('');
    expect(pid.subcomponents(5, 1, 1)).toEqual(['Smith & Jones^Ltd']);
    expect(pid.value(5, 2)).toBe('Ann|Bea');
    expect(message.escapeNotes).toEqual([]);
  });

  it('MSH|^~\\|: \\T\\ names no separator of the message, so it is kept as text with a note', () => {
    const message = parseHl7Message(['MSH|^~\\|S|F', 'PID|1||||A\\T\\B']);
    expect(message.first('PID')!.value(5)).toBe('A\\T\\B');
    expect(message.escapeNotes).toEqual([
      expect.objectContaining({ kind: 'unreadable', escape: '\\T\\', path: 'PID-5.1' }),
    ]);
  });

  it('MSH|^~| with nothing after it is a complete header; MSH|^~ is not', () => {
    expect(parseHl7Message(['MSH|^~|']).delimiters.component).toBe('^');
    expect(() => parseHl7Message(['MSH|^~'])).toThrow('does not start with a complete MSH segment');
  });
});
