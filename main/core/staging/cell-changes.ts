import type { Problem } from '../model/imported-order.js';
import type { CellChange } from '../store/staged-edits-repo.js';
import type { StagedOrder } from '../store/staged-orders-repo.js';
import type { EditOutcome } from './order-edits.js';

/**
 * What an edit changed, cell by cell, for the batch's edit history (edit-history.ts), and how a value is put back
 * at its body path.
 */

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Paths come from bodies (a whole-body edit names every leaf) and are kept in the edit history, so a part may be
 * `__proto__` or `constructor`: only own properties are followed, and values are defined rather than assigned
 * (assigning to `__proto__` replaces the object's prototype), or an undo could write onto Object.prototype
 * (docs/security.md, finding 16).
 */
const own = (container: object, key: string): unknown =>
  Object.hasOwn(container, key) ? (container as Obj)[key] : undefined;
const put = (container: object, key: string, value: unknown): void => {
  Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true });
};

/** A value at a dotted body path (array indices as numbers), or undefined. */
export function valueAtPath(body: unknown, path: string): unknown {
  let current: unknown = body;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = own(current, part);
  }
  return current;
}

/**
 * Sets (or, for undefined, removes) a value at a dotted body path, making the objects and arrays on the way. An
 * item left empty at the end of `prescribedItems` by a removal is dropped (the undo of an added item).
 */
export function setAtPath(body: Obj, path: string, value: unknown): void {
  const parts = path.split('.');
  let target: Obj | unknown[] = body;
  for (let i = 0; i < parts.length - 1; i += 1) {
    const part = parts[i]!;
    const numeric = /^\d+$/.test(parts[i + 1]!);
    const container = target as Obj;
    let next = own(container, part);
    if (next === null || typeof next !== 'object') {
      if (value === undefined) return;
      next = numeric ? [] : {};
      put(container, part, next);
    }
    target = next as Obj | unknown[];
  }
  const leaf = parts.at(-1)!;
  const container = target as Obj;
  if (value === undefined) delete container[leaf];
  else put(container, leaf, value);
  const items = body.prescribedItems;
  if (Array.isArray(items)) {
    while (items.length > 0 && isObject(items.at(-1)) && Object.keys(items.at(-1) as Obj).length === 0) items.pop();
  }
}

/** The cells an edit changed, with what the step needs to take it back and make it again. */
export function cellChanges(before: StagedOrder, outcome: EditOutcome, cleared: readonly Problem[]): CellChange[] {
  const paths = [...new Set(outcome.changed)];
  const unplaced = [...cleared];
  return paths.map((path, index) => {
    const mine = (problem: Problem) =>
      index === paths.length - 1 ||
      (problem.field !== undefined &&
        (problem.field === path || problem.field.startsWith(`${path}.`) || path.startsWith(`${problem.field}.`)));
    const placed = unplaced.filter(mine);
    for (const problem of placed) unplaced.splice(unplaced.indexOf(problem), 1);
    return {
      stagedOrderId: before.id,
      path,
      oldValue: valueAtPath(before.body, path),
      newValue: valueAtPath(outcome.body, path),
      oldOrigin: before.provenance[path],
      newOrigin: outcome.provenance[path],
      cleared: placed,
      raised: outcome.problems.filter((problem) => problem.field === path),
    };
  });
}
