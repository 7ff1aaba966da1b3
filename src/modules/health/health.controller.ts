import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { Response } from 'express';
import { HealthService } from './health.service';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthService,
    private readonly terminus: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
  ) {}

  @Get()
  @ApiOperation({ summary: '200 healthy when every check is ok, else 503 degraded (public)' })
  async status(@Res({ passthrough: true }) res: Response) {
    const checks = await this.health.checks();
    const healthy = Object.values(checks).every((value) => value === 'ok');
    res.status(healthy ? 200 : 503);
    return { status: healthy ? 'healthy' : 'degraded', checks };
  }

  @Get('live')
  @ApiOperation({ summary: 'The process is up' })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Ready for traffic: database, queue and storage answer' })
  ready() {
    return this.terminus.check([
      async () => {
        const checks = await this.health.readiness();
        const ready = Object.values(checks).every((value) => value === 'ok');
        const session = this.indicator.check('dependencies');
        return ready ? session.up(checks) : session.down(checks);
      },
    ]);
  }
}
