import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request } from 'express';
import { digestMultipartBody, digestOfFiles, MAX_FIELD_VALUE_BYTES, multipartParsing } from '../../../src/common/http/multipart-digest';

const MAX_FILE_BYTES = 4096;
const BOUNDARY = 'digest-test';
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

const filePart = (name: string, filename: string, bytes: Buffer, boundary = BOUNDARY): Buffer =>
  Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: video/mp4\r\n\r\n`), bytes, Buffer.from('\r\n')]);
const fieldPart = (name: string, value: string): Buffer => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
const closing = (boundary = BOUNDARY): Buffer => Buffer.from(`--${boundary}--\r\n`);

/** A server whose every request is digested (as a replay is); `digests` get what each resolved to. */
describe('digestMultipartBody (a replayed upload read and hashed, not stored)', () => {
  let server: http.Server;
  let port: number;
  let digests: Array<string | undefined>;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      void digestMultipartBody(req as Request, MAX_FILE_BYTES).then((digest) => {
        digests.push(digest);
        res.end(digest ?? 'refused');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  beforeEach(() => {
    digests = [];
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (body: Buffer, { sized = true, boundary = BOUNDARY }: { sized?: boolean; boundary?: string } = {}) =>
    new Promise<string>((resolve, reject) => {
      const headers = { 'Content-Type': `multipart/form-data; boundary=${boundary}`, ...(sized ? { 'Content-Length': String(body.length) } : {}) };
      const req = http.request({ port, host: '127.0.0.1', method: 'POST', headers }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      for (let offset = 0; offset < body.length; offset += 1000) req.write(body.subarray(offset, offset + 1000));
      req.end();
    });

  it('digests the files as the stored upload is digested (field, filename, bytes), sized or chunked, text fields aside', async () => {
    const bytes = Buffer.alloc(3000, 7);
    const expected = digestOfFiles([{ fieldname: 'file', originalname: 'clip "1".mp4', sha256: sha256(bytes) }]);
    expect(await post(Buffer.concat([filePart('file', 'clip %221%22.mp4', bytes), closing()]))).toBe(expected);
    expect(await post(Buffer.concat([fieldPart('note', 'ignored'), filePart('file', 'clip %221%22.mp4', bytes), closing()]), { sized: false })).toBe(expected);
    expect(await post(Buffer.concat([filePart('video', 'clip %221%22.mp4', bytes), closing()]))).not.toBe(expected);
  });

  it('a file of exactly the size limit is digested (multer takes it); one byte more is refused', async () => {
    expect(await post(Buffer.concat([filePart('file', 'a.mp4', Buffer.alloc(MAX_FILE_BYTES, 1)), closing()]))).toBe(
      digestOfFiles([{ fieldname: 'file', originalname: 'a.mp4', sha256: sha256(Buffer.alloc(MAX_FILE_BYTES, 1)) }]),
    );
    expect(await post(Buffer.concat([filePart('file', 'a.mp4', Buffer.alloc(MAX_FILE_BYTES + 1, 1)), closing()]))).toBe('refused');
  });

  it('a text field multer refuses as too long (over MAX_FIELD_VALUE_BYTES) is refused; one of exactly that is not', async () => {
    const withField = (bytes: number) => Buffer.concat([fieldPart('note', 'x'.repeat(bytes)), filePart('file', 'a.mp4', Buffer.from('a')), closing()]);
    expect(await post(withField(MAX_FIELD_VALUE_BYTES))).not.toBe('refused');
    expect(await post(withField(MAX_FIELD_VALUE_BYTES + 1))).toBe('refused');
  });

  it('more files or parts than multer takes are refused', async () => {
    const two = Buffer.concat([filePart('file', 'a.mp4', Buffer.from('a')), filePart('file', 'b.mp4', Buffer.from('b')), closing()]);
    expect(await post(two)).toBe('refused');
    const { parts } = multipartParsing(MAX_FILE_BYTES).limits;
    const many = Buffer.concat([...Array.from({ length: parts }, (_, i) => fieldPart(`f${i}`, 'x')), filePart('file', 'a.mp4', Buffer.from('a')), closing()]);
    expect(await post(many)).toBe('refused');
  });

  it('a body that ends inside its file, or has no boundary, is refused, and the process goes on', async () => {
    expect(await post(filePart('file', 'a.mp4', Buffer.alloc(2000, 3)).subarray(0, 1500))).toBe('refused');
    expect(await post(Buffer.from('not multipart at all'), { boundary: '' })).toBe('refused');
    expect(await post(Buffer.concat([filePart('file', 'a.mp4', Buffer.from('ok')), closing()]))).not.toBe('refused');
  });

  it('a client gone in the middle of its body settles the digest (refused)', async () => {
    const req = http.request({ port, host: '127.0.0.1', method: 'POST', headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': '100000' } });
    req.on('error', () => undefined);
    req.write(filePart('file', 'a.mp4', Buffer.alloc(2000, 3)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    req.destroy();
    const deadline = Date.now() + 5000;
    while (digests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(digests).toEqual([undefined]);
  });
});
