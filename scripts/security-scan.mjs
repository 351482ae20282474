// The security gate for the built shell: electronegativity over the app as it is packaged (out/ and package.json),
// failing on any high-severity finding that security/electronegativity-allow.json does not explain, and on any
// file it could not read. Needs no network. Run after `npm run build`:
//   node scripts/security-scan.mjs [--app-dir out] [--allow security/electronegativity-allow.json]
//                                  [--with-release-check]
// See main/electron/README.md "Security scan" for why the bundles are lowered before scanning.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Module, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const SCAN_TIMEOUT_MS = 300_000;

const usage = `Usage: node scripts/security-scan.mjs [--app-dir DIR] [--allow FILE] [--with-release-check]
  --app-dir DIR          the built app (default: out)
  --allow FILE           explained high-severity findings (default: security/electronegativity-allow.json)
  --with-release-check   also ask GitHub whether a newer Electron has security fixes (needs the network)`;

const allowListSchema = z
  .object({
    $comment: z.string().optional(),
    allow: z.array(
      z
        .object({
          id: z.string().regex(/^[A-Z0-9_]+$/, 'a check id such as LIMIT_NAVIGATION_GLOBAL_CHECK'),
          /** Path as reported (relative to the scanned root, e.g. out/main/index.js); any file when absent. */
          file: z.string().min(1).optional(),
          reason: z.string().min(20, 'say why the finding is acceptable, in a sentence'),
        })
        .strict(),
    ),
  })
  .strict();

function fail(message, code = 1) {
  console.error(`security scan: ${message}`);
  process.exit(code);
}

