// The layers of main/ and sandbox/, bottom to top (README "Layout"). Each layer lists what it may import besides
// itself; anything else is an upward or sideways import and ESLint's `layers/code-layering` refuses it. Kept as
// data so the lint test can check the graph it describes has no cycle.

const base = ['shared', 'platform', 'model'];
const core = [
  ...base,
  'importing',
  'store',
  'audit',
  'auth',
  'service',
  'environments',
  'signin',
  'tracking',
  'lookup',
  'outbox',
  'enrichment',
  'staging',
  'intake',
];

/** Layer name → the layers it may import. */
export const LAYERS = {
  shared: [],
  // Logger, events, private files, secret stores: what every layer needs of the machine.
  platform: ['shared'],
  // Plain types and pure rules shared by importing, store and audit.
  model: ['shared', 'platform'],
  importing: base,
  store: base,
  audit: [...base, 'store'],
  auth: base,
  service: base,
  environments: [...base, 'store', 'auth', 'service'],
  signin: [...base, 'store', 'auth', 'service', 'environments'],
  tracking: [...base, 'store', 'service', 'audit'],
  lookup: [...base, 'store', 'service', 'tracking'],
  outbox: [...base, 'store', 'service', 'audit', 'tracking'],
  enrichment: [...base, 'store', 'service', 'importing'],
  staging: [...base, 'store', 'importing', 'tracking'],
  intake: [...base, 'store', 'importing', 'staging'],
  // main/core/*.ts: builds the core from its capabilities and maps the contract onto them.
  app: [...core, 'sandbox'],
  sandbox: ['shared', 'platform', 'store'],
  transport: [...core, 'app'],
  host: [...core, 'app', 'transport'],
  bridge: [...core, 'app', 'transport', 'host'],
  electron: [...core, 'app', 'transport', 'host', 'bridge'],
  cli: [...core, 'app', 'transport', 'host', 'bridge', 'sandbox'],
};

/** Files of main/core/ that compose the handlers: no handler may import them. */
export const COMPOSERS = ['main/core/app-core.ts', 'main/core/app-handlers.ts'];

/**
 * The layer of a repository-relative path, or undefined outside the layered code. A capability's `*-handlers.ts`
 * sits on top of its folder: it may also use the app's services, views and helpers (not the composers).
 */
export function layerOf(path) {
  const parts = path.split('/');
  if (parts[0] === 'shared' || parts[0] === 'sandbox') return { layer: parts[0], handlers: false };
  if (parts[0] !== 'main' || parts.length < 2) return undefined;
  if (parts[1] === 'cli.ts') return { layer: 'cli', handlers: false };
  if (parts[1] !== 'core') return parts.length > 2 ? { layer: parts[1], handlers: false } : undefined;
  if (parts.length === 3) return { layer: 'app', handlers: false };
  return { layer: parts[2], handlers: /-handlers\.tsx?$/.test(path) };
}
