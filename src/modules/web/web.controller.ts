import { Controller, Get, Head, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import * as path from 'node:path';
import { DomainError } from '../../common/errors/domain-error';
import { WEB_ASSETS } from './web.tokens';
import type { WebAssets } from './web-assets';

/**
 * The dashboard's own policy: scripts, styles and API calls only from this origin. Images and
 * videos may come from elsewhere: outputs are signed URLs on PUBLIC_BASE_URL or an S3 bucket, the
 * "before" video is a blob: of the local file, a background image any https address.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https: http:",
  "media-src 'self' blob: https: http:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Serves exactly "/" and the files under "/assets/": every other path stays the API's (unknown ones
 * answer the JSON 404 envelope). Pages are hash routes, so no path of the API is ever shadowed.
 */
@ApiExcludeController()
@Controller()
export class WebController {
  constructor(@Inject(WEB_ASSETS) private readonly web: WebAssets) {}

  @Get()
  @Head()
  index(@Res() res: Response): void {
    if (!this.web.root) throw new DomainError('not_found', 'The dashboard is not built: run `npm run build`');
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(path.join(this.web.root, 'index.html'), { headers: { 'Content-Type': 'text/html; charset=utf-8' } });
  }

  @Get('assets/:file')
  @Head('assets/:file')
  asset(@Param('file') file: string, @Res() res: Response): void {
    if (!this.web.root || !this.web.assets.has(file)) throw DomainError.notFound('Asset');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-cache');
    const type = CONTENT_TYPES[path.extname(file)];
    res.sendFile(path.join(this.web.root, 'assets', file), type ? { headers: { 'Content-Type': type } } : {});
  }
}
