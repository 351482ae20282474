import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceError } from '../../../shared/errors.js';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { type CallOutcome } from './client.js';
import { answerWith, startHostileServer, type HostileServer, rawServerClient } from './testing/hostile-server.js';

/**
 * Errors answered with a web page by whatever stands in front of the service: the admin reads the page's title,
 * not its markup (which was the message stored with the order and shown, cut at 500 characters).
 */

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const client = () => rawServerClient(server.url);

function errorOf(outcome: CallOutcome<unknown>): ServiceError {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

const NGINX_413 =
  '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
const CDN_502 = `<!DOCTYPE html>\n<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->\n<head>\n<style>${'body{margin:0}'.repeat(60)}</style>\n<title>orderservice.example | 502: Bad gateway</title>\n</head><body><h1>Bad gateway</h1></body></html>`;

describe('an error answered with a web page', () => {
  it("a proxy's 413 page is a refusal in the page's words", async () => {
    server.answer(answerWith(413, NGINX_413, { 'content-type': 'text/html' }));
    expect(errorOf(await client().createWithClinic(sampleV1()))).toMatchObject({
      kind: 'rejected',
      status: 413,
      message: 'the service answered with a web page instead of its own error: "413 Request Entity Too Large"',
    });
  });

  it("a CDN's 502 page, its title behind a style sheet, is in doubt with the title", async () => {
    server.answer(answerWith(502, CDN_502, { 'content-type': 'text/html; charset=UTF-8' }));
    const error = errorOf(await client().createWithClinic(sampleV1()));
    expect(error).toMatchObject({ kind: 'in-doubt', reason: 'server', status: 502 });
    expect(error.message).toBe(
      'the service failed (502): the service answered with a web page instead of its own error: "orderservice.example | 502: Bad gateway"',
    );
  });

  it('a page with no title or heading says it was a page; JSON labelled text/html is still read as JSON', async () => {
    server.answer(answerWith(400, '<!doctype html><p>no</p>', { 'content-type': 'text/html' }));
    expect(errorOf(await client().createWithClinic(sampleV1())).message).toBe(
      'the service answered with a web page instead of its own error',
    );
    server.answer(
      answerWith(400, JSON.stringify({ error: 'invalid courier', status: 400 }), { 'content-type': 'text/html' }),
    );
    expect(errorOf(await client().createWithClinic(sampleV1())).message).toBe('invalid courier');
  });
});

describe('a web page built to make the title search backtrack', () => {
  // Under the 200,000 characters read for a title, markup no real page has: every `<title` with no `>` after it,
  // or a title of `<` with no `>`, had each start tried to the end (quadratic): 7 s and 40 s of the core's loop
  // for one answer, which a service, or an address script in the page saved and had checked, sends for every call.
  it.each<[string, string, string]>([
    ['a run of `<title` with no `>`', `<html>${'<title'.repeat(33_000)}`, ''],
    ['a title of `<` with no `>`', `<html><title>${'<'.repeat(190_000)}</title>`, `: "${'<'.repeat(200)}…"`],
    ['a run of `<title>` with no end tag', `<html>${'<title>'.repeat(28_000)}<h1>Busy</h1>`, ': "Busy"'],
  ])('%s is read at once', async (_name, page, said) => {
    server.answer(answerWith(400, page, { 'content-type': 'text/html' }));
    const started = performance.now();
    const error = errorOf(await client().createWithClinic(sampleV1()));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error.message).toBe(`the service answered with a web page instead of its own error${said}`);
  });
});
