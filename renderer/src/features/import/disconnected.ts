/** Whether a call failed because the link to Rx Batch dropped (the contract's `disconnected`), not with an answer. */
export function isDisconnected(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'disconnected';
}
