import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * An MSH-2 whose backslash became a space or was dropped (`^~ &`, `^~&`, as a public sample library's example file
 * has it, and as a shell's echo or a template engine leaves it) is refused saying so, where the problem only said the
 * separators must be five different characters.
 */

const BASE = writeRde011(exampleOrder('B-1'), { timestamp: '20250101120000' });

async function problemsOf(text: string) {
  const { orders } = await importHl7Message(Buffer.from(text), 'lost.hl7', {
    codeLists: DEFAULT_CODE_LISTS,
    today: new Date('2025-06-01T00:00:00Z'),
  });
  return orders.flatMap((entry) => entry.order.problems);
}

describe('an MSH-2 that lost its backslash', () => {
  it.each([
    ['^~ &', 'a space'],
    ['^~&', 'missing'],
  ])('%s is refused naming the escape character as %s', async (msh2, said) => {
    const problems = await problemsOf(BASE.replace('MSH|^~\\&|', `MSH|${msh2}|`));
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'hl7.unreadable',
        message: 1,
        text: `Message 1 cannot be read: MSH-2 is '${msh2}': its escape character (the third, usually \\) is ${said}, as a copy or a program that drops backslashes leaves it. Every escape sequence of the message (\\T\\, \\X..\\) is altered the same way: save the message as the sending system wrote it, or ask the sender for the file itself.`,
      }),
    ]);
  });

  it('another unreadable MSH-2 is still quoted with its count of encoding characters', async () => {
    // Three characters (`^~}`) are now read (hl7-few-encoding-characters.test.ts); one is still too few.
    const problems = await problemsOf(BASE.replace('MSH|^~\\&|', 'MSH|^|'));
    expect(problems.map((p) => p.text)).toEqual([
      expect.stringContaining("not '|' and '^' (1 encoding character where HL7 has at least 2"),
    ]);
  });
});
