/**
 * The sandbox's sign-in pages: plain HTML forms (no scripts of our own), every input labelled and every button
 * named, so a person, a screen reader and a Playwright test all find them by role and name.
 */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
main{max-width:26rem;margin:3rem auto;background:#fff;padding:1.5rem 2rem;border-radius:8px;box-shadow:0 1px 3px #0003}
h1{font-size:1.4rem;margin-top:0}label{display:block;font-weight:600;margin:1rem 0 .3rem}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;font-size:1.1rem;padding:.5rem}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{font-size:1rem;padding:.55rem 1.2rem;cursor:pointer}
button.primary{background:#1f5fbf;color:#fff;border:0;border-radius:4px}
button.secondary{background:#fff;border:1px solid #8a93a3;border-radius:4px}
.code{font-family:ui-monospace,monospace;font-size:1.6rem;letter-spacing:.15em}
[role=alert]{color:#a40e26;font-weight:600}.note{color:#4a5263;font-size:.9rem}`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Rx Batch local sandbox</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export type Notice = { kind: 'error' | 'info'; text: string };

function notice(n: Notice | undefined): string {
  if (!n) return '';
  return n.kind === 'error'
    ? `<p role="alert">${escapeHtml(n.text)}</p>`
    : `<p role="status">${escapeHtml(n.text)}</p>`;
}

/** Step 1 (verification_uri): type the code the app shows. */
export function codeEntryPage(o: { action: string; xsrf: string; notice?: Notice }): string {
  return page(
    'Enter your code',
    `<h1>Sign in to Rx Batch</h1>
${notice(o.notice)}
<form method="post" action="${escapeHtml(o.action)}">
<input type="hidden" name="xsrf" value="${escapeHtml(o.xsrf)}">
<label for="user_code">Code shown in Rx Batch</label>
<input type="text" id="user_code" name="user_code" autocomplete="off" autocapitalize="characters" spellcheck="false" autofocus required>
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>`,
  );
}

/** Step 2: RFC 8628 §5.4 — the person checks the code matches the app before anything is granted. */
export function codeConfirmPage(o: { action: string; xsrf: string; userCode: string; clientName: string }): string {
  return page(
    'Check the code',
    `<h1>Check the code</h1>
<p><strong>${escapeHtml(o.clientName)}</strong> wants to sign in. Continue only if Rx Batch shows this code:</p>
<p class="code" aria-label="Code">${escapeHtml(o.userCode)}</p>
<form method="post" action="${escapeHtml(o.action)}">
<input type="hidden" name="xsrf" value="${escapeHtml(o.xsrf)}">
<input type="hidden" name="user_code" value="${escapeHtml(o.userCode)}">
<div class="actions">
<button type="submit" class="primary" name="confirm" value="yes">Continue</button>
<button type="submit" class="secondary" name="abort" value="yes">Cancel</button>
</div>
</form>`,
  );
}

/** Step 3: the sandbox's only account. Its credentials are printed here on purpose: this is a local stand-in. */
export function loginPage(o: { action: string; username?: string; error?: string; hint: string }): string {
  return page(
    'Sign in',
    `<h1>Sign in to the local sandbox</h1>
${o.error ? notice({ kind: 'error', text: o.error }) : ''}
<form method="post" action="${escapeHtml(o.action)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" value="${escapeHtml(o.username ?? '')}" autofocus required>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>
<p class="note">${escapeHtml(o.hint)}</p>`,
  );
}

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Know who you are',
  offline_access: 'Stay signed in until you sign out',
  cloudrx_orderservice: 'Send prescription orders and read their status',
  cloudrx_productservice: 'Look up products, stock and prices',
  cloudrx_smsservice: 'Use the SMS service',
  cloudrx_courierservice: 'Read courier prices',
};

/** Step 4: Allow or Deny. Deny makes the app's poll end with `access_denied`. */
export function consentPage(o: { action: string; clientName: string; username: string; scopes: string[] }): string {
  const items = o.scopes.map((s) => `<li>${escapeHtml(SCOPE_TEXT[s] ?? s)}</li>`).join('\n');
  return page(
    'Allow access',
    `<h1>Allow ${escapeHtml(o.clientName)}?</h1>
<p>Signed in as <strong>${escapeHtml(o.username)}</strong>. ${escapeHtml(o.clientName)} asks to:</p>
<ul>
${items}
</ul>
<form method="post" action="${escapeHtml(o.action)}">
<div class="actions">
<button type="submit" class="primary" name="decision" value="allow">Allow</button>
<button type="submit" class="secondary" name="decision" value="deny">Deny</button>
</div>
</form>`,
  );
}

export function successPage(o: { clientName: string }): string {
  return page(
    'Signed in',
    `<h1>You are signed in</h1>
<p role="status">${escapeHtml(o.clientName)} is now signed in. You can close this page and go back to the app.</p>`,
  );
}

export function errorPage(o: { title: string; message: string }): string {
  return page(o.title, `<h1>${escapeHtml(o.title)}</h1>\n<p role="alert">${escapeHtml(o.message)}</p>`);
}
