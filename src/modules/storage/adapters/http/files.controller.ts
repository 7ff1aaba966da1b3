import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import * as path from 'node:path';
import { DomainError } from '../../../../common/errors/domain-error';
import { UrlSigner } from '../../application/url-signer';
import { ObjectStorage } from '../../ports/object-storage';

const CONTENT_TYPES: Record<string, string> = {
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.mp4': 'video/mp4',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.zip': 'application/zip',
  '.avi': 'video/x-msvideo',
};

function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header) : null;
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const start = match[1] === '' ? Math.max(0, size - Number(match[2])) : Number(match[1]);
  const end = match[1] === '' || match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  return start <= end && start < size ? { start, end } : null;
}

/** Serves local-storage objects behind HMAC-signed, expiring URLs (S3 serves its own presigned URLs). */
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
    const key = Array.isArray(keyParam) ? keyParam.join('/') : keyParam;
    const check = this.signer.verify(key, expires, signature, typeof name === 'string' ? name : '');
    if (check === 'invalid') throw new DomainError('forbidden', 'This download link is invalid');
    if (check === 'expired') throw new DomainError('forbidden', 'This download link has expired');
    const object = await this.storage.stat(key);
    if (!object) throw new DomainError('gone', 'This file is no longer available');
    const range = parseRange(req.headers.range, object.size);
    res.setHeader('Content-Type', CONTENT_TYPES[path.extname(key)] ?? 'application/octet-stream');
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Cache-Control', 'private, max-age=300');
    if (typeof name === 'string' && name) res.setHeader('Content-Disposition', `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}"`);
    if (range) {
      res.status(206);
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${object.size}`);
      res.setHeader('Content-Length', String(range.end - range.start + 1));
    } else {
      res.setHeader('Content-Length', String(object.size));
    }
    const stream = await this.storage.openRead(key, range ?? undefined);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }
}
