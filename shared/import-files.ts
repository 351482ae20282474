/**
 * The file name extensions the import dialogs offer, and that a dropped folder or a launch ("Open with") takes:
 * CSV and tab-separated batches, HL7 v2 messages (`.hl7`, `.er7` as HAPI and the NIST tools write them, and `.txt`,
 * as clinic systems often export them), and JSON arrays of orders, which the importer reads as well. The core reads
 * each file by its content, never by this name.
 */
export const IMPORT_EXTENSIONS = ['csv', 'tsv', 'txt', 'hl7', 'er7', 'json'] as const;
