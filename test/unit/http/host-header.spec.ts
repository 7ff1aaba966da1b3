import { connect } from 'node:net';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';

/** RFC 9112 section 3.2: an HTTP/1.1 request names exactly one Host */
describe('the Host header', () => {
  let t: InMemoryApp;
  beforeAll(async () => {
    t = await startInMemoryApp();
  });
  afterAll(() => t.close());

  /** sends `request` as it is and reads the answer until the server ends it */
  function raw(request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1', () => socket.end(request));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
  }
  const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string; request_id: string } };
  const requestIdOf = (answer: string) => /\r\nX-Request-Id: (\S+)\r\n/i.exec(answer)?.[1];

  it.each([
    ['missing', 'GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n', 'The Host header is missing: HTTP/1.1 requires it'],
    ['missing, on the polled job route', 'GET /v1/jobs/job_00000000000000000000000000 HTTP/1.1\r\nX-Api-Key: bd_live_x\r\nConnection: close\r\n\r\n', 'The Host header is missing: HTTP/1.1 requires it'],
    ['sent twice', 'GET /health/live HTTP/1.1\r\nHost: a.example\r\nhost: b.example\r\nConnection: close\r\n\r\n', 'The Host header was sent more than once'],
  ])('%s: 400 in the envelope with its request id (Node answered a bare 400, and let two through)', async (_case, request, message) => {
    const answer = await raw(request);
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(bodyOf(answer).error).toEqual({ code: 'invalid_request', message, request_id: requestIdOf(answer) });
  });

  it('one Host is served, and HTTP/1.0 needs none', async () => {
    expect((await raw('GET /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect((await raw('GET /health/live HTTP/1.0\r\n\r\n')).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  });
});
