import type { Server } from 'node:http';

/**
 * How many connections each of the sandbox's servers (API, identity) takes at once. Its API reads a whole body (up to
 * 1 MB) before it looks at the token, and Node gives a request 5 minutes to arrive, so uncapped, any local user could
 * hold a megabyte per connection over thousands of them and end the core that runs the embedded sandbox out of
 * memory (docs/security.md, finding 37). The app sends at most 16 requests at once per environment.
 */
export const MAX_SANDBOX_CONNECTIONS = 128;

/** One more connection is closed by Node before any of it is read. */
export function capConnections(server: Server): Server {
  server.maxConnections = MAX_SANDBOX_CONNECTIONS;
  return server;
}
