/** The two IPC channels, shared by ipc.ts (main) and preload.ts: one for calls, one for core events. */
export const CALL_CHANNEL = 'rxbatch:call';
export const EVENT_CHANNEL = 'rxbatch:event';
