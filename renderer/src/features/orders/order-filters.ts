import type { CallInput } from '../../../../shared/contract.js';
import { ORDER_STATE_NAMES, type OrderStateName } from '../../../../shared/order-views.js';

/** The orders screen's filters as the form holds them (empty text: no filter). */
export interface OrderFilters {
  clinicCode: string;
  clinicOrderId: string;
  /** Matched in main against the stored orders (case and accents ignored); never shown in the list. */
  patientSurname: string;
  state: OrderStateName | '';
  remoteStatus: string;
  createdFrom: string;
  createdTo: string;
}

export const NO_FILTERS: OrderFilters = {
  clinicCode: '',
  clinicOrderId: '',
  patientSurname: '',
  state: '',
  remoteStatus: '',
  createdFrom: '',
  createdTo: '',
};

export function isOrderState(value: string): value is OrderStateName {
  return (ORDER_STATE_NAMES as readonly string[]).includes(value);
}

/** The instant (ISO, UTC) the local day `days` after the date `YYYY-MM-DD` starts. */
export function startOfLocalDay(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, day + days).toISOString();
}

/** The list call for one page: only the filters given, trimmed, so an empty field never filters on "". */
export function toListInput(
  environmentId: string,
  filters: OrderFilters,
  page: { afterId?: number; limit: number },
): CallInput<'orders.list'> {
  const text = (value: string) => value.trim() || undefined;
  const input: CallInput<'orders.list'> = { environmentId, limit: page.limit };
  const clinicCode = text(filters.clinicCode);
  const clinicOrderId = text(filters.clinicOrderId);
  const remoteStatus = text(filters.remoteStatus);
  const patientSurname = text(filters.patientSurname);
  if (clinicCode) input.clinicCode = clinicCode;
  if (clinicOrderId) input.clinicOrderId = clinicOrderId;
  if (patientSurname) input.patientSurname = patientSurname;
  if (remoteStatus) input.remoteStatus = remoteStatus;
  if (filters.state) input.states = [filters.state];
  // The admin's days: from the start of the first to the start of the day after the last, in this computer's time.
  if (filters.createdFrom) input.createdAtFrom = startOfLocalDay(filters.createdFrom, 0);
  if (filters.createdTo) input.createdAtBefore = startOfLocalDay(filters.createdTo, 1);
  if (page.afterId !== undefined) input.afterId = page.afterId;
  return input;
}
