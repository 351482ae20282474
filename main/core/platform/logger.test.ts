import { expect, it } from 'vitest';
import { createLogger } from './logger.js';

// A watched file's name or an MLLP sender's control id in a log field: JSON.stringify left DEL and the C1 controls
// (U+009B CSI, U+009D OSC, which xterm runs in UTF-8 too) raw, so they reached a terminal as commands (finding 32).
it('writes no control character into a line, and the line reads back as the exact values', () => {
  const lines: string[] = [];
  const logger = createLogger('test', (line) => lines.push(line));
  const file = 'orders\u009b2J\u009d52;c;cm0gLXJmIH4=\u0007\u007f.hl7';
  const controlId = '\u001b]0;title\u0007MSG\u0085';
  logger.warn('intake: a watched file could not be imported', { file, controlId });

  expect(lines).toHaveLength(1);
  // eslint-disable-next-line no-control-regex
  expect(lines[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  expect(lines[0]).toContain('orders\\u009b2J\\u009d52;c;');
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', scope: 'test', file, controlId });
});
