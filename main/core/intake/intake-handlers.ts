import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { CallHandlers } from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import type { intakeCalls } from '../../../shared/intake-contract.js';
import type { AppServices } from '../app-services.js';
import { ANY_PATH, type ImportPathPolicy } from '../import-path-policy.js';
import { IntakeRulesError } from '../store/intake-rules-repo.js';
import { AppIntake, AppIntakeError } from './app-intake.js';
import { withOverrides } from './intake-rules.js';
import type { ServedIntake } from './served-intake.js';

/**
 * The intake calls of the contract: the app's own live intake (app-intake.ts), one per core, stopped when the core
 * closes, and the environment's saved staging rules (store/intake-rules-repo.ts) it and `rx-batch serve` start with. Inputs arrive parsed by the contract (no host: the app listens on 127.0.0.1 only); folders are checked
 * here against the core's import policy, so a page can make the core watch only a folder it may import from.
 */

type IntakeCallName = keyof typeof intakeCalls;

/** A folder as a refusal quotes it: the caller's own text, cut short. */
const quoted = (folder: string) => `"${folder.length > 200 ? `${folder.slice(0, 200)}…` : folder}"`;
const OR_SERVE = 'or run `rx-batch serve --watch FOLDER`, which may watch any folder.';

/**
 * The folder to watch (links resolved) when the policy allows it, else why not: any folder for direct calls (the
 * user at their own command line); one of the policy's folders or a folder inside one, checked as written and again
 * with links resolved (browser mode's --import-dir); or, for a policy without folders (the desktop's paths handed
 * over), a folder the policy allows as it is: one the admin chose in the app's folder dialog. Whether a path
 * outside what the policy allows exists is never said: a page could map the disk with it.
 */
async function allowedIntakeFolder(
  policy: ImportPathPolicy,
  folder: string,
): Promise<{ folder: string } | { refused: string }> {
  const notFolder = { refused: `${quoted(folder)} is not a folder that can be read here.` };
  if (!isAbsolute(folder) || folder.includes('\0')) {
    return { refused: `${quoted(folder)} is not a full path: give the folder from the top (such as /srv/drop).` };
  }
  const found = (target: string | undefined) => (target === undefined ? notFolder : { folder: target });
  if (policy === ANY_PATH) return found(await directory(resolve(folder)));
  const roots = policy.folders;
  if (!roots) {
    const allowed = await policy.allow(folder, 'watch');
    if (allowed === undefined) {
      return {
        refused: `${quoted(folder)} was not chosen in this app: choose it with "Choose folder…", ${OR_SERVE}`,
      };
    }
    return found(await directory(allowed));
  }
  const within = (root: string, path: string) => {
    const rel = relative(root, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };
  const outside = {
    refused:
      `${quoted(folder)} is not inside the folders Rx Batch may import from (${roots.join(', ')}): choose one of ` +
      `them or a folder inside one, start Rx Batch with --import-dir FOLDER, ${OR_SERVE}`,
  };
  const written = resolve(folder);
  if (!roots.some((root) => within(root, written))) return outside;
  const target = await directory(written);
  if (target === undefined) return notFolder;
  return roots.some((root) => within(root, target)) ? { folder: target } : outside;
}

/** The folder with links resolved, when it is one. */
async function directory(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  const target = await realpath(path).catch(() => undefined);
  if (!target) return undefined;
  const isFolder = await stat(target).then(
    (info) => info.isDirectory(),
    () => false,
  );
  return isFolder ? target : undefined;
}

export function buildIntakeHandlers(
  app: AppServices,
  importPaths: ImportPathPolicy,
): Pick<CallHandlers, IntakeCallName> {
  const anyFolder = importPaths === ANY_PATH;
  const intake = new AppIntake({
    store: app.store,
    codeListsFor: (environmentId) => app.registry.get(environmentId).codeLists,
    notifyOutbox: (environmentId) => app.outbox.notify(environmentId),
    onBatchChanged: (change) => app.events.emit('batches.changed', change),
    onChanged: (status) => app.events.emit('intake.changed', status),
    allowedFolders: anyFolder ? null : [...(importPaths.folders ?? [])],
  });
  app.onClose(() => intake.close());
  const knownEnvironment = (environmentId: string) => {
    if (!app.registry.find(environmentId)) {
      throw new ContractError({ code: 'invalid-input', message: `There is no environment "${environmentId}".` });
    }
  };
  return {
    'intake.status': () => Promise.resolve(intake.status()),
    'intake.start': async (input) => {
      knownEnvironment(input.environmentId);
      const folders: string[] = [];
      for (const folder of input.folders ?? []) {
        const allowed = await allowedIntakeFolder(importPaths, folder);
        if ('refused' in allowed) {
          // The issue names the field, so the form gives the keyboard to the folder it refused.
          const issues = [{ path: 'folders', message: allowed.refused }];
          throw new ContractError({ code: 'forbidden', message: allowed.refused, issues });
        }
        if (!folders.includes(allowed.folder)) folders.push(allowed.folder);
      }
      try {
        return await intake.start({
          environmentId: input.environmentId,
          ...(input.port !== undefined ? { port: input.port } : {}),
          folders,
          rules: withOverrides(
            app.store.intakeRules.get(input.environmentId).rules,
            input.onArrival ? { onArrival: input.onArrival } : {},
          ),
        });
      } catch (error) {
        if (error instanceof AppIntakeError) throw new ContractError({ code: 'invalid-input', message: error.message });
        throw error;
      }
    },
    'intake.stop': () => intake.stop(),
    // Synchronous throws reach dispatch as a rejection would (it awaits the handler inside its try).
    'intake.rules': (input) => {
      knownEnvironment(input.environmentId);
      return Promise.resolve({ environmentId: input.environmentId, ...app.store.intakeRules.get(input.environmentId) });
    },
    'intake.saveRules': (input) => {
      knownEnvironment(input.environmentId);
      try {
        const { rules, updatedAt } = app.store.intakeRules.save(input.environmentId, input.rules, 'user');
        return Promise.resolve({ environmentId: input.environmentId, rules, updatedAt });
      } catch (error) {
        if (error instanceof IntakeRulesError)
          throw new ContractError({ code: 'invalid-input', message: error.message });
        throw error;
      }
    },
  };
}

/**
 * Under `rx-batch serve --ui` (main/cli/commands/serve-ui.ts): the page shows serve's own intake, and a second
 * one cannot be started beside it (one writer of the store, one listener per run); stopping is serve's signal's.
 */
export function servedIntakeHandlers(
  served: ServedIntake,
  pid: number,
): Pick<CallHandlers, 'intake.status' | 'intake.start' | 'intake.stop'> {
  const refusal = () =>
    new ContractError({
      code: 'forbidden',
      message:
        `The intake here is run by rx-batch serve (PID ${pid}): it cannot be started or stopped from this page. ` +
        'It stops when serve is stopped (SIGTERM, or Ctrl+C where it runs); start it again with other settings there.',
    });
  return {
    'intake.status': () => Promise.resolve(served.status()),
    'intake.start': () => Promise.reject(refusal()),
    'intake.stop': () => Promise.reject(refusal()),
  };
}
