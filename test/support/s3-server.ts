import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import S3rver from 's3rver';
import type { S3StorageConfig } from '../../src/config/app-config';

/** s3rver's built-in account. */
const ACCESS_KEY_ID = 'S3RVER';
const SECRET_ACCESS_KEY = 'S3RVER';

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  /** The S3ObjectStorage configuration for this server (another bucket name to misconfigure it). */
  storageConfig(bucket?: string): S3StorageConfig;
  /** The environment that points the app at this server. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

const rfc3986 = (value: string): string => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/**
 * Checks a SigV4 presigned (query-string) request as S3 does, from the AWS documentation and
 * independently of the SDK: the method, path, query, signed headers, expiry and secret are all
 * covered. Returns null when it holds, or S3's error code. (s3rver itself checks only the expiry.)
 */
function presignProblem(req: IncomingMessage, nowMs = Date.now()): { code: string; message: string } | null {
  const url = new URL(req.url ?? '/', 'http://s3.invalid');
  const q = url.searchParams;
  const [accessKeyId, date, region, service, terminator] = (q.get('X-Amz-Credential') ?? '').split('/');
  const amzDate = q.get('X-Amz-Date') ?? '';
  const signature = q.get('X-Amz-Signature') ?? '';
  const signedHeaders = q.get('X-Amz-SignedHeaders') ?? '';
  const expires = Number(q.get('X-Amz-Expires'));
  if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || accessKeyId !== ACCESS_KEY_ID || terminator !== 'aws4_request' || !/^[0-9a-f]{64}$/.test(signature)) {
    return { code: 'AuthorizationQueryParametersError', message: 'malformed presigned query' };
  }
  const issued = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (!Number.isFinite(issued) || !Number.isInteger(expires)) return { code: 'AuthorizationQueryParametersError', message: 'bad X-Amz-Date or X-Amz-Expires' };
  const query = [...q.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [rfc3986(name), rfc3986(value)])
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headers = signedHeaders
    .split(';')
    .map((name) => `${name}:${String(req.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalRequest = [req.method, url.pathname, query, headers, signedHeaders, 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${SECRET_ACCESS_KEY}`, date), region), service), 'aws4_request');
  if (!timingSafeEqual(hmac(signingKey, stringToSign), Buffer.from(signature, 'hex'))) {
    return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' };
  }
  return issued + expires * 1000 < nowMs ? { code: 'AccessDenied', message: 'Request has expired' } : null;
}

/**
 * A real S3-compatible server (s3rver, objects on disk in a temporary directory) on a loopback port,
 * with one bucket, in front of which presigned URLs are verified as S3 verifies them.
 */
export async function startS3Server(bucket = 'backdrop-test'): Promise<TestS3Server> {
  const directory = mkdtempSync(path.join(tmpdir(), 'backdrop-s3rver-'));
  const s3rver = new S3rver({ directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
  await s3rver.configureBuckets();
  const handle = s3rver.callback();
  const server: Server = createServer((req, res) => {
    const problem = new URL(req.url ?? '/', 'http://s3.invalid').searchParams.has('X-Amz-Algorithm') ? presignProblem(req) : null;
    if (!problem) return handle(req, res);
    req.resume();
    res.writeHead(403, { 'Content-Type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${problem.code}</Code><Message>${problem.message}</Message></Error>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    bucket,
    storageConfig: (name = bucket) => ({
      kind: 's3',
      bucket: name,
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
    }),
    env: () => ({ STORAGE: 's3', S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_ACCESS_KEY_ID: ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
