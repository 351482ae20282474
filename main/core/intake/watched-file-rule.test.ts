import { describe, expect, it } from 'vitest';
import type { ImportSummary } from '../../../shared/staging-views.js';
import { describeFileSenders, watchedFileRule } from './watched-file-rule.js';

const summary = (senders: string[], more = false): ImportSummary => ({
  format: 'hl7',
  encoding: 'utf-8',
  encodingDetected: true,
  rowsRead: senders.length,
  fileProblems: [],
  hl7MessageSenders: { senders, more },
});

describe('the rule of a watched file', () => {
  it('is the default for a file naming no sender, and for a message with none', () => {
    expect(watchedFileRule({ mode: 'send' }, undefined)).toEqual({ mode: 'send', senders: [], more: false });
    expect(watchedFileRule({}, undefined).mode).toBe('hold');
    expect(watchedFileRule({ mode: 'send', senders: { EPR: 'hold' } }, summary([''])).mode).toBe('send');
  });

  it('holds when any sender holds, naming only those', () => {
    const rules = { mode: 'send' as const, senders: { 'LAB^X': 'hold' as const } };
    expect(watchedFileRule(rules, summary(['EPR^A', 'LAB^X', 'LAB^Y']))).toEqual({
      mode: 'hold',
      senders: ['LAB^X'],
      more: false,
    });
  });

  it('holds a file with more senders than listed unless every rule sends', () => {
    const listed = summary(['EPR^A'], true);
    expect(watchedFileRule({ mode: 'send', senders: { LAB: 'hold' } }, listed).mode).toBe('hold');
    expect(watchedFileRule({ mode: 'hold', senders: { EPR: 'send' } }, listed).mode).toBe('hold');
    expect(watchedFileRule({ mode: 'send', senders: { EPR: 'send' } }, listed).mode).toBe('send');
    expect(describeFileSenders(watchedFileRule({ mode: 'send' }, listed))).toBe('EPR^A and more');
  });

  it('fits the audit entry: at most 200 characters', () => {
    const many = Array.from({ length: 40 }, (_, i) => `SENDER-${i}^FACILITY`);
    const text = describeFileSenders(watchedFileRule({ mode: 'send' }, summary(many)))!;
    expect(text.length).toBe(200);
    expect(text.endsWith('… and more')).toBe(true);
    expect(describeFileSenders(watchedFileRule({ mode: 'send' }, summary([''])))).toBe('(no sender)');
  });
});
