/** The importer's public API: CSV and HL7 v2 files into validated create-with-clinic orders (see README.md). */
export type { ImportOptions } from '../model/import-options.js';
export type {
  ImportProgress,
  ImportReport,
  ImportedOrder,
  OrderControl,
  Problem,
  Provenance,
} from '../model/imported-order.js';
export { importFile, looksLikeHl7 } from './import-file.js';
export {
  DATE_FORMATS,
  TEMPLATE_PROFILE,
  headerFingerprint,
  mappingProfileSchema,
  type DateFormat,
  type MappingProfile,
} from '../model/mapping-profile.js';
export { suggestMapping } from './suggest-mapping.js';
export { FIELDS, TEMPLATE_COLUMNS, describePath, type FieldSpec } from '../model/field-catalogue.js';
export { writeTemplateCsv, type TemplateCsvOptions } from './template-csv.js';
export { writeRde011, type RdeWriterOptions } from './rde-writer.js';
export { toCreateV2 } from './to-create-v2.js';
export { validateOrder, type ValidationContext } from './validate-order.js';
export { ACCEPTED_MESSAGE_TYPES, DEFAULT_HL7_MAP } from './hl7-field-map.js';
export { parseDate } from './date-formats.js';
