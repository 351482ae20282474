/**
 * Preset dictionaries for packed request bodies (`request-body-codec.ts`). A body of about 900 bytes is too short
 * for deflate to find much to repeat within it, so the compressor starts from text shaped like a body: the field
 * names in the order the wire JSON writes them (the schema's order, shared/orders.ts) and values many orders share.
 * The values are the contract's own examples (../shared/reference/order-service.md) and common words, not any
 * one clinic's data. Deflate refers back to the nearest copy, so what is most common comes last.
 *
 * A dictionary is part of its format's definition: once a store holds rows packed with it, it can never change
 * (rows would inflate to garbage; their checksum would catch it, but the body would be lost). To improve one, add
 * a new format number with a new dictionary and keep this one for reading; `request-body-codec.test.ts` pins each
 * dictionary's SHA-256.
 */

const ADDRESS_FULL = '{"address1":"","address2":"","city":"","county":"","postCode":"","countryCode":"GBR"}';
const ADDRESS = '{"address1":"","city":"","postCode":"","countryCode":"GBR"}';

/** Format 1 (v1 create-with-clinic and v2 create JSON bodies). */
export const JSON_BODY_DICTIONARY_1 = [
  // Words of names, addresses, medications and dosages.
  ' Medical Centre',
  ' Health Centre',
  ' Surgery',
  ' Pharmacy',
  ' Practice',
  ' Clinic',
  ' Hospital',
  ' Ltd',
  ' Street',
  ' Road',
  ' Avenue',
  ' Lane',
  ' Close',
  ' Drive',
  ' Court',
  ' Place',
  ' Gardens',
  ' Crescent',
  ' Way',
  ' Park',
  ' House',
  'Flat ',
  'Apartment ',
  'Unit ',
  ' Cottage',
  ' Farm',
  'North',
  'South',
  'East',
  'West',
  'Upper',
  'Lower',
  ' Green',
  ' Hill',
  ' View',
  '@gmail.com',
  '@hotmail.com',
  '@hotmail.co.uk',
  '@outlook.com',
  '@yahoo.co.uk',
  '@icloud.com',
  '@nhs.net',
  '.co.uk',
  '.com',
  '.org.uk',
  '+44',
  '07',
  '01',
  '02',
  'mg tablets',
  'mg capsules',
  'mg/ml oral solution',
  'mg/5ml oral suspension',
  'micrograms',
  ' modified-release',
  ' gastro-resistant',
  ' film-coated',
  ' soluble',
  ' cream',
  ' ointment',
  ' gel',
  ' eye drops',
  ' nasal spray',
  ' inhaler',
  ' injection',
  ' patches',
  ' sachets',
  'mg ',
  'ml ',
  'g ',
  '%',
  'Take one tablet ',
  'Take two tablets ',
  'Take one capsule ',
  'Take two capsules ',
  'Apply ',
  'Use ',
  'once a day',
  'twice a day',
  'three times a day',
  'four times a day',
  'every four hours',
  'every six hours',
  'in the morning',
  'at night',
  'with food',
  'before food',
  'after food',
  'when required',
  'as directed',
  'up to ',
  ' daily',
  ' weekly',
  ' for ',
  ' days',
  // v2 create: numeric codes, date-time birth dates, repeats on items, no clinic address.
  '{"customer":{"clinicAccountNumber":null,"title":1,"firstName":"","surname":"","dateOfBirth":"T00:00:00Z",' +
    `"gender":"Male","telephone":"","email":""},"homeAddress":${ADDRESS},"deliveryAddress":${ADDRESS},` +
    '"prescription":{"clinicOrderId":"","clinicOrderValue":0,"paymentType":1,"courierCode":1,"currencyCode":"GBP"},' +
    '"prescribedItems":[{"productId":null,"dmdCode":0,"pack":1,"medication":"","dosageInstructions":"",' +
    '"quantity":1,"allowedRepeats":0}],"prescribingDoctor":{"registrationNumber":"","prescriberName":"Dr "},' +
    '"clinicInformation":{"clinicCode":"","allProducts":true,"prescriberFeeTypeId":0,"prescriberFee":0}}',
  // Values of the contract's examples and the usual choices.
  '"Mr"',
  '"Mrs"',
  '"Miss"',
  '"Ms"',
  '"Mx"',
  '"Dr"',
  '"Male"',
  '"Female"',
  '"Other"',
  '"Unknown"',
  '"GBR"',
  '"GBP"',
  '"Account"',
  '"RMT24"',
  'null',
  'true',
  'false',
  '"19',
  '"20',
  // v1 create-with-clinic, every field (optional ones included), then with only the required ones: the common case.
  '{"customer":{"clinicAccountNumber":null,"title":"","firstName":"","surname":"","dateOfBirth":"","gender":"",' +
    `"telephone":"","email":""},"homeAddress":${ADDRESS_FULL},"deliveryAddress":${ADDRESS_FULL},` +
    '"prescription":{"clinicOrderId":"","clinicOrderValue":0,"paymentType":"","repeatsAllowed":0,"courierCode":"",' +
    '"currencyCode":"GBP"},"prescribedItems":[{"productId":null,"dmdCode":0,"pack":1,"medication":"",' +
    '"dosageInstructions":"","quantity":1}],"prescribingDoctor":{"registrationNumber":"","prescriberName":""},' +
    '"clinicInformation":{"clinicCode":"","name":"","address1":"","address2":"","address3":"","address4":"",' +
    '"postcode":"","countryCode":"GBR","contactNumber":"","contactEmail":"","prescriberFeeTypeId":0,' +
    '"prescriberFee":0},"affiliateId":""}',
  '{"customer":{"title":"Mr","firstName":"","surname":"","dateOfBirth":"19","gender":"Male","telephone":"07",' +
    `"email":"@"},"homeAddress":${ADDRESS},"deliveryAddress":${ADDRESS},"prescription":{"clinicOrderId":"",` +
    '"paymentType":"Account","courierCode":"RMT24","currencyCode":"GBP"},"prescribedItems":[{"dmdCode":0,' +
    '"pack":1,"medication":"","dosageInstructions":"","quantity":1},{"dmdCode":0,"pack":1,"medication":"",' +
    '"dosageInstructions":"","quantity":1}],"prescribingDoctor":{"registrationNumber":"","prescriberName":"Dr "},' +
    '"clinicInformation":{"clinicCode":"","name":"","address1":"","postcode":"","countryCode":"GBR"}}',
].join('');

