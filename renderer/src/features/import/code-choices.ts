import type { CodeLists } from '../../../../shared/environment.js';

/**
 * What an HL7 mapping profile may give for the fields an order message never carries (payment type, courier,
 * currency): the environment's code lists, and for the courier also the service's courier list when it could be
 * read. Chosen, not typed: a typo would be an error on every order of the next file.
 */

export const CODE_LIST_FIELDS = {
  paymentType: 'paymentTypes',
  courierCode: 'courierCodes',
  currencyCode: 'currencyCodes',
} as const satisfies Record<string, keyof CodeLists>;

export type CodeListField = keyof typeof CODE_LIST_FIELDS;

export const isCodeListField = (column: string): column is CodeListField => Object.hasOwn(CODE_LIST_FIELDS, column);

export interface CodeChoice {
  value: string;
  label: string;
}

/**
 * The choices for one field: none (the message's own value, if any, is used), then the environment's codes, then
 * (couriers) the service's codes the list lacks, then a value saved earlier that neither has, said to be so.
 */
export function codeChoices(
  column: CodeListField,
  codeLists: CodeLists,
  serviceCouriers: readonly string[] | undefined,
  current: string,
): CodeChoice[] {
  const choices: CodeChoice[] = [{ value: '', label: '(none)' }];
  const known = new Set<string>();
  for (const code of codeLists[CODE_LIST_FIELDS[column]]) {
    if (known.has(code)) continue;
    known.add(code);
    choices.push({ value: code, label: code });
  }
  if (column === 'courierCode') {
    for (const code of serviceCouriers ?? []) {
      if (known.has(code)) continue;
      known.add(code);
      choices.push({ value: code, label: `${code} (from the service)` });
    }
  }
  if (current !== '' && !known.has(current)) choices.push({ value: current, label: `${current} (not in the list)` });
  return choices;
}
