// No import cycles in the product code (README "Layout"), type-only imports included: a cycle closed by a type is
// still two modules that cannot be understood, tested or moved apart. Run by `npm run lint`.
// Usage: node scripts/check-import-cycles.mjs [root]   (exit 1 and each cycle printed when there is one)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const PRODUCT_DIRS = ['main', 'shared', 'renderer/src', 'sandbox'];
const isSource = (name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts');

function productFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      // testing/ folders hold fixtures, tests' own code like *.test.ts.
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'testing') walk(join(dir, entry.name));
      } else if (isSource(entry.name)) files.push(join(dir, entry.name));
    }
  };
  for (const dir of PRODUCT_DIRS) if (existsSync(join(root, dir))) walk(join(root, dir));
  return files;
}

function resolveImport(fromFile, spec, known) {
  const base = resolve(dirname(fromFile), spec);
  const stem = base.replace(/\.(js|jsx|ts|tsx)$/, '');
  return [`${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts')].find((candidate) => known.has(candidate));
}

/** Every import cycle among the product files under `root`, each as repository-relative paths. */
export function findImportCycles(root) {
  const files = productFiles(root);
  const known = new Set(files);
  const edges = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((ref) => ref.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolveImport(file, spec, known))
      .filter((target) => target !== undefined);
    edges.set(file, [...new Set(targets)]);
  }
  // Tarjan's strongly connected components, iterative so a deep import chain cannot overflow the stack.
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const cycles = [];
  let next = 0;
  for (const start of files) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      const out = edges.get(node);
      if (i < out.length) {
        frame[1] += 1;
        const target = out[i];
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) !== index.get(node)) continue;
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || out.includes(node)) {
        cycles.push(component.map((file) => relative(root, file).split(sep).join('/')).sort());
      }
    }
  }
  return cycles;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
  const cycles = findImportCycles(root);
  for (const cycle of cycles) console.error(`import cycle among: ${cycle.join(', ')}`);
  if (cycles.length > 0) {
    console.error(`${cycles.length} import cycle(s): move what both sides need into a lower layer (README "Layout").`);
    process.exit(1);
  }
  console.log('no import cycles');
}
