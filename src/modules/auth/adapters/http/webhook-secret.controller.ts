import { Answers } from '../../../../common/http/openapi-schemas';
import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeysService, WebhookSecretView } from '../../application/api-keys.service';
import { ApiKeyGuard, CurrentKey } from '../../../../common/http/api-key-auth';
import { AuthenticatedApiKey } from '../../application/api-key-cache';

@ApiTags('webhooks')
@ApiSecurity('apiKey')
@UseGuards(ApiKeyGuard)
@Controller('v1/webhooks/secret')
export class WebhookSecretController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @Answers('WebhookSecret')
  @ApiOperation({ summary: "The key's webhook signing secret (whsec_...): verify X-Webhook-Signature or webhook-signature with it; previous_secret_valid_until: until when the secret it replaced still signs beside it (or null)" })
  async read(@CurrentKey() key: AuthenticatedApiKey) {
    return secretBody(await this.keys.webhookSecret(key));
  }

  @Post()
  @Answers('WebhookSecret')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the signing secret: X-Webhook-Signature is the new one\'s from now on; webhook-signature carries the new one\'s and, until previous_secret_valid_until (WEBHOOK_SECRET_OVERLAP_SECONDS, a day by default), the old one\'s',
  })
  async rotate(@CurrentKey() key: AuthenticatedApiKey) {
    return secretBody(await this.keys.rotateWebhookSecret(key));
  }
}

function secretBody(view: WebhookSecretView) {
  return { success: true, secret: view.secret, previous_secret_valid_until: view.previousValidUntil?.toISOString() ?? null };
}
