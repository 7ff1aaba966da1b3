import { Answers } from '../../../../common/http/openapi-schemas';
import type { UsageEvents, UsageSummary } from '../../../../contract/api-types';
import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Clock } from '../../../../common/clock';
import { integerParam } from '../../../../common/http/query-params';
import { AuthenticatedKey, ApiKeyGuard, CurrentKey } from '../../../../common/http/api-key-auth';
import { summarise, windowDays } from '../../domain/usage-summary';
import { UsageRecorder } from '../../application/usage-recorder';
import { UsageStore } from '../../ports/usage-store';

@ApiTags('usage')
@ApiSecurity('apiKey')
@UseGuards(ApiKeyGuard)
@Controller('v1/usage')
export class UsageController {
  constructor(
    private readonly store: UsageStore,
    private readonly recorder: UsageRecorder,
    private readonly clock: Clock,
  ) {}

  @Get('summary')
  @Answers('UsageSummary')
  @ApiOperation({ summary: 'Totals and one row per UTC day (zeros included) of the last `days` days' })
  @ApiQuery({ name: 'days', required: false, schema: { type: 'integer', minimum: 1, maximum: 90, default: 7 } })
  async summary(@CurrentKey() key: AuthenticatedKey, @Query('days') daysParam?: string): Promise<UsageSummary & { success: true }> {
    const days = integerParam(daysParam, 'days', { min: 1, max: 90, default: 7 });
    await this.recorder.flush();
    const window = windowDays(this.clock.now(), days);
    const { totals, daily } = summarise(window, await this.store.dailyCounters(key.id, new Date(`${window[0]}T00:00:00Z`)));
    return { success: true, days, ...totals, daily };
  }

  @Get('events')
  @Answers('UsageEvents')
  @ApiOperation({ summary: 'Recent API calls of this key, newest first' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  async events(@CurrentKey() key: AuthenticatedKey, @Query('limit') limitParam?: string): Promise<UsageEvents & { success: true }> {
    const limit = integerParam(limitParam, 'limit', { min: 1, max: 100, default: 20 });
    await this.recorder.flush();
    return { success: true, items: await this.store.recentRequests(key.id, limit) };
  }
}
