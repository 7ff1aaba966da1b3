import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminTokenGuard } from './adapters/http/admin-token.guard';
import { AdminController } from './adapters/http/admin.controller';
import { ApiKeyAuthenticator, ApiKeyGuard } from '../../common/http/api-key-auth';
import { WebhookSecretController } from './adapters/http/webhook-secret.controller';
import { ApiKeyRecord } from './adapters/typeorm/api-key.record';
import { TypeOrmApiKeyRepository } from './adapters/typeorm/typeorm.api-key.repository';
import { ApiKeysService } from './application/api-keys.service';
import { ApiKeyRepository } from './ports/api-key.repository';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyRecord])],
  controllers: [AdminController, WebhookSecretController],
  providers: [ApiKeysService, { provide: ApiKeyAuthenticator, useExisting: ApiKeysService }, ApiKeyGuard, AdminTokenGuard, { provide: ApiKeyRepository, useClass: TypeOrmApiKeyRepository }],
  exports: [ApiKeysService, ApiKeyAuthenticator, ApiKeyGuard, ApiKeyRepository],
})
export class AuthModule {}
