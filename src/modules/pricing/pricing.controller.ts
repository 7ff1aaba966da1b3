import { Answers } from '../../common/http/openapi-schemas';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import type { Pricing } from '../../contract/api-types';

@ApiTags('pricing')
@Controller('api/pricing')
export class PricingController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @Answers('Pricing')
  @ApiOperation({ summary: 'Credits per minute of video for each model, and the credit packages (public)' })
  pricing(): Pricing & { success: true } {
    return {
      success: true,
      model_pricing_credits_per_minute: this.config.creditsPerMinute,
      price_per_second_cents: this.config.env.PRICE_PER_SECOND_CENTS,
      packages: this.config.pricingPackages,
    };
  }
}
