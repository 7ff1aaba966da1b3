import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { CreditsUsageWebhooks1763750000000 } from './1763750000000-credits-usage-webhooks';
import { IdempotencyAndRateLimits1763800000000 } from './1763800000000-idempotency-and-rate-limits';
import { ApiKeyChangeNotifications1763920000000 } from './1763920000000-api-key-change-notifications';
import { DispatchOutboxAndRetention1763850000000 } from './1763850000000-dispatch-outbox-and-retention';
import { SlidingWindowRateLimits1763910000000 } from './1763910000000-sliding-window-rate-limits';
import { WebhookSecretRotation1764000000000 } from './1764000000000-webhook-secret-rotation';
import { IdempotencyBodyDigest1764100000000 } from './1764100000000-idempotency-body-digest';
import { IdempotencyClaimId1764200000000 } from './1764200000000-idempotency-claim-id';
import { RateLimitWindowNeverBack1764300000000 } from './1764300000000-rate-limit-window-never-back';
import { ChunkProgress1764400000000 } from './1764400000000-chunk-progress';
import { UsageDaily1764500000000 } from './1764500000000-usage-daily';
import { UsageEventsByTime1764600000000 } from './1764600000000-usage-events-by-time';
import { RemoteRuns1764700000000 } from './1764700000000-remote-runs';
import { IndexesAtScale1764800000000 } from './1764800000000-indexes-at-scale';
import { RepairEditedMigrations1764900000000 } from './1764900000000-repair-edited-migrations';
import { IdempotencyCreatedResource1765000000000 } from './1765000000000-idempotency-created-resource';
import { JobsWaitingInQueue1765100000000 } from './1765100000000-jobs-waiting-in-queue';
import { JobsWaitingByKey1765200000000 } from './1765200000000-jobs-waiting-by-key';
import { UploadsFrameRate1765300000000 } from './1765300000000-uploads-frame-rate';

/** Every migration, in order. Listed explicitly so the same list works from ts-jest and dist. */
export const MIGRATIONS = [InitialSchema1763700000000, CreditsUsageWebhooks1763750000000, IdempotencyAndRateLimits1763800000000, DispatchOutboxAndRetention1763850000000, SlidingWindowRateLimits1763910000000, ApiKeyChangeNotifications1763920000000, WebhookSecretRotation1764000000000, IdempotencyBodyDigest1764100000000, IdempotencyClaimId1764200000000, RateLimitWindowNeverBack1764300000000, ChunkProgress1764400000000, UsageDaily1764500000000, UsageEventsByTime1764600000000, RemoteRuns1764700000000, IndexesAtScale1764800000000, RepairEditedMigrations1764900000000, IdempotencyCreatedResource1765000000000, JobsWaitingInQueue1765100000000, JobsWaitingByKey1765200000000, UploadsFrameRate1765300000000];
