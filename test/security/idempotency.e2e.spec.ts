import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { Client } from 'pg';
import { fingerprintOf, hashApiKey } from '../../src/modules/auth/domain/api-key';
import { requestFingerprint } from '../../src/modules/idempotency/domain/request-fingerprint';
import { MEDIA_DIR } from '../support/test-app';
import { AppCluster, startAppCluster } from './support/app-cluster';

const CLIP = path.join(MEDIA_DIR, 'portrait-pan.mp4');
const PUBLIC_VIDEO = 'http://93.184.216.34/video.mp4';

describe('Idempotency-Key (two API processes, one Postgres)', () => {
  let cluster: AppCluster;
  let db: Client;

  beforeAll(async () => {
    cluster = await startAppCluster(2, { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_STARTS_PER_MINUTE: '100000' });
    db = new Client({ connectionString: cluster.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await cluster.close();
  });

  const post = (key: string, route: string, body: object, idempotencyKey?: string, node = 0) => {
    const req = cluster.nodes[node].http.post(route).set('X-Api-Key', key);
    return (idempotencyKey === undefined ? req : req.set('Idempotency-Key', idempotencyKey)).send(body);
  };
  const jobCount = async (key: string) => (await cluster.nodes[0].http.get('/v1/jobs?limit=100').set('X-Api-Key', key)).body.total as number;

  it('a repeat with the same body replays the first response (status and body) without a second job', async () => {
    const key = await cluster.createKey();
    const body = { video_url: PUBLIC_VIDEO, metadata: { order: '1' }, output_format: 'webm' };
    const first = await post(key, '/v1/jobs', body, 'order-1');
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Same body with its keys in another order, through the other process.
    const again = await post(key, '/v1/jobs', { output_format: 'webm', metadata: { order: '1' }, video_url: PUBLIC_VIDEO }, 'order-1', 1);
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await jobCount(key)).toBe(1);
  });

  it('a job committed by a process that died before storing its answer: a retry after its claim is abandoned gets that job, not a second one', async () => {
    const key = await cluster.createKey();
    const body = { video_url: PUBLIC_VIDEO, auto_start: false };
    const first = await post(key, '/v1/jobs', body, 'died-after-commit');
    // the row as that process left it: the job's id noted in the job's own transaction, no answer stored, the claim old
    await db.query(
      `UPDATE idempotency_keys SET status = 'in_progress', response_status = NULL, response_body = NULL, locked_at = now() - interval '16 minutes' WHERE idempotency_key = 'died-after-commit'`,
    );
    const retry = await post(key, '/v1/jobs', body, 'died-after-commit', 1);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    expect(await jobCount(key)).toBe(1);
  });

  it('the same key with a different body is 422 idempotency_mismatch', async () => {
    const key = await cluster.createKey();
    expect((await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false }, 'k')).status).toBe(200);
    const other = await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false, metadata: { a: 'b' } }, 'k');
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ success: false, error: { code: 'idempotency_mismatch', message: expect.any(String), request_id: other.headers['x-request-id'] } });
    expect(await jobCount(key)).toBe(1);
  });

  it('keys are per API key: the same Idempotency-Key under another API key is a new request', async () => {
    const [one, two] = [await cluster.createKey(), await cluster.createKey()];
    const a = await post(one, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false }, 'shared');
    const b = await post(two, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false }, 'shared');
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('20 concurrent identical requests over two processes create exactly one job; the others replay it or answer 409 idempotency_in_progress', async () => {
    const key = await cluster.createKey();
    const body = { video_url: PUBLIC_VIDEO, metadata: { burst: 'yes' } };
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(key, '/v1/jobs', body, 'burst-1', i % 2)));
    const ok = answers.filter((res) => res.status === 200);
    const busy = answers.filter((res) => res.status === 409);
    expect(ok.length + busy.length).toBe(20);
    expect(new Set(ok.map((res) => res.body.id)).size).toBe(1);
    for (const res of busy) expect(res.body.error.code).toBe('idempotency_in_progress');
    expect(await jobCount(key)).toBe(1);
    // Once done, every repeat is a replay of that one job.
    const later = await post(key, '/v1/jobs', body, 'burst-1');
    expect(later.status).toBe(200);
    expect(later.body.id).toBe(ok[0].body.id);
  });

  it('a repeat while the first is still running is 409 idempotency_in_progress', async () => {
    const key = await cluster.createKey();
    const { rows } = await db.query(`SELECT id FROM api_keys WHERE key_fingerprint = $1`, [fingerprintOf(hashApiKey(key))]);
    // The first request's claim, as it stands while its work runs.
    await db.query(`INSERT INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, status, expires_at) VALUES ($1, 'slow', $2, 'in_progress', now() + interval '1 day')`, [
      rows[0].id,
      // the fingerprint of exactly this request, so the refusal is "in progress", not "mismatch"
      requestFingerprint('POST', '/v1/jobs', { json: { video_url: PUBLIC_VIDEO } }),
    ]);
    const res = await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO }, 'slow');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_in_progress');
    expect(await jobCount(key)).toBe(0);
  });

  it('a request that fails gives its key back: the corrected retry with the same key does the work', async () => {
    const key = await cluster.createKey();
    const bad = await post(key, '/v1/jobs', { video_url: 'http://127.0.0.1/x.mp4' }, 'retry-me');
    expect(bad.status).toBe(400);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE idempotency_key = 'retry-me'`);
    expect(rows[0].n).toBe(0);
    const corrected = await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO }, 'retry-me');
    expect(corrected.status).toBe(200); // not 422: the failed request left no claim behind
    expect(await jobCount(key)).toBe(1);
  });

  it('start: a replay returns the first start; the same key on another job is a mismatch', async () => {
    const key = await cluster.createKey();
    const one = (await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false })).body.id;
    const two = (await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false })).body.id;
    const first = await post(key, `/v1/jobs/${one}/start`, {}, 'start-1');
    expect(first.status).toBe(200);
    const replay = await post(key, `/v1/jobs/${one}/start`, {}, 'start-1', 1);
    expect(replay.status).toBe(200); // without the key, a second start would be 409 invalid_state
    expect(replay.body).toEqual(first.body);
    expect((await post(key, `/v1/jobs/${one}/start`, {})).body.error.code).toBe('invalid_state');
    const elsewhere = await post(key, `/v1/jobs/${two}/start`, {}, 'start-1');
    expect(elsewhere.status).toBe(422);
  });

  it('uploads: a replay returns the first upload without storing the file again; another size is a mismatch', async () => {
    const key = await cluster.createKey();
    const upload = (idempotencyKey: string, file: string | Buffer, name = 'clip.mp4') =>
      cluster.nodes[0].http.post('/v1/uploads').set('X-Api-Key', key).set('Idempotency-Key', idempotencyKey).attach('file', file, name);
    const first = await upload('up-1', CLIP);
    expect(first.status).toBe(200);
    const replay = await upload('up-1', CLIP);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM uploads WHERE api_key_id = (SELECT api_key_id FROM idempotency_keys WHERE idempotency_key = 'up-1')`);
    expect(rows[0].n).toBe(1);
    const different = await upload('up-1', Buffer.from('a much shorter body'), 'other.mp4');
    expect(different.status).toBe(422);
    expect(different.body.error.code).toBe('idempotency_mismatch');
  });

  it('uploads are compared by their bytes and filename, not their length: a file of the same size, or a chunked upload of another file, is a mismatch', async () => {
    const key = await cluster.createKey();
    const clip = readFileSync(CLIP);
    const flipped = Buffer.from(clip);
    flipped[flipped.length - 100] ^= 0xff; // the same size, one byte of the last frame changed
    const send = (idempotencyKey: string, file: Buffer, filename: string, transfer: 'sized' | 'chunked', boundary = 'backdrop-a') =>
      sendMultipart(`${cluster.nodes[0].baseUrl}/v1/uploads`, { 'X-Api-Key': key, 'Idempotency-Key': idempotencyKey }, multipartFile(boundary, filename, file), boundary, transfer);

    const name = 'été-%221%22.mp4'; // UTF-8 and a quote escaped as browsers do: the repeat must read the name as the first did
    const first = await send('by-bytes', clip, name, 'sized');
    expect(first.status).toBe(200);
    const sameSize = await send('by-bytes', flipped, name, 'sized');
    expect([sameSize.status, sameSize.body.error?.code]).toEqual([422, 'idempotency_mismatch']);
    const renamed = await send('by-bytes', clip, 'another-name.mp4', 'sized');
    expect([renamed.status, renamed.body.error?.code]).toEqual([422, 'idempotency_mismatch']);
    // the same file sent chunked, under another boundary: the same request
    const resent = await send('by-bytes', clip, name, 'chunked', 'another-boundary-of-other-length');
    expect([resent.status, resent.replayed]).toEqual([200, 'true']);
    expect(resent.body).toEqual(first.body);

    const chunked = await send('chunked', clip, 'clip.mp4', 'chunked');
    expect(chunked.status).toBe(200);
    const otherChunked = await send('chunked', flipped, 'clip.mp4', 'chunked');
    expect([otherChunked.status, otherChunked.body.error?.code]).toEqual([422, 'idempotency_mismatch']);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM uploads WHERE api_key_id = (SELECT api_key_id FROM idempotency_keys WHERE idempotency_key = 'chunked')`);
    expect(rows[0].n).toBe(2); // 'by-bytes' and 'chunked' each stored their file once
  });

  it('answers an upload replay once the client has sent the whole file, so a slow uploader reads the answer', async () => {
    const key = await cluster.createKey();
    const boundary = 'backdrop-replay';
    const body = multipartFile(boundary, 'clip.mp4', readFileSync(CLIP));
    const headers = { 'X-Api-Key': key, 'Idempotency-Key': 'slow', 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length };
    /** sends all but the last 1 KB, then the rest after `pauseMs` */
    const send = (pauseMs: number) =>
      new Promise<{ status?: number; replayed?: string | string[]; answeredAfterLastByte: boolean }>((resolve, reject) => {
        let lastByteSent = false;
        const req = http.request(`${cluster.nodes[0].baseUrl}/v1/uploads`, { method: 'POST', headers }, (res) => {
          const answeredAfterLastByte = lastByteSent;
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode, replayed: res.headers['idempotent-replayed'], answeredAfterLastByte }));
        });
        req.on('error', reject);
        req.write(body.subarray(0, body.length - 1024));
        setTimeout(() => {
          lastByteSent = true;
          req.end(body.subarray(body.length - 1024));
        }, pauseMs);
      });
    expect((await send(0)).status).toBe(200);
    expect(await send(300)).toEqual({ status: 200, replayed: 'true', answeredAfterLastByte: true });
  });

  it('Idempotency-Key length at its boundary: 255 characters are accepted, 256 are 400 naming the header, empty is 400', async () => {
    const key = await cluster.createKey();
    expect((await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false }, 'k'.repeat(255))).status).toBe(200);
    const long = await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false }, 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('invalid_request');
    expect(long.body.error.details).toEqual([{ field: 'Idempotency-Key', message: expect.stringMatching(/255/) }]);
    const empty = await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false }, '');
    expect(empty.status).toBe(400);
    expect(await jobCount(key)).toBe(1);
  });

  it('a key past its 24 h is forgotten: the same key then starts a new request', async () => {
    const key = await cluster.createKey();
    const first = await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false }, 'old');
    const kept = await db.query(`SELECT extract(epoch FROM expires_at - created_at)::int AS ttl FROM idempotency_keys WHERE idempotency_key = 'old'`);
    expect(kept.rows[0].ttl).toBe(24 * 3600);
    await db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idempotency_key = 'old'`);
    const second = await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false, metadata: { n: '2' } }, 'old');
    expect(second.status).toBe(200);
    expect(second.body.id).not.toBe(first.body.id);
  });

  it('the legacy create and upload honour it as /v1/jobs and /v1/uploads do (a retried /api/process made and charged a second job)', async () => {
    const key = await cluster.createKey();
    const a = await post(key, '/api/process', { video_url: PUBLIC_VIDEO }, 'legacy');
    const b = await post(key, '/api/process', { video_url: PUBLIC_VIDEO }, 'legacy', 1);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(await jobCount(key)).toBe(1);
    const upload = () => cluster.nodes[0].http.post('/api/upload').set('X-Api-Key', key).set('Idempotency-Key', 'legacy-upload').attach('file', CLIP, 'clip.mp4');
    const [first, again] = [await upload(), await upload()];
    expect(again.body.video_id).toBe(first.body.video_id);
  });

  it('routes without idempotency support ignore the header', async () => {
    const key = await cluster.createKey();
    const job = await post(key, '/v1/jobs', { video_url: PUBLIC_VIDEO }); // pending: ROLE=api runs no worker
    const a = await post(key, `/v1/jobs/${job.body.id}/cancel`, {}, 'cancel-1');
    const b = await post(key, `/v1/jobs/${job.body.id}/cancel`, {}, 'cancel-1');
    expect([a.status, b.status, b.body.error?.code]).toEqual([200, 409, 'invalid_state']);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });
});

/** A multipart body holding one file in the field `file`. */
function multipartFile(boundary: string, filename: string, bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: video/mp4\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

/** Posts a multipart body with its Content-Length, or chunked (no length) in 64 KB writes. */
function sendMultipart(url: string, headers: Record<string, string>, body: Buffer, boundary: string, transfer: 'sized' | 'chunked') {
  const sized = transfer === 'sized' ? { 'Content-Length': String(body.length) } : {};
  return new Promise<{ status?: number; replayed?: string | string[]; body: { error?: { code: string } } & Record<string, unknown> }>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, ...sized, 'Content-Type': `multipart/form-data; boundary=${boundary}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, replayed: res.headers['idempotent-replayed'], body: JSON.parse(Buffer.concat(chunks).toString() || '{}') }));
    });
    req.on('error', reject);
    for (let offset = 0; offset < body.length; offset += 65536) req.write(body.subarray(offset, offset + 65536));
    req.end();
  });
}
