import { Answers } from '../../../../common/http/openapi-schemas';
import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { ApiKeyGuard } from '../../../../common/http/api-key-auth';
import { modelCatalog } from '../../domain/model-catalog';

@ApiTags('models')
@ApiSecurity('apiKey')
@UseGuards(ApiKeyGuard)
@Controller('v1/models')
export class ModelsController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @Answers('Models')
  @ApiOperation({ summary: "The models a job can use, their price, and `pro`'s text_prompt vocabulary" })
  list() {
    return { success: true, models: modelCatalog(this.config.creditsPerMinute) };
  }
}
