import { Answers } from '../../../../common/http/openapi-schemas';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { DomainError } from '../../../../common/errors/domain-error';
import { ApiKeyGuard, AuthenticatedKey, CurrentKey } from '../../../../common/http/api-key-auth';
import { CountsAsJobStart, Idempotent } from '../../../../common/http/route-markers';
import { JobsService } from '../../application/jobs.service';
import { CreateJobDto } from './dto/job-request.dto';
import { JobPresenter } from '../../application/job.presenter';
import { createJobOfRequest } from './jobs.controller';

/** The original service's /api routes, kept for existing integrations. */
@ApiTags('legacy')
@ApiSecurity('apiKey')
@Controller('api')
export class LegacyJobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly keys: ApiKeyGuard,
    private readonly presenter: JobPresenter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('process')
  @Answers('JobSubmission')
  @HttpCode(200)
  @Idempotent()
  @CountsAsJobStart()
  @UseGuards(ApiKeyGuard)
  @ApiOperation({ summary: 'Create and start a job in one call (legacy)' })
  async process(@CurrentKey() key: AuthenticatedKey, @Body() dto: CreateJobDto, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    return this.presenter.submission(await createJobOfRequest(this.jobs, key, dto, req, res, true));
  }

  @Get('download/:id')
  @Answers('LegacyDownload')
  @ApiOperation({ summary: "A completed job's download URL (X-Api-Key required unless keyless download is enabled)" })
  async download(@Param('id') id: string, @Req() req: Request) {
    const job = await this.findForDownload(id, req);
    if (job.status !== 'completed') throw new DomainError('invalid_state', `The job is '${job.status}'; its output is available once it is completed`);
    if (job.outputDeletedAt) throw new DomainError('gone', 'This output was deleted after its retention period');
    return { success: true, download_url: await this.presenter.outputUrl(job), output_format: job.settings.outputFormat };
  }

  private async findForDownload(id: string, req: Request) {
    const header = req.headers['x-api-key'];
    const presented = Array.isArray(header) ? header[0] : header;
    if (!presented && this.config.env.ALLOW_KEYLESS_DOWNLOAD) {
      return this.jobs.getWithoutOwner(id);
    }
    // as the guard does: the key kept on the request, by which its usage is recorded (it was not)
    const key = await this.keys.authenticate(req);
    return this.jobs.get(key.id, id);
  }
}
