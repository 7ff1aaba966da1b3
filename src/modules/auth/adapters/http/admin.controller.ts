import { Answers } from '../../../../common/http/openapi-schemas';
import { Body, Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { queueBackendOf } from '../../../../infrastructure/queue/queue-connection';
import { ApiKeysService } from '../../application/api-keys.service';
import { ApiKey } from '../../domain/api-key';
import { KeyDataEraser } from '../../ports/key-data-eraser';
import { AdminTokenGuard } from './admin-token.guard';
import { CreateKeyDto, GrantCreditsDto, KeyFingerprintDto } from './admin.dto';

export function keyView(key: ApiKey) {
  return { client_id: key.clientId, key_fingerprint: key.fingerprint, note: key.note, enabled: key.enabled, credits: key.credits, created_at: key.createdAt.toISOString() };
}

@ApiTags('admin')
@ApiSecurity('adminToken')
@UseGuards(AdminTokenGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly eraser: KeyDataEraser,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('config')
  @Answers('AdminConfig')
  @ApiOperation({ summary: 'The running configuration, without secrets' })
  configuration() {
    const env = this.config.env;
    return {
      success: true,
      role: this.config.role,
      public_base_url: this.config.publicBaseUrl,
      database: this.config.embeddedDatabase ? 'embedded' : 'external',
      queue_backend: queueBackendOf(this.config),
      storage: this.config.storage.kind,
      worker_gateway: env.WORKER_GATEWAY,
      worker_concurrency: env.WORKER_CONCURRENCY,
      max_upload_bytes: this.config.maxUploadBytes,
      max_video_seconds: env.MAX_VIDEO_SECONDS,
      signed_url_ttl_seconds: env.SIGNED_URL_TTL_SECONDS,
      allow_keyless_download: env.ALLOW_KEYLESS_DOWNLOAD,
      model_pricing_credits_per_minute: this.config.creditsPerMinute,
    };
  }

  @Get('keys')
  @Answers('AdminKeys')
  @ApiOperation({ summary: 'Every API key (fingerprints only)' })
  async list() {
    return { success: true, items: (await this.keys.list()).map(keyView) };
  }

  @Post('keys')
  @Answers('AdminKeyCreated')
  @HttpCode(200)
  @ApiOperation({ summary: 'Issue a key; the only time its plaintext is shown' })
  async create(@Body() dto: CreateKeyDto) {
    const { apiKey, key } = await this.keys.create(dto.client_id, dto.note ?? null, dto.credits ?? 0);
    return { success: true, api_key: apiKey, key_fingerprint: key.fingerprint, client_id: key.clientId, note: key.note, credits: key.credits };
  }

  @Post('keys/disable')
  @Answers('AdminKey')
  @HttpCode(200)
  async disable(@Body() dto: KeyFingerprintDto) {
    return { success: true, ...keyView(await this.keys.setEnabled(dto.key_fingerprint, false)) };
  }

  @Post('keys/enable')
  @Answers('AdminKey')
  @HttpCode(200)
  async enable(@Body() dto: KeyFingerprintDto) {
    return { success: true, ...keyView(await this.keys.setEnabled(dto.key_fingerprint, true)) };
  }

  @Post('keys/erase')
  @Answers('AdminKeyErased')
  @HttpCode(200)
  @ApiOperation({ summary: "Erase a key's data: disables the key, ends its work, deletes its videos and outputs, erases its URLs, metadata and prompts (usage and credits stay)" })
  async erase(@Body() dto: KeyFingerprintDto) {
    const erased = await this.eraser.erase(await this.keys.byFingerprint(dto.key_fingerprint));
    // disabled by the erasure; this forgets the key in this process's cache at once (others hear it from the change feed)
    const key = await this.keys.setEnabled(dto.key_fingerprint, false);
    return { success: true, ...keyView(key), erased: { jobs_ended: erased.jobsEnded, jobs: erased.jobs, uploads: erased.uploads, files: erased.files } };
  }

  @Post('keys/credits')
  @Answers('AdminKey')
  @HttpCode(200)
  @ApiOperation({ summary: 'Grant credits (negative deducts, never below zero)' })
  async credits(@Body() dto: GrantCreditsDto) {
    return { success: true, ...keyView(await this.keys.grantCredits(dto.key_fingerprint, dto.credits)) };
  }
}
