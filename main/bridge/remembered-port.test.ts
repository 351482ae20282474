import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { onRememberedPort, PORT_FILE, rememberedPort, rememberPort } from './remembered-port.js';

/** Listens like the bridge does (127.0.0.1), rejecting with the listen error. */
function listen(port: number): Promise<Server> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("browser mode's remembered port", () => {
  it('comes back on the port it had, so the page keeps its origin (and its chosen environment and theme)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-port-'));
    dirs.push(dataDir);
    expect(rememberedPort(dataDir)).toBeUndefined();
    const first = await onRememberedPort(rememberedPort(dataDir), listen);
    servers.push(first);
    const port = (first.address() as { port: number }).port;
    rememberPort(dataDir, port);
    if (process.platform !== 'win32') expect(statSync(join(dataDir, PORT_FILE)).mode & 0o777).toBe(0o600);
    await new Promise((resolve) => first.close(resolve));
    servers.length = 0;

    const again = await onRememberedPort(rememberedPort(dataDir), listen);
    servers.push(again);
    expect((again.address() as { port: number }).port).toBe(port);
  });

  it('takes any free port when the remembered one is taken', async () => {
    const squatter = await listen(0);
    servers.push(squatter);
    const taken = (squatter.address() as { port: number }).port;
    const started = await onRememberedPort(taken, listen);
    servers.push(started);
    expect((started.address() as { port: number }).port).not.toBe(taken);
  });
});
