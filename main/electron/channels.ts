/**
 * The IPC channels, shared by ipc.ts (main) and preload.ts: one for calls, one for core events, and one on which
 * the preload reports the path of a file the admin dropped on the page (so `import.file` may read it).
 */
export const CALL_CHANNEL = 'rxbatch:call';
export const EVENT_CHANNEL = 'rxbatch:event';
export const DROPPED_PATH_CHANNEL = 'rxbatch:dropped-path';
