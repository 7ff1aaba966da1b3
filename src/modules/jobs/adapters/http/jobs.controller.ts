import { Answers } from '../../../../common/http/openapi-schemas';
import { noteResource } from '../../../../common/logging/access-log.middleware';
import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { enumParam, integerParam } from '../../../../common/http/query-params';
import { AuthenticatedKey, ApiKeyGuard, CurrentKey } from '../../../../common/http/api-key-auth';
import { claimOfRequest, CountsAsJobStart, Idempotent, markAnsweredEarlierWork, markStartedNothing, startsUnlessDraft } from '../../../../common/http/route-markers';
import { JobsService } from '../../application/jobs.service';
import { Job, refusedAtStart } from '../../domain/job';
import { JobRequest } from '../../domain/job-settings';
import { JOB_STATUSES } from '../../domain/job-status';
import { CreateJobDto, JobOptionsDto, ListJobsQueryDto, StartJobDto } from './dto/job-request.dto';
import { JobPresenter, JobView } from '../../application/job.presenter';

export function jobRequestOf(dto: JobOptionsDto): JobRequest {
  const request: JobRequest = {
    output_format: dto.output_format,
    model: dto.model,
    bg_type: dto.bg_type,
    bg_color: dto.bg_color,
    bg_image_url: dto.bg_image_url,
    background: dto.background ? { ...dto.background } : undefined,
    composition: dto.composition ? JSON.parse(JSON.stringify(dto.composition)) : undefined,
    preview_duration: dto.preview_duration,
    text_prompt: dto.text_prompt,
  };
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined)) as JobRequest;
}

@ApiTags('jobs')
@ApiSecurity('apiKey')
@UseGuards(ApiKeyGuard)
@Controller()
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly presenter: JobPresenter,
  ) {}

  @Post('v1/jobs')
  @Answers('JobSubmission')
  @HttpCode(200)
  @Idempotent()
  @CountsAsJobStart(startsUnlessDraft)
  @ApiOperation({ summary: 'Create a job (auto_start true by default)' })
  async create(@CurrentKey() key: AuthenticatedKey, @Body() dto: CreateJobDto, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    return this.presenter.submission(await createJobOfRequest(this.jobs, key, dto, req, res, dto.auto_start ?? true));
  }

  @Post('v1/jobs/:id/start')
  @Answers('JobSubmission')
  @HttpCode(200)
  @Idempotent()
  @CountsAsJobStart()
  @ApiOperation({ summary: 'Start a draft job; any field sent overrides the draft' })
  async start(@CurrentKey() key: AuthenticatedKey, @Param('id') id: string, @Body() dto: StartJobDto, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const claim = claimOfRequest(req);
    const job = await this.jobs.start(key.id, id, { request: jobRequestOf(dto), webhookUrl: dto.webhook_url }, claim);
    if (claim?.createdBefore === job.id) markAnsweredEarlierWork(res);
    return this.presenter.submission(job);
  }

  @Post('v1/jobs/:id/cancel')
  @Answers('JobSubmission')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a pending or processing job: it ends failed with error_code canceled and its credits are released' })
  async cancel(@CurrentKey() key: AuthenticatedKey, @Param('id') id: string) {
    return this.presenter.submission(await this.jobs.cancel(key.id, id));
  }

  @Get('v1/jobs/:id')
  @Answers('JobStatus')
  @ApiOperation({ summary: 'A job of the calling key' })
  async get(@CurrentKey() key: AuthenticatedKey, @Param('id') id: string): Promise<{ success: true } & JobView> {
    return this.presenter.status(await this.jobs.get(key.id, id));
  }

  @Get('v1/jobs')
  @Answers('JobsPage')
  @ApiOperation({ summary: "The calling key's jobs, newest first" })
  async list(@CurrentKey() key: AuthenticatedKey, @Query() query: ListJobsQueryDto) {
    const limit = integerParam(query.limit, 'limit', { min: 1, max: 100, default: 20 });
    const offset = integerParam(query.offset, 'offset', { min: 0, default: 0 });
    const status = enumParam(query.status, 'status', JOB_STATUSES);
    const page = await this.jobs.list(key.id, { status, limit, offset });
    const items = await Promise.all(page.items.map((job) => this.presenter.present(job)));
    return { success: true, items, jobs: items, total: page.total, limit, offset };
  }
}

/**
 * A job made from a create request (POST /v1/jobs, the legacy POST /api/process), under the request's
 * Idempotency-Key claim: a try whose answer was lost gets the job the first made, not a second job and
 * charge. Noted on the response for the access log and usage.
 */
export async function createJobOfRequest(jobs: JobsService, key: AuthenticatedKey, dto: CreateJobDto, req: Request, res: Response, autoStart: boolean): Promise<Job> {
  const claim = claimOfRequest(req);
  const job = await jobs.create({ apiKeyId: key.id, videoUrl: dto.video_url, request: jobRequestOf(dto), webhookUrl: dto.webhook_url, metadata: dto.metadata, autoStart, underClaim: claim });
  if (claim?.createdBefore === job.id) markAnsweredEarlierWork(res);
  noteResource(res, job.id);
  if (refusedAtStart(job)) markStartedNothing(res);
  return job;
}
