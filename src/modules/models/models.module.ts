import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ModelsController } from './adapters/http/models.controller';

/** GET /v1/models: the model catalogue (authenticated like the other /v1 routes). */
@Module({ imports: [AuthModule], controllers: [ModelsController] })
export class ModelsModule {}
