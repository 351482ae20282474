/**
 * Structured log lines for operators. Callers pass only operational fields (operation, status, latency, ids the
 * service assigned); as a second guard, values under keys that name secrets or patient data are masked.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const SENSITIVE_KEY =
  /token|secret|password|authorization|cookie|code_verifier|surname|firstname|name|dateofbirth|dob|email|telephone|phone|address|postcode|body/i;

export function redact(fields: LogFields | undefined): LogFields | undefined {
  if (!fields) return undefined;
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) out[key] = SENSITIVE_KEY.test(key) ? '[redacted]' : value;
  return out;
}

type Sink = (line: string) => void;

const LEFT_RAW_BY_JSON = /[\x7f-\x9f]/g;

/**
 * One log line. JSON.stringify escapes C0 controls but leaves DEL and the C1 controls raw, and a terminal runs
 * U+009B as CSI and U+009D as OSC: a watched file's name or an MLLP sender's control id in a field reached the
 * terminal of browser mode's host, `rx-batch --verbose` or the desktop app's echoed log as commands. Written as
 * `\u009b`, the line is the same JSON (docs/security.md, finding 32).
 */
export function logLine(record: Record<string, unknown>): string {
  return JSON.stringify(record).replace(LEFT_RAW_BY_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON-lines logger; the sink is injectable so tests can read exactly what would be written. */
export function createLogger(scope: string, sink: Sink = (line) => process.stderr.write(`${line}\n`)): Logger {
  const write = (level: string, message: string, fields?: LogFields) =>
    sink(logLine({ time: new Date().toISOString(), level, scope, message, ...redact(fields) }));
  return {
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/** For tests and callers that do not want logs. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
