import { describe, expect, it, vi } from 'vitest';
import type { z } from 'zod';
import { maxEntriesOf } from '../../shared/bounded-record.js';
import { calls } from '../../shared/contract.js';
import { CODE_LIST_MAX, CODE_MAX, DEFAULT_SENDING_PACE, SCOPES_MAX, SCOPE_MAX } from '../../shared/environment.js';
import { handlersWith } from '../../test/support/call-handlers.js';
import { LOCAL } from '../core/store/testing/store-fixtures.js';
import { dispatchCall } from './dispatch.js';

// Every text, list and map a call takes has a bound of its own: the 1 MB message cap alone let one field hold
// hundreds of thousands of entries (an environment's scopes and code lists were saved, and kept, so).

interface Def {
  type: string;
  checks?: Array<{ _zod: { def: { check: string } } }>;
  [key: string]: unknown;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;
const hasMax = (def: Def) =>
  (def.checks ?? []).some((check) => ['max_length', 'length_equals'].includes(check._zod.def.check));

/** The paths of an input schema whose strings, arrays or records have no maximum. */
function unbounded(schema: z.ZodType, path: string, out: string[]): string[] {
  const def = defOf(schema);
  const inner = (key: string) => unbounded(def[key] as z.ZodType, path, out);
  switch (def.type) {
    case 'string':
      if (!hasMax(def)) out.push(`${path} (text)`);
      break;
    case 'array':
      if (!hasMax(def)) out.push(`${path} (list)`);
      unbounded(def.element as z.ZodType, `${path}[]`, out);
      break;
    case 'record':
      if (maxEntriesOf(schema) === undefined) out.push(`${path} (map)`);
      unbounded(def.keyType as z.ZodType, `${path} key`, out);
      unbounded(def.valueType as z.ZodType, `${path}{}`, out);
      break;
    case 'object':
      for (const [key, value] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        unbounded(value, `${path}.${key}`, out);
      }
      break;
    case 'union':
      (def.options as z.ZodType[]).forEach((option) => unbounded(option, path, out));
      break;
    case 'tuple':
      (def.items as z.ZodType[]).forEach((item, i) => unbounded(item, `${path}[${i}]`, out));
      break;
    case 'intersection':
      inner('left');
      inner('right');
      break;
    case 'pipe':
      inner('in');
      break;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      inner('innerType');
      break;
    case 'lazy':
      unbounded((def.getter as () => z.ZodType)(), path, out);
      break;
  }
  return out;
}

const profile = { ...LOCAL, ...DEFAULT_SENDING_PACE };

async function save(environment: unknown) {
  const core = vi.fn();
  const result = await dispatchCall(handlersWith({ 'environments.save': core }), 'environments.save', {
    environment,
    create: true,
  });
  expect(core).not.toHaveBeenCalled();
  return result;
}

describe('the contract bounds what a call takes', () => {
  it('gives every text, list and map in every call input a maximum of its own', () => {
    const found = Object.entries(calls).flatMap(([name, call]) => unbounded(call.input as z.ZodType, name, []));
    expect(found).toEqual([]);
  });

  it('accepts an environment at its bounds', () => {
    const input = {
      environment: {
        ...profile,
        scopes: Array.from({ length: SCOPES_MAX }, (_, i) => `scope-${i}`.padEnd(SCOPE_MAX, 'x')),
        codeLists: { ...profile.codeLists, titles: Array.from({ length: CODE_LIST_MAX }, (_, i) => `T${i}`) },
      },
      create: true,
    };
    expect(calls['environments.save'].input.safeParse(input).success).toBe(true);
  });

  it.each([
    ['too many scopes', { scopes: Array.from({ length: SCOPES_MAX + 1 }, (_, i) => `s${i}`) }, 'environment.scopes'],
    ['a scope too long', { scopes: ['x'.repeat(SCOPE_MAX + 1)] }, 'environment.scopes.0'],
    [
      'too many titles',
      { codeLists: { ...profile.codeLists, titles: Array.from({ length: CODE_LIST_MAX + 1 }, (_, i) => `T${i}`) } },
      'environment.codeLists.titles',
    ],
    [
      'a courier code too long',
      { codeLists: { ...profile.codeLists, courierCodes: ['C'.repeat(CODE_MAX + 1)] } },
      'environment.codeLists.courierCodes.0',
    ],
    [
      'too many v2 titles',
      {
        codeLists: {
          ...profile.codeLists,
          v2Title: Object.fromEntries(Array.from({ length: CODE_LIST_MAX + 1 }, (_, i) => [`T${i}`, i])),
        },
      },
      'environment.codeLists.v2Title',
    ],
    ['an issuer too long', { issuer: `https://id.example/${'p'.repeat(300)}` }, 'environment.issuer'],
  ])('refuses %s as invalid-input naming the field, before the core', async (_label, change, path) => {
    const result = await save({ ...profile, ...change });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('invalid-input');
      expect(result.error.issues?.map((issue) => issue.path)).toContain(path);
    }
  });
});
