import { parentHostPort, runCoreHost } from './host-runtime.js';

/**
 * The core host's process entry, the same in every mode: an Electron `utilityProcess` in the desktop app
 * (electron.vite.config.ts builds it as out/main/core-host.js), a child process of the bridge host in browser mode,
 * a forked child in tests. It waits for the shell's `start` (host-protocol.ts) and serves it until told to stop.
 */

const host = runCoreHost({ port: parentHostPort(), exit: (code) => process.exit(code) });

// SIGTERM (the shell's kill(), a service manager) closes the core first. SIGINT is a terminal's Ctrl-C, which
// reaches the whole process group: the shell decides when the core stops, and tells it.
process.on('SIGTERM', () => void host.stop());
process.on('SIGINT', () => {});
