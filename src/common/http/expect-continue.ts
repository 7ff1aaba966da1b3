import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { errorEnvelope } from './error-envelope';
import { newRequestId } from '../ids';

/**
 * `Expect: 100-continue`: the client sends the body only once the server has said 100 Continue.
 * Node said it at once for every request, before the key, the rate limit, the key's upload slots
 * or the size had been checked, so a client sent a body of up to 500 MB that was then refused
 * (RFC 9110 section 10.1.1: a server that can decide from the headers answers with its final
 * status instead). Now 100 is said when something first reads the body, which is after those
 * checks. A request answered without its body being read closes its connection: the client may
 * still send that body, which must not be read as its next request.
 *
 * Any other expectation is answered 417 in the contract's envelope (Node's was a bare status).
 */
export function continueWhenBodyIsRead(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const keepAlive = res.shouldKeepAlive;
    res.shouldKeepAlive = false;
    const read = req._read.bind(req);
    let continued = false;
    req._read = (size: number) => {
      if (!continued && !res.headersSent) {
        continued = true;
        res.writeContinue();
        res.shouldKeepAlive = keepAlive;
      }
      read(size);
    };
    server.emit('request', req, res);
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const requestId = newRequestId();
    const body = JSON.stringify(errorEnvelope('invalid_request', `Expect: ${String(req.headers.expect)} is not supported; only 100-continue is`, requestId));
    res.writeHead(417, STATUS_CODES[417], { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'X-Request-Id': requestId, Connection: 'close' });
    res.end(body);
  });
}
