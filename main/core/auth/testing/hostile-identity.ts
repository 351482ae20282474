import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback identity server whose every answer the test scripts: its discovery document (endpoints anywhere,
 * http or https), its token and device-authorization answers (odd `expires_in`, `token_type`, `interval`, OAuth
 * errors). For what a real provider (the sandbox's oidc-provider) never does. Every request is recorded with its
 * form fields, so a test can say what was sent where.
 */

export interface IdentityRequest {
  path: string;
  form: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** performance.now() when it arrived. */
  at: number;
}

export interface IdentityAnswer {
  status: number;
  body: unknown;
}

export interface HostileIdentity {
  /** `http://127.0.0.1:<port>`, also the `issuer` of its discovery document. */
  issuer: string;
  requests: IdentityRequest[];
  /** Replaces fields of the discovery document (an endpoint elsewhere, say); `undefined` deletes one. */
  metadata(fields: Record<string, unknown>): void;
  /** What the token endpoint answers next (called per request). */
  onToken(answer: (request: IdentityRequest) => IdentityAnswer | Promise<IdentityAnswer>): void;
  /** What the device authorization endpoint answers. */
  /** The device authorization endpoint's answer from now on; none: the usual one. */
  onDevice(answer?: (request: IdentityRequest) => IdentityAnswer): void;
  close(): Promise<void>;
}

export function tokenAnswer(fields: Record<string, unknown> = {}): IdentityAnswer {
  return {
    status: 200,
    body: {
      access_token: `at-${Math.random().toString(36).slice(2)}`,
      token_type: 'Bearer',
      expires_in: 300,
      ...fields,
    },
  };
}

export function oauthError(error: string, status = 400): IdentityAnswer {
  return { status, body: { error } };
}

async function formOf(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

export async function startHostileIdentity(): Promise<HostileIdentity> {
  const requests: IdentityRequest[] = [];
  let overrides: Record<string, unknown> = {};
  let token: (request: IdentityRequest) => IdentityAnswer | Promise<IdentityAnswer> = () => tokenAnswer();
  const usualDevice = (): IdentityAnswer => ({
    status: 200,
    body: {
      device_code: 'device-code-1',
      user_code: 'ABCD-EFGH',
      verification_uri: `${issuer}/device`,
      expires_in: 600,
      interval: 1,
    },
  });
  let device: (request: IdentityRequest) => IdentityAnswer = usualDevice;
  let issuer = '';

  const send = (res: ServerResponse, answer: IdentityAnswer) => {
    res.writeHead(answer.status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', issuer).pathname;
      if (req.method === 'GET' && path === '/.well-known/openid-configuration') {
        const document: Record<string, unknown> = {
          issuer,
          token_endpoint: `${issuer}/token`,
          device_authorization_endpoint: `${issuer}/device/auth`,
          grant_types_supported: [
            'client_credentials',
            'refresh_token',
            'urn:ietf:params:oauth:grant-type:device_code',
          ],
          ...overrides,
        };
        for (const [key, value] of Object.entries(document)) if (value === undefined) delete document[key];
        return send(res, { status: 200, body: document });
      }
      const at = performance.now();
      const request: IdentityRequest = { path, form: await formOf(req), headers: req.headers, at };
      requests.push(request);
      if (path === '/token') return send(res, await token(request));
      if (path === '/device/auth') return send(res, device(request));
      return send(res, { status: 404, body: { error: 'not_found' } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    requests,
    metadata: (fields) => {
      overrides = { ...overrides, ...fields };
    },
    onToken: (answer) => {
      token = answer;
    },
    onDevice: (answer) => {
      device = answer ?? usualDevice;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
