import { describe, expect, it } from 'vitest';
import {
  AUDIT_DETAIL_KEYS,
  AuditDetailsError,
  auditDetailsSchema,
  checkAuditDetails,
  passesFastChecks,
  scrubCredentials,
} from './audit-details.js';

/**
 * The fast checks an audit append runs first must never let through what the schema refuses: for every key,
 * values around every limit the schema has (lengths, ranges, integers, enums, types).
 */

const lengths = [0, 1, 19, 20, 21, 39, 40, 41, 63, 64, 65, 99, 100, 101, 199, 200, 201, 254, 255, 256, 999, 1000, 1001];
const CANDIDATES: unknown[] = [
  ...lengths.map((length) => 'x'.repeat(length)),
  ...[-1, -0, 0, 1, 99, 100, 101, 598, 599, 600, 1.5, 2 ** 53, 2 ** 53 - 1, Number.NaN, Number.POSITIVE_INFINITY],
  ...['csv', 'hl7', 'json', 'xml', 'v1', 'v2', 'v3', 'retryable', 'in-doubt', 'auth', 'rejected', 'RETRYABLE'],
  ...['electron', 'browser', 'direct', 'Browser'],
  ...['allow-list', 'allow', 'http', 'tls', 'TLS'],
  true,
  false,
  null,
  {},
  [],
  '200',
];

describe('audit details', () => {
  it('has a fast check for every key the schema allows (so the usual append never needs the schema)', () => {
    const typical: Record<string, unknown> = {};
    for (const key of AUDIT_DETAIL_KEYS) {
      const accepted = CANDIDATES.find((value) => passesFastChecks({ [key]: value }));
      expect(accepted, `no fast check accepts any value for "${key}"`).not.toBeUndefined();
      typical[key] = accepted;
    }
    expect(passesFastChecks(typical)).toBe(true);
  });

  it('never accepts in a fast check what the schema refuses', () => {
    for (const key of AUDIT_DETAIL_KEYS) {
      for (const value of CANDIDATES) {
        if (!passesFastChecks({ [key]: value })) continue;
        expect(auditDetailsSchema.safeParse({ [key]: value }).success, `${key}: ${JSON.stringify(value)}`).toBe(true);
      }
    }
  });

  it('sends unknown keys and refused values to the schema, which names the key and never the value', () => {
    expect(passesFastChecks({ surname: 'Smith' })).toBe(false);
    expect(() => checkAuditDetails({ operation: 'create', surname: 'Smith' })).toThrow(
      new AuditDetailsError(`audit details may not hold "surname"; allowed: ${AUDIT_DETAIL_KEYS.join(', ')}`),
    );
    expect(() => checkAuditDetails({ httpStatus: 700 })).toThrow(/httpStatus/);
    expect(() => checkAuditDetails({ errorMessage: 'x'.repeat(1001) })).toThrow(AuditDetailsError);
  });

  it('leaves out undefined values and scrubs credentials on the fast path as on the schema path', () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    expect(
      checkAuditDetails({ operation: 'create', remoteId: undefined, errorMessage: `echoed Bearer ${token}` }),
    ).toEqual({ operation: 'create', errorMessage: 'echoed Bearer [redacted]' });
  });

  it('scrubs a bearer token in any case and a bare JWT, and leaves text holding neither as it is', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    expect(scrubCredentials(`header authorization: bearer abc.DEF-123~`)).toBe(
      'header authorization: Bearer [redacted]',
    );
    expect(scrubCredentials(`BEARER ${jwt} then ${jwt}`)).toBe('Bearer [redacted] then [redacted-jwt]');
    expect(scrubCredentials(`token=${jwt};`)).toBe('token=[redacted-jwt];');
    const plain = 'order OUT-1 created (200): bear with us, eyes on it';
    expect(scrubCredentials(plain)).toBe(plain);
  });
});
