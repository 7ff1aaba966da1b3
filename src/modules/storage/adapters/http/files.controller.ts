import { Controller, Get, Inject, Param, Put, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DomainError } from '../../../../common/errors/domain-error';
import { attachmentDisposition, contentTypeOf } from '../../application/content-types';
import { SignatureCheck, UrlSigner } from '../../application/url-signer';
import { ObjectStorage, openReadOrGone } from '../../ports/object-storage';
import { sendStream } from '../../../../common/http/send-stream';
import { clientHasCurrent, FileVersion, rangeStillApplies, setVersionHeaders } from '../../../../common/http/conditional-get';

/**
 * The one byte range a Range header asks for; null where there is none to honour (no header, another
 * form, several ranges, last before first: the whole object is sent), 'unsatisfiable' where it
 * starts past the end or asks for no bytes (416, as a client resuming a finished download expects).
 */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header) : null;
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') return Number(match[2]) === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - Number(match[2])), end: size - 1 };
  const start = Number(match[1]);
  if (start >= size) return 'unsatisfiable';
  const end = match[2] === '' ? size - 1 : Number(match[2]);
  return start <= end ? { start, end: Math.min(end, size - 1) } : null;
}

/** a stored file's version and how long a client may keep it: set once the file is found and opened (an error answer has neither) */
function setFileHeaders(res: Response, version: FileVersion): void {
  setVersionHeaders(res, version);
  res.setHeader('Cache-Control', 'private, max-age=300');
}

function keyOf(param: string | string[]): string {
  return Array.isArray(param) ? param.join('/') : param;
}

function refuseUnlessValid(check: SignatureCheck, link: 'download' | 'upload'): void {
  if (check === 'invalid') throw new DomainError('forbidden', `This ${link} link is invalid`);
  if (check === 'expired') throw new DomainError('forbidden', `This ${link} link has expired`);
}

/**
 * Serves local-storage objects behind HMAC-signed, expiring URLs: GET downloads, PUT uploads (remote
 * workers store their outputs without storage credentials). S3 serves its own presigned URLs.
 */
@ApiExcludeController()
@Controller('files')
export class FilesController {
  constructor(
    private readonly storage: ObjectStorage,
    @Inject(UrlSigner) private readonly signer: UrlSigner,
  ) {}

  @Get('*key')
  async download(
    @Param('key') keyParam: string | string[],
    @Query('expires') expires: string | undefined,
    @Query('signature') signature: string | undefined,
    @Query('name') name: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const key = keyOf(keyParam);
    refuseUnlessValid(this.signer.verify(key, expires, signature, typeof name === 'string' ? name : ''), 'download');
    const object = await this.storage.stat(key);
    if (!object) throw new DomainError('gone', 'This file is no longer available');
    if (clientHasCurrent(req, object)) {
      setFileHeaders(res, object);
      return void res.status(304).end();
    }
    const range = rangeStillApplies(req, object) ? parseRange(req.headers.range, object.size) : null;
    res.setHeader('Accept-Ranges', 'bytes');
    if (range === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${object.size}`);
      throw new DomainError('range_not_satisfiable', `The range starts past the file's end (${object.size} bytes)`);
    }
    // opened before the file's headers are set: one gone meanwhile (retention) is answered as an error, not as the file;
    // a HEAD's file is not read (the stat above found it)
    const stream = req.method === 'HEAD' ? null : await openReadOrGone(this.storage, key, range ?? undefined);
    setFileHeaders(res, object);
    res.setHeader('Content-Type', contentTypeOf(key));
    if (typeof name === 'string' && name) res.setHeader('Content-Disposition', attachmentDisposition(name));
    if (range) {
      res.status(206);
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${object.size}`);
      res.setHeader('Content-Length', String(range.end - range.start + 1));
    } else {
      res.setHeader('Content-Length', String(object.size));
    }
    sendStream(stream, res);
  }

  /** The request body, streamed into storage at the signed key; an aborted body stores nothing. */
  @Put('*key')
  async upload(
    @Param('key') keyParam: string | string[],
    @Query('expires') expires: string | undefined,
    @Query('signature') signature: string | undefined,
    @Req() req: Request,
  ): Promise<{ success: true; key: string; size: number }> {
    const key = keyOf(keyParam);
    refuseUnlessValid(this.signer.verifyUpload(key, expires, signature), 'upload');
    const stored = await this.storage.put(key, req);
    return { success: true, key, size: stored.size };
  }
}