function options() {
  try {
    const { values } = parseArgs({
      options: {
        'app-dir': { type: 'string', default: 'out' },
        allow: { type: 'string', default: 'security/electronegativity-allow.json' },
        'with-release-check': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
    if (values.help) {
      console.log(usage);
      process.exit(0);
    }
    return {
      appDir: resolve(root, values['app-dir']),
      allowFile: resolve(root, values.allow),
      releaseCheck: values['with-release-check'],
    };
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)}\n${usage}`, 2);
  }
}

function loadAllowList(file) {
  let json;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return fail(
      `cannot read the allow-list ${relative(root, file)}: ${error instanceof Error ? error.message : error}`,
      2,
    );
  }
  const parsed = allowListSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    return fail(`the allow-list ${relative(root, file)} is not valid: ${issues}`, 2);
  }
  return parsed.data.allow;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The numbers in one source-map segment (base64 VLQ). */
function decodeSegment(segment) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

/** For each line of the lowered file (0-based), the 1-based line it came from, from the transpiler's source map. */
function originalLines(sourceMapText) {
  const lines = [];
  let sourceLine = 0;
  for (const generated of JSON.parse(sourceMapText).mappings.split(';')) {
    let first;
    for (const segment of generated.split(',')) {
      const values = segment ? decodeSegment(segment) : [];
      if (values.length < 4) continue;
      sourceLine += values[2];
      first ??= sourceLine + 1;
    }
    lines.push(first);
  }
  return lines;
}

function* filesUnder(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}

/**
 * Copies the app into a scratch folder the scanner can read. Electronegativity's scope analysis predates ES2020
 * (private fields, `?.`, `??` make it give up on a whole file), and it reads only `.js`: so each script is lowered
 * to ES2019 syntax with TypeScript's transpiler (same calls, same literals, nothing bundled or removed) and `.cjs`
 * / `.mjs` are renamed. Reported paths are mapped back to the originals.
 */
function stage(appDir) {
  const ts = require('typescript');
  const stageDir = mkdtempSync(join(tmpdir(), 'rxbatch-scan-'));
  // Reported paths read as in the repository (out/main/index.js); an app outside it keeps its folder's name.
  const inside = relative(root, appDir);
  const appName = inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : basename(appDir);
  const target = join(stageDir, appName);
  cpSync(appDir, target, { recursive: true });
  cpSync(join(root, 'package.json'), join(stageDir, 'package.json'));
  const renamed = new Map();
  const lineMaps = new Map();
  for (const file of [...filesUnder(target)]) {
    const match = /\.(c|m)?js$/.exec(file);
    if (!match) continue;
    const source = readFileSync(file, 'utf8');
    const lowered = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { allowJs: true, target: ts.ScriptTarget.ES2019, module: ts.ModuleKind.ESNext, sourceMap: true },
    });
    const scanned = match[1] ? file.replace(/\.(c|m)js$/, '.js') : file;
    // The source-map comment goes: the scanner would only report it as a missing file.
    writeFileSync(file, lowered.outputText.replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n'));
    lineMaps.set(relative(stageDir, scanned).split(sep).join('/'), originalLines(lowered.sourceMapText));
    if (scanned !== file) {
      renameSync(file, scanned);
      renamed.set(relative(stageDir, scanned).split(sep).join('/'), relative(stageDir, file).split(sep).join('/'));
    }
  }
  return {
    stageDir,
    original: (path) => renamed.get(path) ?? path,
    originalLine: (path, line) => lineMaps.get(path)?.[line - 1] ?? line,
  };
}

function electronVersion() {
  const pkg = JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8'));
  return pkg.version;
}

/**
 * Electronegativity fetches its translations at start (got, 1 s timeout, then retries) and carries on without them;
 * English is built in. Nothing may be fetched at run time, so unless the release check is asked for, its `got` is
 * one that refuses at once. Not only tidier: under Node 24, got 11's retry after that timeout throws from a timer
 * ("The `onCancel` handler was attached after the promise settled") and ends the process after the scan passed.
 */
function refuseScannerDownloads() {
  const gotPath = createRequire(require.resolve('@doyensec/electronegativity')).resolve('got');
  const offline = new Module(gotPath);
  offline.filename = gotPath;
  offline.loaded = true;
  offline.exports = () => Promise.reject(new Error('nothing is fetched at run time'));
  require.cache[gotPath] = offline;
}

async function scan(stageDir, releaseCheck) {
  if (!releaseCheck) refuseScannerDownloads();
  const electronegativity = require('@doyensec/electronegativity');
  const run = electronegativity.default ?? electronegativity;
  process.env.LANG = 'en-US';
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no result after ${SCAN_TIMEOUT_MS / 1000} s`)), SCAN_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      run({
        input: stageDir,
        isRelative: true,
        electronVersionOverride: electronVersion(),
        // The one check that needs the network (the list of Electron releases) runs only when asked for.
        excludeFromScan: releaseCheck ? [] : ['AvailableSecurityFixesGlobalCheck'],
      }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function matches(entry, finding) {
  return entry.id === finding.id && (entry.file === undefined || entry.file === finding.file);
}

async function main() {
  const { appDir, allowFile, releaseCheck } = options();
  if (
    !existsSync(join(appDir, 'main')) ||
    !existsSync(join(appDir, 'preload')) ||
    !existsSync(join(appDir, 'renderer'))
  ) {
    fail(
      `${relative(root, appDir) || appDir} does not hold a built app (main, preload, renderer): run npm run build`,
      2,
    );
  }
  const allow = loadAllowList(allowFile);
  const { stageDir, original, originalLine } = stage(appDir);
  let result;
  try {
    result = await scan(stageDir, releaseCheck);
  } catch (error) {
    fail(`electronegativity failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    rmSync(stageDir, { recursive: true, force: true });
  }

  const findings = result.issues.map((issue) => ({
    id: issue.id,
    file: original(issue.file),
    line: originalLine(issue.file, issue.location?.line ?? 0),
    severity: issue.severity?.name ?? 'UNKNOWN',
    description: issue.description,
  }));
  const unreadable = result.errors.filter((error) => !error.tolerable);
  const high = findings.filter((finding) => finding.severity === 'HIGH');
  const explained = high.filter((finding) => allow.some((entry) => matches(entry, finding)));
  const unexplained = high.filter((finding) => !explained.includes(finding));
  const stale = allow.filter((entry) => !high.some((finding) => matches(entry, finding)));

  const bySeverity = {};
  for (const finding of findings) bySeverity[finding.severity] = (bySeverity[finding.severity] ?? 0) + 1;
  console.log(
    `security scan: ${findings.length} findings (${
      Object.entries(bySeverity)
        .map(([s, n]) => `${n} ${s.toLowerCase()}`)
        .join(', ') || 'none'
    }) ` + `in ${relative(root, appDir) || appDir}, Electron ${electronVersion()}`,
  );
  for (const finding of findings.filter((f) => f.severity !== 'HIGH')) {
    console.log(`  review: ${finding.severity} ${finding.id} ${finding.file}:${finding.line} ${finding.description}`);
  }
  for (const finding of explained) console.log(`  allowed: HIGH ${finding.id} ${finding.file}:${finding.line}`);
  for (const entry of stale)
    console.log(
      `  note: allow-list entry ${entry.id}${entry.file ? ` (${entry.file})` : ''} matched nothing; remove it`,
    );
  for (const error of unreadable) {
    const file = isAbsolute(error.file) ? relative(stageDir, error.file).split(sep).join('/') : error.file;
    console.error(`  UNREADABLE: ${original(file)}: ${error.message}`);
  }
  for (const finding of unexplained) {
    console.error(`  UNEXPLAINED: HIGH ${finding.id} ${finding.file}:${finding.line} ${finding.description}`);
  }
  if (unreadable.length > 0 || unexplained.length > 0) {
    fail(
      `${unexplained.length} unexplained high-severity finding(s), ${unreadable.length} file(s) not scanned. ` +
        `Fix them, or explain each in ${relative(root, allowFile)}.`,
    );
  }
  console.log('security scan: passed');
}

await main();
