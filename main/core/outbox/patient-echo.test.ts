import { describe, expect, it } from 'vitest';
import { patientValues, withoutPatientEcho } from './patient-echo.js';

describe("a service's refusal quoting the patient", () => {
  it('loses the JSON body patient values, in any case, and keeps the rest', () => {
    const body = JSON.stringify({
      customer: { firstName: 'Alex', surname: "O'Brien-Smith", dateOfBirth: '1980-01-15', title: 'Ms' },
      homeAddress: { address1: '1 High Street', postCode: 'LS1 4AP' },
      clinicInformation: { clinicCode: 'CLINIC-A', name: 'Bench Clinic' },
    });
    const error = withoutPatientEcho(
      {
        kind: 'rejected',
        status: 400,
        message:
          "o'brien-smith, ALEX (1980-01-15) at 1 High Street: postcode 'LS1 4AP' unknown for CLINIC-A; Alexander",
        fields: [{ field: 'customer.surname', message: "O'Brien-Smith is too long" }],
      },
      body,
    );
    expect(error).toEqual({
      kind: 'rejected',
      status: 400,
      message: "[patient], [patient] ([patient]) at [patient]: postcode '[patient]' unknown for CLINIC-A; Alexander",
      fields: [{ field: 'customer.surname', message: '[patient] is too long' }],
    });
  });

  it("reads an HL7 order's patient from its PID", () => {
    const hl7 = 'MSH|^~\\&|A|B\rPID|1||||Example^Alex^^^Ms||19800115|F\rORC|NW|X-1';
    expect(patientValues(hl7)).toEqual(expect.arrayContaining(['Example', 'Alex', '19800115']) as unknown);
    expect(patientValues(hl7)).not.toContain('X-1');
  });
});