/** Format 2 (HL7 bodies: RDE^O11 and the messages the HL7 route forwards, segments ending in CR). */
export const HL7_BODY_DICTIONARY_1 = [
  ' Medical Centre',
  ' Surgery',
  ' Pharmacy',
  ' Clinic',
  ' Street',
  ' Road',
  ' Avenue',
  ' Lane',
  ' Close',
  ' Drive',
  'Flat ',
  '@gmail.com',
  '@hotmail.co.uk',
  '@outlook.com',
  '@nhs.net',
  '.co.uk',
  '.com',
  'mg tablets',
  'mg capsules',
  'mg/5ml oral suspension',
  ' cream',
  ' inhaler',
  'Take one tablet ',
  'Take two tablets ',
  'once a day',
  'twice a day',
  'three times a day',
  'four times a day',
  'when required',
  'as directed',
  'up to ',
  '\rNTE|1||',
  '\rAL1|1||',
  '\rPV1|1|O',
  '\rPD1|',
  '\rTQ1|1||',
  '\rRXR|PO',
  '\rRXC|',
  '\rOBX|1|',
  '|RDE^O01|',
  '|2.3|',
  '|2.4|',
  '|2.5.1|',
  '|AL|NE',
  '|ORM^O01|',
  '|OMP^O09^OMP_O09|',
  '^ISO',
  '^L|',
  '^D|',
  '^^^^^^^^^',
  '^HL7',
  '^99',
  '|P|2.5',
  '^^^',
  '^M',
  '^F',
  '|M|',
  '|F|',
  '|U|',
  'MSH|^~\\&|||||||RDE^O11^RDE_O11||P|2.5\rPID|1||||^^^^Mr||19|M|||^^^^^GBR^H~^^^^^GBR^M||07^PRN^PH~' +
    '^NET^Internet^@\rORC|NW|||||||||||^Dr |||||||||^^^^^^^^^|^^^^^GBR|^WPN^PH~^NET^Internet^@\rRXE||^^DMD|||||' +
    '^|||1||0\rRXE||^^DMD|||||^|||1||0\r',
].join('');
