import { utilityProcess } from 'electron';
import type { HostChannel, HostSpawner } from '../host/core-client.js';

/**
 * The desktop app's core host: an Electron utility process running the host entry (out/main/core-host.js), so
 * SQLite, imports, accepts and the submitter never hold the main process (windows, menus, dialogs) or each other's
 * window. It runs on Electron's own Node, which loads better-sqlite3's one N-API binary as plain Node does.
 */
export function utilityProcessSpawner(entry: string): HostSpawner {
  return (): HostChannel => {
    const child = utilityProcess.fork(entry, [], { serviceName: 'Rx Batch core', stdio: 'inherit' });
    let ended = false;
    child.once('exit', () => {
      ended = true;
    });
    return {
      get pid() {
        return child.pid;
      },
      send(message) {
        if (ended) return false;
        child.postMessage(message);
        return true;
      },
      onMessage: (listener) => void child.on('message', listener),
      onExit(listener) {
        if (ended) queueMicrotask(() => listener(null, null));
        else child.once('exit', (code) => listener(code, null));
      },
      // SIGTERM on POSIX: the host closes the core if it still can; the client has already given up on it.
      kill: () => void child.kill(),
    };
  };
}
