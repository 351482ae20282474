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

  it('finds two-letter names as whole words, and a date of birth however the service writes its time', () => {
    const v1 = JSON.stringify({
      customer: { firstName: 'Jo', surname: 'Li', dateOfBirth: '1980-01-15', telephone: '07700900123' },
    });
    const error = withoutPatientEcho(
      {
        kind: 'rejected',
        status: 400,
        message: 'Customer Jo Li (DOB 1980-01-15T00:00:00, tel 07700900123) not registered; Lithium, Joint, 19800115',
        fields: [{ field: 'customer.dateOfBirth', message: "'1980-01-15T00:00:00.000+01:00' is after … for Jo Li" }],
      },
      v1,
    );
    expect(error).toMatchObject({
      message: 'Customer [patient] [patient] (DOB [patient], tel [patient]) not registered; Lithium, Joint, [patient]',
      fields: [{ message: "'[patient]' is after … for [patient] [patient]" }],
    });
    // A two-letter value that is not a name (a county code, a title) is not looked for.
    expect(patientValues(JSON.stringify({ customer: { title: 'Dr', county: 'NY', surname: 'Wu' } }))).toEqual(['Wu']);
  });

  it('finds a v2 date of birth echoed without its time, and an HL7 one echoed as ISO', () => {
    const v2 = JSON.stringify({
      customer: { firstName: 'Alex', surname: 'Example', dateOfBirth: '1980-01-15T00:00:00Z' },
    });
    const said = {
      kind: 'rejected' as const,
      status: 400,
      message: 'Alex Example born 1980-01-15 is not known',
      fields: [],
    };
    expect(withoutPatientEcho(said, v2).message).toBe('[patient] [patient] born [patient] is not known');
    const hl7 = 'MSH|^~\\&|A|B\rPID|1||||Ng^Ed^^^Mr||19800115|M\rORC|NW|X-1';
    expect(withoutPatientEcho({ ...said, message: 'Ed Ng born 1980-01-15T00:00:00 refused' }, hl7).message).toBe(
      '[patient] [patient] born [patient] refused',
    );
  });
});
