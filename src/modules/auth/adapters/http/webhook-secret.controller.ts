import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeysService } from '../../application/api-keys.service';
import { ApiKeyGuard, CurrentKey } from '../../../../common/http/api-key-auth';
import { AuthenticatedApiKey } from '../../application/api-key-cache';

@ApiTags('webhooks')
@ApiSecurity('apiKey')
@UseGuards(ApiKeyGuard)
@Controller('v1/webhooks/secret')
export class WebhookSecretController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @ApiOperation({ summary: "The key's webhook signing secret (whsec_...): verify X-Webhook-Signature or webhook-signature with it" })
  async read(@CurrentKey() key: AuthenticatedApiKey) {
    return { success: true, secret: await this.keys.webhookSecret(key) };
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Rotate the signing secret; deliveries from now on are signed with the new one' })
  async rotate(@CurrentKey() key: AuthenticatedApiKey) {
    return { success: true, secret: await this.keys.rotateWebhookSecret(key) };
  }
}
