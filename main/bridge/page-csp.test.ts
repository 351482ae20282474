import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The page's own Content-Security-Policy (the meta tag in renderer/index.html) applies beside the header each host
 * sends. It may let the page talk to itself only: the bridge's WebSocket is same-origin ('self' covers ws: on
 * the page's own host and port), so no other local port may be reached (finding 10 of docs/security.md).
 */
describe('the renderer page policy', () => {
  const html = readFileSync(join(import.meta.dirname, '../../renderer/index.html'), 'utf8');
  const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1] ?? '';
  const directives = new Map(
    meta.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );

  it('lets the page connect only to its own origin', () => {
    expect(directives.get('connect-src')).toEqual(["'self'"]);
  });

  it('allows no wildcard source anywhere', () => {
    expect(meta).not.toBe('');
    expect(meta).not.toMatch(/\*/);
  });
});
