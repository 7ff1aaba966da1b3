import { randomBytes } from 'node:crypto';
import { ID_LENGTH, ID_PREFIX } from '../contract/ids';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn a few KB at a time and each used once (as crypto.randomUUID does): every request
 * gets an id, and one call into the generator per id cost more than the rest of making it.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let taken = 0;

function randomByte(): number {
  if (taken === pool.length) {
    pool = randomBytes(POOL_BYTES);
    taken = 0;
  }
  return pool[taken++];
}

/** Unbiased random base62 string (rejection sampling), for unguessable ids and keys. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** 26 base62 characters carry ~154 bits: unguessable. */
export const newJobId = (): string => `${ID_PREFIX.job}${randomBase62(ID_LENGTH.job)}`;
export const newUploadId = (): string => `${ID_PREFIX.upload}${randomBase62(ID_LENGTH.upload)}`;
export const newRequestId = (): string => `${ID_PREFIX.request}${randomBase62(ID_LENGTH.request)}`;
export const newWebhookMessageId = (): string => `${ID_PREFIX.webhookMessage}${randomBase62(ID_LENGTH.webhookMessage)}`;

/** Ids as a port, so tests can make them predictable; every id still has the contract's shape. */
export abstract class Ids {
  abstract job(): string;
  abstract upload(): string;
  abstract webhookMessage(): string;
}

/** Unguessable random ids (the running service's). */
export class RandomIds extends Ids {
  job = newJobId;
  upload = newUploadId;
  webhookMessage = newWebhookMessageId;
}

/** Predictable ids for tests and development: `job_00000000000000000000000001`, then ...02; unique per instance. */
export class SequentialIds extends Ids {
  private count = 0;

  job = (): string => this.next('job');
  upload = (): string => this.next('upload');
  webhookMessage = (): string => this.next('webhookMessage');

  private next(kind: 'job' | 'upload' | 'webhookMessage'): string {
    this.count += 1;
    return `${ID_PREFIX[kind]}${String(this.count).padStart(ID_LENGTH[kind], '0')}`;
  }
}
