import { Answers, AnswersFile } from '../../../../common/http/openapi-schemas';
import { Controller, Get, HttpCode, Param, Post, Req, Res, UploadedFile, UseGuards, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DomainError } from '../../../../common/errors/domain-error';
import { ObjectStorage, openForAnswer } from '../../../storage/ports/object-storage';
import { AuthenticatedKey, ApiKeyGuard, CurrentKey } from '../../../../common/http/api-key-auth';
import { Idempotent } from '../../../../common/http/route-markers';
import { UploadsService, UploadView } from '../../application/uploads.service';
import { UploadedVideoFile } from './video-upload.storage-engine';
import { UploadSlotsInterceptor } from './upload-slots.interceptor';
import { sendStream } from '../../../../common/http/send-stream';
import { SUPPORTED_VIDEO_TYPES } from '../../../../engine/media/sniff';

const uploadBody = {
  schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: 'mp4, mov, webm or avi; 500 MB at most' } } },
};

@ApiTags('uploads')
@ApiSecurity('apiKey')
@UseGuards(ApiKeyGuard)
@Controller()
export class UploadsController {
  constructor(
    private readonly uploads: UploadsService,
    private readonly storage: ObjectStorage,
  ) {}

  @Post('v1/uploads')
  @Answers('Upload')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({ summary: 'Upload a video (multipart field `file`); returns a video_url to create jobs with' })
  @ApiConsumes('multipart/form-data')
  @ApiBody(uploadBody)
  @UseInterceptors(UploadSlotsInterceptor, FileInterceptor('file'))
  upload(@CurrentKey() key: AuthenticatedKey, @UploadedFile() file: UploadedVideoFile | undefined): Promise<UploadView> {
    return this.register(key, file);
  }

  @Post('api/upload')
  @Answers('Upload')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({ summary: 'Legacy alias of POST /v1/uploads' })
  @ApiConsumes('multipart/form-data')
  @ApiBody(uploadBody)
  @UseInterceptors(UploadSlotsInterceptor, FileInterceptor('file'))
  legacyUpload(@CurrentKey() key: AuthenticatedKey, @UploadedFile() file: UploadedVideoFile | undefined): Promise<UploadView> {
    return this.register(key, file);
  }

  @Get('v1/uploads/:id')
  @AnswersFile(SUPPORTED_VIDEO_TYPES, "the uploaded file's bytes, with the type its bytes were recognised as")
  @ApiOperation({ summary: "The uploaded video's bytes (to its owner); this URL is also accepted as a job's video_url" })
  async download(@CurrentKey() key: AuthenticatedKey, @Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const upload = await this.uploads.findOwned(id, key.id);
    const stream = await openForAnswer(this.storage, upload.storageKey, req.method);
    res.setHeader('Content-Type', upload.contentType);
    res.setHeader('Content-Length', String(upload.size));
    sendStream(stream, res);
  }

  private async register(key: AuthenticatedKey, file: UploadedVideoFile | undefined): Promise<UploadView> {
    if (!file?.stored) throw DomainError.invalid('file', 'a multipart file field named `file` is required');
    return this.uploads.register(key.id, file.originalname || 'video', file.stored);
  }
}
