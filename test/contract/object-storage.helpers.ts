/** Bodies and URL tampering for the ObjectStorage contract (object-storage.contract.spec.ts). */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

let counter = 0;
export const freshKey = (extension = '.bin'): string => `outputs/contract_${++counter}_${randomBytes(4).toString('hex')}${extension}`;

/** A stream of `bytes` in 64 KiB chunks. */
export const streamOf = (bytes: Buffer): Readable => Readable.from((function* () {
  for (let offset = 0; offset < bytes.length; offset += 65536) yield bytes.subarray(offset, offset + 65536);
})());

/** A stream that delivers `bytes`, then fails. */
export const failingAfter = (bytes: Buffer): Readable => Readable.from((async function* () {
  yield* streamOf(bytes);
  throw new Error('client went away');
})());

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Changes one character of the URL's 64-hex-digit signature. */
export function withFlippedSignature(url: string): string {
  const parsed = new URL(url);
  for (const [name, value] of parsed.searchParams) {
    if (/^[0-9a-f]{64}$/.test(value)) parsed.searchParams.set(name, (value[0] === '0' ? '1' : '0') + value.slice(1));
  }
  return parsed.toString();
}

/** Pushes the URL's expiry (`expires` or `X-Amz-Expires`) later without re-signing. */
export function withLaterExpiry(url: string): string {
  const parsed = new URL(url);
  for (const [name, value] of parsed.searchParams) {
    if (/^(x-amz-)?expires$/i.test(name)) parsed.searchParams.set(name, String(Number(value) + 1000));
  }
  return parsed.toString();
}

