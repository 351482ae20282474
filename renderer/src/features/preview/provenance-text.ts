import type { ProvenanceView } from '../../../../shared/staging-views.js';
import { formatDateTime } from '../format/format-date.js';

/** Where a value came from, as one sentence (the HL7 segment itself is shown separately, as code). */
export function describeProvenance(provenance: ProvenanceView | undefined): string {
  if (!provenance) return 'Not in the file (left blank or filled by the importer).';
  switch (provenance.kind) {
    case 'csv':
      return `${provenance.file}, line ${provenance.row}, column ${provenance.column}`;
    case 'hl7':
      return `${provenance.file}, message ${provenance.message}, field ${provenance.path}`;
    case 'constant':
      return `A constant of the mapping profile "${provenance.profile}" (${provenance.column})`;
    case 'edited': {
      const at = formatDateTime(provenance.at);
      return provenance.was
        ? `Edited here at ${at}; was ${describeProvenance(provenance.was)}`
        : `Edited here at ${at}`;
    }
  }
}

/** The HL7 segment a value came from, when it came from one (directly or before an edit). */
export function provenanceSegment(provenance: ProvenanceView | undefined): string | undefined {
  if (!provenance) return undefined;
  if (provenance.kind === 'hl7') return provenance.segment;
  if (provenance.kind === 'edited' && provenance.was?.kind === 'hl7') return provenance.was.segment;
  return undefined;
}
