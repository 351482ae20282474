import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import { readForm } from './form-body.js';
import { consentPage, errorPage, loginPage } from './pages.js';
import { CLIENT_NAME, INTERACTION_PATH, type SandboxAccount } from './provider-config.js';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

export interface InteractionDeps {
  provider: Provider;
  account: SandboxAccount;
}

const ROUTE = new RegExp(`^${INTERACTION_PATH}/([A-Za-z0-9_-]+)(?:/(login|consent))?$`);

export function isInteractionPath(pathname: string): boolean {
  return pathname === INTERACTION_PATH || pathname.startsWith(`${INTERACTION_PATH}/`);
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
  });
  res.end(html);
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The login and consent steps oidc-provider hands over to us (`interactions.url`), on plain node:http: GET shows
 * the page the pending prompt needs, POST takes the form and reports the result back to the provider.
 */
export async function handleInteraction(req: IncomingMessage, res: ServerResponse, deps: InteractionDeps) {
  const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
  const match = ROUTE.exec(pathname);
  if (!match) return sendHtml(res, 404, errorPage({ title: 'Not found', message: 'There is no page here.' }));
  const [, uid, step] = match;
  const expectedMethod = step ? 'POST' : 'GET';
  if (req.method !== expectedMethod) {
    res.setHeader('allow', expectedMethod);
    return sendHtml(res, 405, errorPage({ title: 'Not allowed', message: `Use ${expectedMethod} here.` }));
  }

  let interaction: Interaction;
  try {
    interaction = await deps.provider.interactionDetails(req, res);
  } catch {
    return sendHtml(res, 400, expiredPage());
  }
  if (interaction.uid !== uid) return sendHtml(res, 400, expiredPage());

  const base = `${INTERACTION_PATH}/${interaction.uid}`;
  const prompt = interaction.prompt.name;

  if (!step) {
    if (prompt === 'login') return sendHtml(res, 200, renderLogin(base, deps.account));
    if (prompt === 'consent') return sendHtml(res, 200, renderConsent(base, interaction, deps.account));
    return sendHtml(res, 500, errorPage({ title: 'Unexpected step', message: `The sign-in asked for "${prompt}".` }));
  }
  if (step !== prompt) {
    // A stale form (back button, double submit): show whatever the interaction needs now.
    res.writeHead(303, { location: base, 'content-length': '0' });
    return res.end();
  }

  const form = await readForm(req);
  if (step === 'login') {
    const username = form.get('username') ?? '';
    const ok =
      sameSecret(username, deps.account.username) && sameSecret(form.get('password') ?? '', deps.account.password);
    if (!ok) {
      return sendHtml(res, 200, renderLogin(base, deps.account, username, 'Wrong username or password.'));
    }
    return deps.provider.interactionFinished(
      req,
      res,
      { login: { accountId: deps.account.accountId } },
      { mergeWithLastSubmission: false },
    );
  }

  if (form.get('decision') !== 'allow') {
    return deps.provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The user denied the request' },
      { mergeWithLastSubmission: false },
    );
  }
  const grantId = await saveGrant(deps.provider, interaction);
  return deps.provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/** What oidc-provider says the consent prompt is missing. */
const consentDetailsSchema = z.object({
  missingOIDCScope: z.array(z.string()).optional(),
  missingOIDCClaims: z.array(z.string()).optional(),
  missingResourceScopes: z.record(z.string(), z.array(z.string())).optional(),
});

function consentDetails(interaction: Interaction) {
  return consentDetailsSchema.parse(interaction.prompt.details);
}

/** Grants exactly what the pending request is missing (OIDC scopes/claims and the API's scopes). */
async function saveGrant(provider: Provider, interaction: Interaction): Promise<string> {
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = consentDetails(interaction);
  const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const grant =
    existing ??
    new provider.Grant({ accountId: interaction.session?.accountId, clientId: String(interaction.params.client_id) });
  if (missingOIDCScope?.length) grant.addOIDCScope(missingOIDCScope.join(' '));
  if (missingOIDCClaims?.length) grant.addOIDCClaims(missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}

function renderLogin(base: string, account: SandboxAccount, username?: string, error?: string): string {
  return loginPage({
    action: `${base}/login`,
    username,
    error,
    hint: `Local sandbox account: username "${account.username}", password "${account.password}".`,
  });
}

function renderConsent(base: string, interaction: Interaction, account: SandboxAccount): string {
  const { missingOIDCScope = [], missingResourceScopes = {} } = consentDetails(interaction);
  const scopes = [...new Set([...missingOIDCScope, ...Object.values(missingResourceScopes).flat()])];
  return consentPage({ action: `${base}/consent`, clientName: CLIENT_NAME, username: account.username, scopes });
}

function expiredPage(): string {
  return errorPage({
    title: 'Sign-in expired',
    message: 'This sign-in page has expired or was opened in another browser. Start again from Rx Batch.',
  });
}
