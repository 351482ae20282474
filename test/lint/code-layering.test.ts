import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterEach, describe, expect, it } from 'vitest';
import { findImportCycles } from '../../scripts/check-import-cycles.mjs';
import { LAYERS } from '../../scripts/eslint/code-layers.mjs';

/**
 * The layers of main/ hold only while the lint rule and the cycle check fire. Probes are linted as if they were
 * files in each folder, with the repository's own config; the cycle check runs on planted trees.
 */

const root = resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root, overrideConfig: [tseslint.configs.disableTypeChecked] });

async function layeringMessages(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, filePath) });
  if (!result) throw new Error('no lint result');
  return result.messages.filter((m) => m.ruleId === 'layers/code-layering').map((m) => m.message);
}

const importFrom = (spec: string) => `import { value } from '${spec}';\nexport const probe = value;\n`;

describe('the code-layering rule', () => {
  it.each([
    ['the store importing the submitter', 'main/core/store/lint-probe.ts', '../outbox/outbox.js'],
    ['the model importing the store', 'main/core/model/lint-probe.ts', '../store/store.js'],
    ['the platform importing the model', 'main/core/platform/lint-probe.ts', '../model/audit-entry.js'],
    ['the importer importing staging', 'main/core/importing/lint-probe.ts', '../staging/staging-service.js'],
    ['audit importing auth', 'main/core/audit/lint-probe.ts', '../auth/auth-session.js'],
    ['tracking importing lookup (a sideways import)', 'main/core/tracking/lint-probe.ts', '../lookup/order-lookup.js'],
    ['a capability importing the app core', 'main/core/outbox/lint-probe.ts', '../app-services.js'],
    ['the sandbox importing the submitter', 'sandbox/lint-probe.ts', '../main/core/outbox/outbox.js'],
    ['the transport importing the bridge', 'main/transport/lint-probe.ts', '../bridge/cli.js'],
  ])('refuses %s', async (_label, file, spec) => {
    const messages = await layeringMessages(file, importFrom(spec));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/may not import/);
  });

  it("refuses a capability importing another capability's handlers", async () => {
    const messages = await layeringMessages(
      'main/core/intake/lint-probe.ts',
      importFrom('../staging/staging-handlers.js'),
    );
    expect(messages).toEqual([expect.stringMatching(/another capability's handlers/)]);
  });

  it('refuses a handler importing the file that composes the handlers (a cycle)', async () => {
    const messages = await layeringMessages('main/core/outbox/outbox-handlers.ts', importFrom('../app-handlers.js'));
    expect(messages).toEqual([expect.stringMatching(/composes the handlers/)]);
  });

  it.each([
    ['the store importing the model', 'main/core/store/lint-probe.ts', '../model/audit-entry.js'],
    ['the submitter importing the store', 'main/core/outbox/lint-probe.ts', '../store/store.js'],
    ['a folder importing itself', 'main/core/store/lint-probe.ts', './store.js'],
    ['handlers using the app services', 'main/core/outbox/outbox-handlers.ts', '../app-services.js'],
    ['the app core importing a capability', 'main/core/lint-probe.ts', './outbox/outbox.js'],
    ['the CLI importing staging handlers', 'main/cli/lint-probe.ts', '../core/staging/staging-handlers.js'],
  ])('allows %s (the rule is not simply refusing everything)', async (_label, file, spec) => {
    expect(await layeringMessages(file, importFrom(spec))).toEqual([]);
  });

  it('describes layers that can be stacked: the allowed imports form no cycle', () => {
    const layers = LAYERS;
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (layer: string, path: string[]): void => {
      if (done.has(layer)) return;
      if (visiting.has(layer)) throw new Error(`layer cycle: ${[...path, layer].join(' → ')}`);
      visiting.add(layer);
      for (const below of layers[layer] ?? []) visit(below, [...path, layer]);
      visiting.delete(layer);
      done.add(layer);
    };
    for (const layer of Object.keys(layers)) visit(layer, []);
    expect(done.size).toBe(Object.keys(layers).length);
  });
});

describe('the import cycle check', () => {
  let tree: string | undefined;
  afterEach(() => {
    if (tree) rmSync(tree, { recursive: true, force: true });
    tree = undefined;
  });

  function plant(files: Record<string, string>): string {
    tree = mkdtempSync(join(tmpdir(), 'rx-cycles-'));
    for (const [path, code] of Object.entries(files)) {
      mkdirSync(dirname(join(tree, path)), { recursive: true });
      writeFileSync(join(tree, path), code);
    }
    return tree;
  }

  it('finds a cycle closed only by a type import, across folders', () => {
    const planted = plant({
      'main/core/a/one.ts': "import { two } from '../b/two.js';\nexport const one = two;\n",
      'main/core/b/two.ts': "import type { Three } from './three.js';\nexport const two: Three = 2;\n",
      'main/core/b/three.ts': "import type { one } from '../a/one.js';\nexport type Three = typeof one;\n",
      'main/core/b/free.ts': "import { two } from './two.js';\nexport const free = two;\n",
    });
    expect(findImportCycles(planted)).toEqual([['main/core/a/one.ts', 'main/core/b/three.ts', 'main/core/b/two.ts']]);
  });

  it('finds a cycle through a re-export and a dynamic import, and none in a tree without one', () => {
    const cyclic = plant({
      'shared/index.ts': "export * from './x.js';\n",
      'shared/x.ts': "export const x = () => import('./index.js');\n",
    });
    expect(findImportCycles(cyclic)).toEqual([['shared/index.ts', 'shared/x.ts']]);
    rmSync(cyclic, { recursive: true, force: true });
    const acyclic = plant({
      'shared/index.ts': "export * from './x.js';\n",
      'shared/x.ts': 'export const x = 1;\n',
      'shared/x.test.ts': "import { x } from './index.js';\nexport const y = x;\n",
    });
    expect(findImportCycles(acyclic)).toEqual([]);
  });
});
