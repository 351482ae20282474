import { afterAll, beforeAll, expect, it } from 'vitest';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { answerWith, startHostileServer, type HostileServer, rawServerClient } from './testing/hostile-server.js';

/**
 * A service that answers XML though asked for JSON (ASP.NET Web API's content negotiation, a service ignoring
 * Accept). Before, "the answer is not JSON", which says nothing of what came back or why. Real client, raw loopback
 * server.
 */

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const client = () => rawServerClient(server.url);

const XML_SAID = "the answer is XML, not JSON (the service ignored the request's Accept: application/json)";

it.each([
  [
    'with its declaration',
    '<?xml version="1.0"?><CreateResponse><orderId>4711</orderId></CreateResponse>',
    'text/plain',
  ],
  ['by its type', '<CreateResponse><orderId>4711</orderId></CreateResponse>', 'application/xml; charset=utf-8'],
])('a create answered in XML %s says so, and is in doubt', async (_name, body, contentType) => {
  server.answer(answerWith(200, body, { 'content-type': contentType }));
  expect(await client().createWithClinic(sampleV1())).toMatchObject({
    ok: false,
    error: { kind: 'in-doubt', reason: 'unreadable-response', message: `${XML_SAID}: the outcome is unknown` },
  });
  server.answer(answerWith(200, body, { 'content-type': contentType }));
  expect(await client().statusWithClinicCode({ clinicCode: 'C', clinicOrderId: 'A-1' })).toMatchObject({
    ok: false,
    error: { kind: 'retryable', message: XML_SAID },
  });
});

it('an XHTML page is still read as a web page', async () => {
  const page = '<?xml version="1.0"?><html><head><title>Maintenance</title></head></html>';
  server.answer(answerWith(200, page, { 'content-type': 'application/xhtml+xml' }));
  expect(await client().createWithClinic(sampleV1())).toMatchObject({
    ok: false,
    error: {
      message: 'the service answered with a web page instead of its answer: "Maintenance": the outcome is unknown',
    },
  });
});

it.each([
  [
    "Web API's error",
    '<?xml version="1.0"?><Error><Message>The request is invalid.</Message><MessageDetail>x</MessageDetail></Error>',
    'application/xml',
    'the service answered in XML: "The request is invalid."',
  ],
  [
    'a SOAP fault',
    '<soap:Envelope xmlns:soap="x"><soap:Body><soap:Fault><faultcode>soap:Client</faultcode><faultstring>Invalid clinic</faultstring></soap:Fault></soap:Body></soap:Envelope>',
    'text/xml; charset=utf-8',
    'the service answered in XML: "Invalid clinic"',
  ],
  [
    'XML saying nothing',
    '<?xml version="1.0"?><x/>',
    'application/xml',
    'the service answered in XML, which says nothing the client can read',
  ],
])('a refusal in XML (%s) gives its words, not its markup', async (_name, body, contentType, message) => {
  server.answer(answerWith(400, body, { 'content-type': contentType }));
  expect(await client().createWithClinic(sampleV1())).toMatchObject({
    ok: false,
    error: { kind: 'rejected', message },
  });
});
