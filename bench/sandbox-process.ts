import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The local sandbox in its own process (`sandbox/cli.ts`), so the benchmarks measure the client side only:
 * the sandbox's own work runs on the other core, the same for the raw loop and the outbox.
 */
export interface SandboxProcess {
  apiUrl: string;
  issuer: string;
  serviceClient: { clientId: string; clientSecret: string };
  /** Changes the sandbox's fault switches (latency, …) over its admin route. */
  setFaults(faults: Record<string, unknown>): Promise<void>;
  /** Orders the sandbox holds. */
  orderCount(): Promise<number>;
  /** The sandbox process's CPU time so far, in milliseconds. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function startSandboxProcess(): Promise<SandboxProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--step-ms', '86400000'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const lines = await new Promise<Map<string, string>>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const found = new Map(
        out
          .split('\n')
          .filter((line) => line.includes(': '))
          .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)] as const),
      );
      if (found.has('admin-token')) {
        child.stdout?.off('data', onData);
        resolve(found);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it was ready`)));
  });
  const apiUrl = lines.get('api')!;
  const [clientId, clientSecret] = lines.get('service-client')!.split(' ') as [string, string];
  // The admin routes need this launch's token (the sandbox prints it as its last start line).
  const adminToken = lines.get('admin-token')!;
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(new URL(path, apiUrl), {
      ...init,
      headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${adminToken}` },
    });
  return {
    apiUrl,
    issuer: lines.get('issuer')!,
    serviceClient: { clientId, clientSecret },
    async setFaults(faults) {
      const response = await admin('__sandbox/faults', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(faults),
      });
      if (!response.ok) throw new Error(`setting sandbox faults failed: ${response.status}`);
    },
    async orderCount() {
      const response = await admin('__sandbox/orders');
      return ((await response.json()) as unknown[]).length;
    },
    async cpuMs() {
      const response = await admin('__sandbox/cpu');
      return ((await response.json()) as { cpuMicros: number }).cpuMicros / 1000;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
