import type Database from 'better-sqlite3';
import * as outbox from './001-outbox.js';
import * as auditLog from './002-audit-log.js';
import * as orderItems from './003-order-items.js';
import * as outboxRetries from './004-outbox-retries.js';
import * as staging from './005-staging.js';
import * as outboxPause from './006-outbox-pause.js';
import * as enrichment from './007-enrichment.js';
import * as unfinishedImports from './008-unfinished-imports.js';
import * as orderSurnames from './009-order-surnames.js';
import * as auditAppendCost from './010-audit-append-cost.js';
import * as orderBodyVouch from './011-order-body-vouch.js';
import * as auditKeyedLinks from './012-audit-keyed-links.js';
import * as stagedEditHistory from './013-staged-edit-history.js';
import * as scaleIndexes from './014-scale-indexes.js';
import * as intake from './015-intake.js';
import * as environmentRemoval from './016-environment-removal.js';
import * as auditSearch from './017-audit-search.js';
import * as retention from './018-retention.js';
import * as intakeRules from './019-intake-rules.js';
import * as packedRequestBodies from './020-packed-request-bodies.js';
import * as compactAuditLog from './021-compact-audit-log.js';
import * as openDueIndexes from './022-open-due-indexes.js';
import * as compactStatusHistory from './023-compact-status-history.js';
import * as intakeStagedThrough from './024-intake-staged-through.js';
import * as notAnOrderIndex from './025-not-an-order-index.js';
import * as notFoundAtService from './026-not-found-at-service.js';
import * as listedDifferently from './027-listed-differently.js';
import * as serviceNotedIndex from './028-service-noted-index.js';
import * as releasedAt from './032-released-at.js';

/**
 * Numbered migrations, applied in order, each in its own transaction with `PRAGMA user_version` set to its
 * number inside it (the header change rolls back with the rest). Never edit a migration that has shipped: add
 * the next number.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'outbox', up: outbox.up },
  { version: 2, name: 'audit-log', up: auditLog.up },
  { version: 3, name: 'order-items', up: orderItems.up },
  { version: 4, name: 'outbox-retries', up: outboxRetries.up },
  { version: 5, name: 'staging', up: staging.up },
  { version: 6, name: 'outbox-pause', up: outboxPause.up },
  { version: 7, name: 'enrichment', up: enrichment.up },
  { version: 8, name: 'unfinished-imports', up: unfinishedImports.up },
  { version: 9, name: 'order-surnames', up: orderSurnames.up },
  { version: 10, name: 'audit-append-cost', up: auditAppendCost.up },
  { version: 11, name: 'order-body-vouch', up: orderBodyVouch.up },
  { version: 12, name: 'audit-keyed-links', up: auditKeyedLinks.up },
  { version: 13, name: 'staged-edit-history', up: stagedEditHistory.up },
  { version: 14, name: 'scale-indexes', up: scaleIndexes.up },
  { version: 15, name: 'intake', up: intake.up },
  { version: 16, name: 'environment-removal', up: environmentRemoval.up },
  { version: 17, name: 'audit-search', up: auditSearch.up },
  { version: 18, name: 'retention', up: retention.up },
  { version: 19, name: 'intake-rules', up: intakeRules.up },
  { version: 20, name: 'packed-request-bodies', up: packedRequestBodies.up },
  { version: 21, name: 'compact-audit-log', up: compactAuditLog.up },
  { version: 22, name: 'open-due-indexes', up: openDueIndexes.up },
  { version: 23, name: 'compact-status-history', up: compactStatusHistory.up },
  { version: 24, name: 'intake-staged-through', up: intakeStagedThrough.up },
  { version: 25, name: 'not-an-order-index', up: notAnOrderIndex.up },
  { version: 26, name: 'not-found-at-service', up: notFoundAtService.up },
  { version: 27, name: 'listed-differently', up: listedDifferently.up },
  { version: 28, name: 'service-noted-index', up: serviceNotedIndex.up },
  { version: 32, name: 'released-at', up: releasedAt.up },
];

/** The last migration's number (numbers are handed out ahead: one may land before the one below it). */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `this data was written by a newer Rx Batch (schema ${found}; this version knows up to ${known}); update the app`,
    );
    this.name = 'SchemaTooNewError';
  }
}

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the database to `target` (default: latest) and returns the versions applied. `target` exists so a
 * test can build a file exactly as an older release left it.
 */
export function migrate(db: Database.Database, options: { target?: number } = {}): number[] {
  const target = options.target ?? LATEST_SCHEMA_VERSION;
  const current = schemaVersion(db);
  if (current > LATEST_SCHEMA_VERSION) throw new SchemaTooNewError(current, LATEST_SCHEMA_VERSION);
  const applied: number[] = [];
  for (const migration of MIGRATIONS) {
    if (migration.version <= current || migration.version > target) continue;
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
    applied.push(migration.version);
  }
  return applied;
}
