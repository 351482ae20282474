import { parseArgs } from 'node:util';
import { createLogger } from '../main/core/platform/logger.js';
import { DEFAULT_STATUS_STEP_MS, startSandbox } from './index.js';

/**
 * `npm run sandbox -- --port N [--data-dir DIR] [--step-ms N]`: runs the local sandbox until SIGINT/SIGTERM,
 * with its admin routes on (behind this launch's admin token). stdout carries exactly five lines (api, issuer,
 * device client, service client, admin token) for scripts to read; logs go to stderr.
 */

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: npm run sandbox -- --port N [--data-dir DIR] [--step-ms N]\n`);
  process.exit(2);
}

function intOption(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    usage(`--${name} must be a whole number from ${min} to ${max}`);
  return value;
}

async function main(): Promise<void> {
  let values: { port?: string; 'data-dir'?: string; 'step-ms'?: string };
  try {
    ({ values } = parseArgs({
      options: { port: { type: 'string' }, 'data-dir': { type: 'string' }, 'step-ms': { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    usage(error instanceof Error ? error.message : 'bad arguments');
  }
  const sandbox = await startSandbox({
    port: intOption('port', values.port, 0, 0, 65_535),
    statusStepMs: intOption('step-ms', values['step-ms'], DEFAULT_STATUS_STEP_MS, 10, 86_400_000),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    logger: createLogger('sandbox'),
    adminRoutes: true,
  });
  process.stdout.write(
    [
      `api: ${sandbox.apiUrl}`,
      `issuer: ${sandbox.issuer}`,
      `device-client: ${sandbox.deviceClient.clientId}`,
      `service-client: ${sandbox.serviceClient.clientId} ${sandbox.serviceClient.clientSecret}`,
      `admin-token: ${sandbox.adminToken}`,
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`sandbox: ${signal}, closing\n`);
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`sandbox: close failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`sandbox: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
