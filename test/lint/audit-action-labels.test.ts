import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calls, events } from '../../shared/contract.js';
import { actionLabel } from '../../renderer/src/features/log/audit-labels.js';

/**
 * The Log screen names every action in plain words (issue #13 saw "order.in-doubt" raw). The actions are read
 * from the product sources: every quoted `word.word…` of the log's families, less the contract's call and event
 * names, which share the shape.
 */

const root = resolve(import.meta.dirname, '../..');
const FAMILIES = ['batch', 'order', 'outbox', 'signin', 'environment', 'intake', 'log'];
const ACTION = new RegExp(`'((?:${FAMILIES.join('|')})(?:\\.[a-z][a-z-]*)+)'`, 'g');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.includes('.test.'))
    .filter((entry) => !entry.parentPath.includes('testing'))
    .map((entry) => join(entry.parentPath, entry.name));
}

function writtenActions(): string[] {
  const notActions = new Set([...Object.keys(calls), ...Object.keys(events)]);
  const found = new Set<string>();
  for (const file of [...sources(join(root, 'main/core')), ...sources(join(root, 'main/cli'))]) {
    for (const [, action] of readFileSync(file, 'utf8').matchAll(ACTION)) {
      if (action && !notActions.has(action)) found.add(action);
    }
  }
  return [...found].sort();
}

describe('log action labels', () => {
  it('finds the actions the app writes (the reader itself works)', () => {
    const actions = writtenActions();
    expect(actions).toContain('order.in-doubt');
    expect(actions).toContain('order.created');
    expect(actions.length).toBeGreaterThan(40);
  });

  it.each(writtenActions())('%s has a label in plain words', (action) => {
    expect(actionLabel(action)).not.toBe(action);
    expect(actionLabel(action)).toMatch(/^[A-Z]/);
  });
});
