import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminTokenGuard } from './adapters/http/admin-token.guard';
import { AdminController } from './adapters/http/admin.controller';
import { ApiKeyGuard } from './adapters/http/api-key.guard';
import { ApiKeyRecord } from './adapters/typeorm/api-key.record';
import { TypeOrmApiKeyRepository } from './adapters/typeorm/typeorm.api-key.repository';
import { ApiKeysService } from './application/api-keys.service';
import { ApiKeyRepository } from './ports/api-key.repository';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyRecord])],
  controllers: [AdminController],
  providers: [ApiKeysService, ApiKeyGuard, AdminTokenGuard, { provide: ApiKeyRepository, useClass: TypeOrmApiKeyRepository }],
  exports: [ApiKeysService, ApiKeyGuard, ApiKeyRepository],
})
export class AuthModule {}
