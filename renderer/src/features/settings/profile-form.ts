import {
  DEFAULT_CODE_LISTS,
  DEFAULT_SENDING_PACE,
  environmentProfileSchema,
  ORDER_SERVICE_SCOPES,
  type EnvironmentProfileView,
  type EnvironmentView,
  type Grant,
} from '../../../../shared/environment.js';

/** An API profile as the settings form edits it: text fields, lists one item per line, maps as `Text = number`. */
export interface ProfileForm {
  id: string;
  name: string;
  kind: EnvironmentView['kind'];
  apiBaseUrl: string;
  issuer: string;
  clientId: string;
  grant: Grant;
  scopes: string[];
  createWithClinicVersion: 'v1' | 'v2';
  requestTimeoutSeconds: string;
  concurrency: string;
  ratePerSecond: string;
  pollIntervalSeconds: string;
  titles: string;
  genders: string;
  paymentTypes: string;
  courierCodes: string;
  currencyCodes: string;
  v2Title: string;
  v2PaymentType: string;
  v2CourierCode: string;
}

export type FormErrors = Partial<Record<keyof ProfileForm, string>>;

const lines = (list: readonly string[]) => list.join('\n');
const mapLines = (map: Record<string, number>) =>
  Object.entries(map)
    .map(([text, code]) => `${text} = ${code}`)
    .join('\n');

export function toForm(environment: EnvironmentView | undefined): ProfileForm {
  const codeLists = environment?.codeLists ?? DEFAULT_CODE_LISTS;
  return {
    id: environment?.id ?? '',
    name: environment?.name ?? '',
    kind: environment?.kind ?? 'remote',
    apiBaseUrl: environment?.apiBaseUrl ?? 'https://',
    issuer: environment?.issuer ?? 'https://',
    clientId: environment?.clientId ?? '',
    grant: environment?.grant ?? 'device',
    scopes: environment?.scopes ?? [...ORDER_SERVICE_SCOPES],
    createWithClinicVersion: environment?.createWithClinicVersion ?? 'v1',
    requestTimeoutSeconds: String((environment?.requestTimeoutMs ?? 30_000) / 1000),
    concurrency: String(environment?.concurrency ?? DEFAULT_SENDING_PACE.concurrency),
    ratePerSecond: String(environment?.ratePerSecond ?? DEFAULT_SENDING_PACE.ratePerSecond),
    pollIntervalSeconds: String((environment?.pollIntervalMs ?? DEFAULT_SENDING_PACE.pollIntervalMs) / 1000),
    titles: lines(codeLists.titles),
    genders: lines(codeLists.genders),
    paymentTypes: lines(codeLists.paymentTypes),
    courierCodes: lines(codeLists.courierCodes),
    currencyCodes: lines(codeLists.currencyCodes),
    v2Title: mapLines(codeLists.v2Title),
    v2PaymentType: mapLines(codeLists.v2PaymentType),
    v2CourierCode: mapLines(codeLists.v2CourierCode),
  };
}

function splitLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

function parseMap(text: string): Record<string, number> | string {
  const map: Record<string, number> = {};
  for (const line of splitLines(text)) {
    // Split at the last "=", not by one pattern over the line: `(.+?)\s*=` takes time in the square of a long line.
    const at = line.lastIndexOf('=');
    const name = line.slice(0, Math.max(at, 0)).trim();
    const number = line.slice(at + 1).trim();
    if (at < 0 || name === '' || !/^\d{1,9}$/.test(number)) return `"${line}" is not of the form Text = number`;
    map[name] = Number(number);
  }
  return map;
}

function number(text: string): number {
  return text.trim() === '' ? NaN : Number(text);
}

/** Which form field a profile path belongs to, for showing the schema's message beside the right input. */
function fieldOf(path: readonly PropertyKey[]): keyof ProfileForm {
  const [first, second] = path.map(String);
  const direct: Record<string, keyof ProfileForm> = {
    requestTimeoutMs: 'requestTimeoutSeconds',
    pollIntervalMs: 'pollIntervalSeconds',
  };
  if (first === 'codeLists' && second) return second as keyof ProfileForm;
  return direct[first ?? ''] ?? (first as keyof ProfileForm);
}

/** The form as a profile the contract accepts, or a message per field that is wrong. */
export function fromForm(
  form: ProfileForm,
): { ok: true; profile: EnvironmentProfileView } | { ok: false; errors: FormErrors } {
  const errors: FormErrors = {};
  const maps = {
    v2Title: parseMap(form.v2Title),
    v2PaymentType: parseMap(form.v2PaymentType),
    v2CourierCode: parseMap(form.v2CourierCode),
  };
  for (const [key, value] of Object.entries(maps))
    if (typeof value === 'string') errors[key as keyof FormErrors] = value;
  const candidate = {
    id: form.id.trim(),
    name: form.name.trim(),
    kind: form.kind,
    apiBaseUrl: form.apiBaseUrl.trim(),
    issuer: form.issuer.trim(),
    clientId: form.clientId.trim(),
    grant: form.grant,
    scopes: form.scopes,
    createWithClinicVersion: form.createWithClinicVersion,
    requestTimeoutMs: Math.round(number(form.requestTimeoutSeconds) * 1000),
    concurrency: number(form.concurrency),
    ratePerSecond: number(form.ratePerSecond),
    pollIntervalMs: Math.round(number(form.pollIntervalSeconds) * 1000),
    codeLists: {
      titles: splitLines(form.titles),
      genders: splitLines(form.genders),
      paymentTypes: splitLines(form.paymentTypes),
      courierCodes: splitLines(form.courierCodes),
      currencyCodes: splitLines(form.currencyCodes),
      v2Title: typeof maps.v2Title === 'string' ? {} : maps.v2Title,
      v2PaymentType: typeof maps.v2PaymentType === 'string' ? {} : maps.v2PaymentType,
      v2CourierCode: typeof maps.v2CourierCode === 'string' ? {} : maps.v2CourierCode,
    },
  };
  const parsed = environmentProfileSchema.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = fieldOf(issue.path);
      errors[field] ??= readable(field, issue.message);
    }
  }
  if (Object.keys(errors).length > 0 || !parsed.success) return { ok: false, errors };
  return { ok: true, profile: parsed.data };
}

/** The schema speaks in milliseconds and types; the form in seconds and words. */
function readable(field: keyof ProfileForm, message: string): string {
  switch (field) {
    case 'requestTimeoutSeconds':
      return 'Between 1 and 300 seconds.';
    case 'pollIntervalSeconds':
      return 'Between 5 seconds and 1 day (86400 seconds).';
    case 'concurrency':
      return 'A whole number from 1 to 16.';
    case 'ratePerSecond':
      return 'More than 0 and at most 100.';
    case 'apiBaseUrl':
      // The https rule says its own reason (shared/loopback.ts); anything else is not a URL at all.
      return message.includes('http') ? message : 'A full address, such as https://orderservice.example/.';
    case 'issuer':
      return message.includes('http') ? message : 'A full address, such as https://identity.example/.';
    case 'id':
      return 'An id of 1 to 40 lower-case letters, digits and dashes, not starting with a dash, such as cloudrx-test.';
    case 'scopes':
      return 'Choose at least one scope.';
    case 'name':
      return 'A name of 1 to 80 characters.';
    default:
      return message;
  }
}
