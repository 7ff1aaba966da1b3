import { Body, Controller, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DomainError } from '../../../../common/errors/domain-error';
import { CALLBACK_PATH, CallbackSigner } from '../remote-http/callback-signer';
import { parseRemoteStatus } from '../../../../common/worker-protocol/runpod-protocol';
import { WorkerCallbackHub } from '../remote-http/worker-callback-hub';

/**
 * Where remote workers POST a job's final status object (the `webhook` of /run). The URL is the
 * credential: HMAC-signed over the job id and an expiry; anything else is 403 in the error envelope.
 * A valid callback wakes the gateway waiting on that job, if it waits in this process.
 */
@ApiExcludeController()
@Controller(CALLBACK_PATH)
export class WorkerCallbacksController {
  constructor(
    private readonly signer: CallbackSigner,
    private readonly hub: WorkerCallbackHub,
  ) {}

  @Post(':jobId')
  @HttpCode(200)
  receive(
    @Param('jobId') jobId: string,
    @Query('expires') expires: string | undefined,
    @Query('signature') signature: string | undefined,
    @Body() body: unknown,
  ): { success: true; delivered: boolean } {
    const check = this.signer.verify(jobId, typeof expires === 'string' ? expires : undefined, typeof signature === 'string' ? signature : undefined);
    if (check === 'expired') throw new DomainError('forbidden', 'This callback link has expired');
    if (check !== 'valid') throw new DomainError('forbidden', 'This callback link is invalid');
    const status = parseRemoteStatus(body);
    if (!status) throw DomainError.invalid('body', 'must be a status object with id and status');
    return { success: true, delivered: this.hub.deliver(jobId, status) };
  }
}
