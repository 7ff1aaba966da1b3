import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { Clock } from '../../../common/clock';
import { oneAtATime } from '../../../common/one-at-a-time';
import { OutboundHttp } from '../../../common/outbound-http';
import { ApiKeyRepository } from '../../auth/ports/api-key.repository';
import { signingSecrets } from '../../../common/webhook-secret';
import { classifyResponse, nextRetryDelayMs } from '../domain/retry-schedule';
import { ReceiverRests, UNANSWERED_BEFORE_REST } from '../domain/receiver-rests';
import { webhookHeaders } from '../domain/webhook-signing';
import { WebhookDeliveryQueue } from '../ports/webhook-announcements';
import { WebhookDelivery, WebhookOutbox } from '../ports/webhook-outbox';
import { ServiceMetrics } from '../../metrics/ports/service-metrics';

/** how far apart the deliveries held back by a receiver's rest come back after it */
const HOLD_JITTER_MS = 10_000;

/**
 * One delivery attempt: POST the stored body, signed with the key's current secret (and the one it replaced, during a rotation's overlap), through the
 * SSRF-guarded client with no redirects; then record the result and schedule the next try.
 */
@Injectable()
export class DeliverWebhookHandler {
  private readonly logger = new Logger(DeliverWebhookHandler.name);
  private readonly rests: ReceiverRests;

  constructor(
    private readonly outbox: WebhookOutbox,
    private readonly keys: ApiKeyRepository,
    private readonly outbound: OutboundHttp,
    private readonly relay: WebhookDeliveryQueue,
    private readonly clock: Clock,
    private readonly metrics: ServiceMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.rests = new ReceiverRests(config.env.WEBHOOK_RECEIVER_REST_SECONDS * 1000);
  }

  get schedule(): number[] {
    return this.config.env.WEBHOOK_RETRY_SCHEDULE_SECONDS;
  }

  async handle(deliveryId: string): Promise<void> {
    const delivery = await this.outbox.find(deliveryId);
    if (!delivery || delivery.status !== 'pending') return;
    if (await this.outbox.goneFor(delivery.jobId, delivery.url)) {
      // 410 Gone means "stop" (Standard Webhooks): the job's later events are not sent there
      await this.outbox.recordAttempt(delivery.id, { statusCode: null, error: 'not sent: the receiver answered 410 Gone to an earlier event of this job', outcome: 'failed', nextAttemptAt: null });
      this.metrics.countWebhookAttempt(delivery.event, 'failed');
      return;
    }
    const key = await this.keys.findById(delivery.apiKeyId);
    const now = this.clock.now();
    const headers = webhookHeaders({ secrets: key ? signingSecrets(key, now) : [], deliveryId: delivery.id, event: delivery.event, body: delivery.body, now });
    let statusCode: number | null = null;
    let error: string | null = null;
    let retryAfter: number | null = null;
    const origin = originOf(delivery.url);
    const heldUntil = this.rests.holdUntil(origin, now.getTime(), this.config.env.WEBHOOK_TIMEOUT_MS);
    if (heldUntil !== null) return this.holdBack(delivery, origin, heldUntil);
    try {
      const response = await this.outbound.post(delivery.url, delivery.body, headers, { timeoutMs: this.config.env.WEBHOOK_TIMEOUT_MS });
      statusCode = response.status;
      retryAfter = response.retryAfterSeconds;
      this.rests.noteAnswered(origin);
    } catch (failure) {
      error = (failure as Error).message;
      this.rests.noteUnanswered(origin, this.clock.now().getTime());
    }
    const verdict = statusCode === null ? 'retry' : classifyResponse(statusCode);
    const attemptsMade = delivery.attempts + 1;
    const delay = verdict === 'retry' ? nextRetryDelayMs(this.schedule, attemptsMade, retryAfter) : null;
    const outcome = verdict === 'delivered' ? 'sent' : delay === null ? 'failed' : 'retry';
    const nextAttemptAt = delay === null ? null : new Date(this.clock.now().getTime() + delay);
    await this.outbox.recordAttempt(delivery.id, { statusCode, error: error ?? (statusCode && outcome !== 'sent' ? `HTTP ${statusCode}` : null), outcome, nextAttemptAt });
    this.metrics.countWebhookAttempt(delivery.event, outcome);
    if (outcome !== 'sent') {
      // where (the receiver's origin alone: Slack's and Discord's URLs carry their token in the path) and why
      const attempt = `webhook ${delivery.event} of ${delivery.jobId} (delivery ${delivery.id}) to ${origin}: attempt ${attemptsMade}`;
      const reason = error ?? `HTTP ${statusCode}`;
      if (outcome === 'failed') this.logger.warn(`${attempt} failed (${reason}), the last one`);
      else this.logger.log(`${attempt} failed (${reason}), next in ${Math.round((delay ?? 0) / 1000)} s`);
    }
    if (outcome === 'retry') await this.relay.enqueue([{ id: delivery.id, attempts: attemptsMade }], delay ?? 0);
  }

  /**
   * A delivery to a resting receiver (ReceiverRests) is not sent: the attempt counts, saying so, and
   * the next comes after the rest (spread over HOLD_JITTER_MS, so the held deliveries do not all come
   * back at once). It is never the delivery's last: that one is a real try.
   */
  private async holdBack(delivery: WebhookDelivery, origin: string, until: number): Promise<void> {
    const now = this.clock.now().getTime();
    const delay = Math.max(nextRetryDelayMs(this.schedule, delivery.attempts + 1, null) ?? 0, until - now + Math.round(Math.random() * HOLD_JITTER_MS));
    const error = `not sent: ${origin} left its last ${UNANSWERED_BEFORE_REST} deliveries unanswered; it is tried again after ${new Date(until).toISOString()}`;
    await this.outbox.recordAttempt(delivery.id, { statusCode: null, error, outcome: 'retry', nextAttemptAt: new Date(now + delay) });
    this.metrics.countWebhookAttempt(delivery.event, 'retry');
    await this.relay.enqueue([{ id: delivery.id, attempts: delivery.attempts + 1 }], delay);
  }

  /** Enqueues deliveries that are due but not queued (a crash between commit and enqueue, a lost queue); a call while a sweep runs joins it. */
  readonly sweep = oneAtATime(async (): Promise<number> => {
    const due = await this.outbox.due(this.clock.now(), 100);
    await this.relay.enqueue(due.map((delivery) => ({ id: delivery.id, attempts: delivery.attempts })));
    return due.length;
  });
}

/** `https://hooks.example.com`: the scheme, host and port of a URL, nothing a receiver could hide a token in */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '<a URL that does not parse>';
  }
}
