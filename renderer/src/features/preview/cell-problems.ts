import type { ProblemView } from '../../../../shared/staging-views.js';
import { fieldOfPath } from './order-fields.js';

/** An order's problems sorted to where the grid shows them. */
export interface PlacedProblems {
  /** By concrete body path of a grid cell (`homeAddress.postCode`, `prescribedItems.1.dmdCode`). */
  byPath: Map<string, ProblemView[]>;
  /** Problems of the whole order, or of a field the grid has no column for: shown on the order's first cell. */
  order: ProblemView[];
  errors: number;
  warnings: number;
}

export function placeProblems(problems: readonly ProblemView[]): PlacedProblems {
  const byPath = new Map<string, ProblemView[]>();
  const order: ProblemView[] = [];
  let errors = 0;
  let warnings = 0;
  for (const problem of problems) {
    if (problem.severity === 'error') errors += 1;
    else warnings += 1;
    const field = problem.field !== undefined ? fieldOfPath(problem.field) : undefined;
    if (problem.field !== undefined && field?.inGrid) {
      const list = byPath.get(problem.field);
      if (list) list.push(problem);
      else byPath.set(problem.field, [problem]);
    } else {
      order.push(problem);
    }
  }
  return { byPath, order, errors, warnings };
}

/** The worst severity in a list (errors outrank warnings), or undefined for none. */
export function worstSeverity(problems: readonly ProblemView[] | undefined): 'error' | 'warning' | undefined {
  if (!problems?.length) return undefined;
  return problems.some((problem) => problem.severity === 'error') ? 'error' : 'warning';
}

/** Counts as a short phrase: "2 errors, 1 warning". */
export function countPhrase(errors: number, warnings: number): string {
  const parts: string[] = [];
  if (errors) parts.push(`${errors} ${errors === 1 ? 'error' : 'errors'}`);
  if (warnings) parts.push(`${warnings} ${warnings === 1 ? 'warning' : 'warnings'}`);
  return parts.join(', ');
}
