import type Database from 'better-sqlite3';
import { parseWireJson } from '../../../../shared/wire-json.js';

/**
 * Prescribed items as rows, so orders can be found by dm+d code or medication whatever their route: an HL7
 * body is not JSON, and a JSON body's dmdCode is a number token beyond 2^53 that SQLite's JSON functions would
 * round. New orders get their items from the importer (which parsed them); orders already stored are
 * back-filled here from their JSON bodies, read losslessly. HL7 bodies from before this migration get no rows.
 */
export function up(db: Database.Database): void {
  db.exec(`
CREATE TABLE order_items (
  order_id INTEGER NOT NULL REFERENCES orders (id),
  position INTEGER NOT NULL CHECK (position >= 0),
  dmd_code TEXT NOT NULL CHECK (length(dmd_code) BETWEEN 1 AND 18 AND dmd_code NOT GLOB '*[^0-9]*'),
  product_id INTEGER,
  medication TEXT NOT NULL,
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (order_id, position)
) STRICT, WITHOUT ROWID;
CREATE INDEX order_items_by_dmd_code ON order_items (dmd_code);
`);
  backfillFromJsonBodies(db);
}

const PAGE = 500;

function backfillFromJsonBodies(db: Database.Database): void {
  const page = db.prepare<[number, number], { id: number; request_body: string }>(
    `SELECT id, request_body FROM orders WHERE route IN ('v1', 'v2') AND id > ? ORDER BY id LIMIT ?`,
  );
  const insert = db.prepare(
    'INSERT INTO order_items (order_id, position, dmd_code, product_id, medication, quantity) VALUES (?, ?, ?, ?, ?, ?)',
  );
  let afterId = 0;
  for (;;) {
    const rows = page.all(afterId, PAGE);
    if (rows.length === 0) break;
    for (const row of rows) {
      readItems(row.request_body).forEach((item, position) =>
        insert.run(row.id, position, item.dmdCode, item.productId, item.medication, item.quantity),
      );
      afterId = row.id;
    }
  }
}

interface BackfillItem {
  dmdCode: string;
  productId: number | null;
  medication: string;
  quantity: number;
}

/** Items that are readable; a body this cannot read keeps its order, just without searchable items. */
function readItems(body: string): BackfillItem[] {
  let parsed: unknown;
  try {
    parsed = parseWireJson(body);
  } catch {
    return [];
  }
  const items = (parsed as { prescribedItems?: unknown } | null)?.prescribedItems;
  if (!Array.isArray(items)) return [];
  const out: BackfillItem[] = [];
  for (const item of items as Array<Record<string, unknown>>) {
    const dmdCode = typeof item.dmdCode === 'number' ? String(item.dmdCode) : item.dmdCode;
    if (typeof dmdCode !== 'string' || !/^[1-9]\d{0,17}$/.test(dmdCode)) continue;
    if (typeof item.medication !== 'string' || typeof item.quantity !== 'number' || item.quantity <= 0) continue;
    out.push({
      dmdCode,
      productId: typeof item.productId === 'number' ? item.productId : null,
      medication: item.medication,
      quantity: item.quantity,
    });
  }
  return out;
}
