import type { Problem } from '../model/imported-order.js';

/**
 * Where a mapping profile for a CSV layout comes from, said when a file is refused for want of one (csv.noHeader)
 * somewhere that cannot make one: the CLI's import and a watched folder's problems file. The app's Import screen
 * offers "Map this layout" itself.
 */
export function layoutProfileHint(problems: readonly Pick<Problem, 'code'>[]): string | undefined {
  if (!problems.some((problem) => problem.code === 'csv.noHeader')) return undefined;
  return (
    "A mapping profile for a layout is made on the app's Import screen (the CLI and `rx-batch serve` read it from " +
    'the same data directory); for another data directory, `rx-batch profile export NAME FILE` beside the app and ' +
    '`rx-batch profile import FILE` there bring it over.'
  );
}
