import busboy from 'busboy';
import type { Request } from 'express';
import { createHash } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';

/** A file of a multipart body as multer hands it over, with the SHA-256 of its bytes where the storage took one. */
export interface DigestedFile {
  fieldname: string;
  originalname: string;
  sha256?: string;
}

/**
 * The longest text field value an upload takes. Text fields change nothing an upload does, but are
 * held for the whole request: at the parser's default of 1 MB, 20 of them held 20 MB a request for
 * as long as its file took to arrive (up to 30 minutes).
 */
export const MAX_FIELD_VALUE_BYTES = 8192;

/** How every multipart body is parsed, by multer for the work and by busboy for a replay's digest. */
export function multipartParsing(maxFileBytes: number) {
  // a filename without a stated charset is taken as UTF-8 (what browsers, curl and requests send), not busboy's Latin-1
  return { limits: { fileSize: maxFileBytes, files: 1, fields: 20, parts: 25, fieldSize: MAX_FIELD_VALUE_BYTES }, defParamCharset: 'utf8' };
}

/** Passes its bytes through unchanged and hashes them: `sha256()` once the last has passed. */
export class DigestingPassThrough extends Transform {
  private readonly hash = createHash('sha256');

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    callback(null, chunk);
  }

  sha256(): string {
    return this.hash.digest('hex');
  }
}

/**
 * What a multipart body's files are: each one's field, filename and bytes, in order. Text fields are
 * left out (they change nothing an upload does). Undefined where a file was not hashed.
 */
export function digestOfFiles(files: readonly DigestedFile[]): string | undefined {
  if (files.some((file) => file.sha256 === undefined)) return undefined;
  const described = JSON.stringify(files.map(({ fieldname, originalname, sha256 }) => [fieldname, originalname, sha256]));
  return createHash('sha256').update(described).digest('hex');
}

/** The files multer stored for a request, whichever of its interceptors read them. */
export function filesOf(req: Request): DigestedFile[] {
  if (req.file) return [req.file];
  const files = req.files ?? [];
  return Array.isArray(files) ? files : Object.values(files).flat();
}

/**
 * Reads a multipart body that is not to be stored (a replay under an Idempotency-Key) and digests its
 * files as `digestOfFiles` digests the stored ones. Undefined for a body that multer would have refused
 * (over a limit, malformed, cut short) or a client gone before the end: it cannot be the body of a
 * request that was done. Nothing is buffered but busboy's own parsing.
 */
export function digestMultipartBody(req: Request, maxFileBytes: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (digest: string | undefined): void => {
      if (settled) return;
      settled = true;
      req.off('close', clientGone);
      resolve(digest);
    };
    const refuse = (): void => {
      req.unpipe();
      req.resume(); // the rest is read and dropped: the client then reads the answer, not a broken pipe
      if (req.complete) settle(undefined);
      else req.once('end', () => settle(undefined));
    };
    // a client gone mid-body ends neither the request's stream nor the parser
    const clientGone = (): void => {
      if (!req.complete) settle(undefined);
    };
    req.once('close', clientGone);
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, ...asBusboyParses(multipartParsing(maxFileBytes)) });
    } catch {
      return refuse(); // no boundary: not a body multer would have read
    }
    let refused = false;
    const files: DigestedFile[] = [];
    const hashed: Promise<void>[] = [];
    parser.on('file', (name, stream, info) => {
      if (!info.filename) return stream.resume(); // multer keeps no file for a part without a filename
      const file: DigestedFile = { fieldname: asMulterNames(name), originalname: asMulterNames(info.filename) };
      files.push(file);
      const hash = createHash('sha256');
      stream.on('limit', () => (refused = true));
      stream.on('data', (chunk: Buffer) => hash.update(chunk));
      hashed.push(
        new Promise((done) => {
          stream.once('end', () => done(void (file.sha256 = hash.digest('hex'))));
          // the body ended inside the file: busboy destroys the file's stream with the error it also emits
          stream.once('error', () => done(void (refused = true)));
        }),
      );
    });
    parser.on('field', (_name, _value, info) => {
      if (info.nameTruncated || info.valueTruncated) refused = true;
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) parser.on(limit, () => (refused = true));
    parser.on('error', refuse);
    parser.once('close', () => void Promise.all(hashed).then(() => settle(refused ? undefined : digestOfFiles(files))));
    req.pipe(parser);
  });
}

/**
 * multer's limits as busboy takes them: busboy signals a limit on reaching it, multer on passing it,
 * so multer gives busboy one more byte and part (a file of exactly the limit is taken).
 */
function asBusboyParses(parsing: ReturnType<typeof multipartParsing>): busboy.BusboyConfig {
  const { limits } = parsing;
  return { ...parsing, limits: { ...limits, fileSize: limits.fileSize + 1, parts: limits.parts + 1, fieldSize: limits.fieldSize + 1 } };
}

/** multer's names: the WHATWG escapes of line breaks and quotes reversed (and nothing else). */
function asMulterNames(name: string): string {
  return name.replace(/%0A|%0D|%22/gi, (escape) => ({ '%0A': '\n', '%0D': '\r' })[escape.toUpperCase()] ?? '"');
}
