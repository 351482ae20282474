/** Staging's public API: imports into reviewable batches, edits, routes, accept, exports (see README.md). */
export { StagingService, type ImportRequest, type StagingServiceDeps } from './staging-service.js';
export { buildStagingHandlers, stagingFor } from './staging-handlers.js';
export { StagingError, type StagingDeps } from './staging-deps.js';
export { stageFile, type StageFileInput, type StageResult } from './stage-file.js';
export { acceptBatch } from './accept-batch.js';
export {
  editStagedOrder,
  replaceInBatch,
  setBatchRoute,
  type OrderChange,
  type ReplaceRequest,
} from './batch-edits.js';
export { ERRORS_COLUMN, errorCsv, exampleTemplateCsv, templateCsv } from './batch-exports.js';
export { wireRequest, routeProblems, type WireRequest } from './route-request.js';
export type { FieldEdit, EditValue } from './order-edits.js';
