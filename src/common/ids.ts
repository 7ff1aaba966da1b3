import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Unbiased random base62 string (rejection sampling), for unguessable ids and keys. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** 26 base62 characters carry ~154 bits: unguessable. */
export const newJobId = (): string => `job_${randomBase62(26)}`;
export const newUploadId = (): string => `vid_${randomBase62(26)}`;
export const newRequestId = (): string => `req_${randomBase62(20)}`;
