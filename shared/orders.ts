import { z } from 'zod';
import { dmdCodeSchema } from './dmd.js';

/** Request and response shapes of the create and cancel endpoints (see ../shared/reference/order-service.md). */

const text = (max = 200) => z.string().trim().min(1).max(max);
const optionalText = (max = 200) => z.string().max(max).nullish();
/** `YYYY-MM-DD`, a real calendar date. */
export const isoDateSchema = z.iso.date();

export const addressSchema = z.object({
  address1: text(),
  address2: optionalText(),
  city: text(100),
  county: optionalText(100),
  postCode: text(16),
  countryCode: z.string().regex(/^[A-Z]{3}$/, 'a three-letter country code such as GBR'),
});
export type Address = z.infer<typeof addressSchema>;

export const prescribingDoctorSchema = z.object({
  registrationNumber: text(40),
  prescriberName: text(),
});

export const itemV1Schema = z.object({
  productId: z.number().int().nonnegative().nullish(),
  dmdCode: dmdCodeSchema,
  pack: z.number().int().positive().nullish(),
  medication: text(500),
  dosageInstructions: text(1000),
  quantity: z.number().int().positive(),
});

/** v1 `PUT /api/v1/Order/create-with-clinic`: creates the order and registers the clinic if it is new. */
export const createWithClinicV1Schema = z.object({
  customer: z.object({
    clinicAccountNumber: z.number().int().nullish(),
    title: text(20),
    firstName: text(100),
    surname: text(100),
    dateOfBirth: isoDateSchema,
    gender: text(20),
    telephone: optionalText(40),
    email: optionalText(254),
  }),
  homeAddress: addressSchema,
  deliveryAddress: addressSchema,
  prescription: z.object({
    clinicOrderId: text(64),
    clinicOrderValue: z.number().nonnegative().nullish(),
    paymentType: text(40),
    repeatsAllowed: z.number().int().nonnegative().nullish(),
    courierCode: text(20),
    currencyCode: z.string().regex(/^[A-Z]{3}$/, 'a three-letter currency code such as GBP'),
  }),
  prescribedItems: z.array(itemV1Schema).min(1, 'an order needs at least one prescribed item'),
  prescribingDoctor: prescribingDoctorSchema,
  clinicInformation: z.object({
    clinicCode: text(64),
    name: text(),
    address1: text(),
    address2: optionalText(),
    address3: optionalText(),
    address4: optionalText(),
    postcode: text(16),
    countryCode: z.string().regex(/^[A-Z]{3}$/, 'a three-letter country code such as GBR'),
    contactNumber: optionalText(40),
    contactEmail: optionalText(254),
    prescriberFeeTypeId: z.number().int().nonnegative().nullish(),
    prescriberFee: z.number().nonnegative().nullish(),
  }),
  affiliateId: optionalText(64),
});
export type CreateWithClinicV1 = z.output<typeof createWithClinicV1Schema>;
export type CreateWithClinicV1Input = z.input<typeof createWithClinicV1Schema>;

/**
 * v2 `PUT /api/v2/Order/create`, for clinics the service already knows: title, paymentType and courierCode are
 * integers from the environment's code lists, dateOfBirth is a date-time, repeats live on each item.
 */
export const createV2Schema = z.object({
  customer: z.object({
    clinicAccountNumber: z.number().int().nullish(),
    title: z.number().int().nonnegative(),
    firstName: text(100),
    surname: text(100),
    dateOfBirth: z.iso.datetime({ offset: true }),
    gender: text(20),
    telephone: optionalText(40),
    email: optionalText(254),
  }),
  homeAddress: addressSchema.nullish(),
  deliveryAddress: addressSchema,
  prescription: z.object({
    clinicOrderId: text(64),
    clinicOrderValue: z.number().nonnegative().nullish(),
    paymentType: z.number().int().nonnegative(),
    courierCode: z.number().int().nonnegative(),
    currencyCode: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .nullish(),
  }),
  prescribedItems: z
    .array(itemV1Schema.extend({ allowedRepeats: z.number().int().nonnegative().nullish() }))
    .min(1, 'an order needs at least one prescribed item'),
  prescribingDoctor: prescribingDoctorSchema,
  clinicInformation: z.object({
    clinicCode: text(64),
    allProducts: z.boolean().nullish(),
    prescriberFeeTypeId: z.number().int().nonnegative().nullish(),
    prescriberFee: z.number().nonnegative().nullish(),
  }),
});
export type CreateV2 = z.output<typeof createV2Schema>;
export type CreateV2Input = z.input<typeof createV2Schema>;

/**
 * Success body of every create endpoint. The id may come as its digits in a string (the status records give the same
 * id as text): read as the number, where such an answer left every order in doubt and looked up. At most 15 digits,
 * so it is exact; anything else (" 12", "12a", a longer id) is still not an id.
 */
export const createResponseSchema = z.object({
  orderId: z.union([
    z.number().int().positive(),
    z
      .string()
      .regex(/^[1-9]\d{0,14}$/)
      .transform(Number),
  ]),
});
export type CreateResponse = z.infer<typeof createResponseSchema>;

/** `POST /api/v2/Order/cancel` (chosen body: the pharmacy order id, scoped to the clinic). */
export const cancelRequestSchema = z.object({
  orderId: z.number().int().positive(),
  clinicCode: text(64),
  cancelReason: text(500),
});
export type CancelRequest = z.infer<typeof cancelRequestSchema>;
