import { Answers } from '../../common/http/openapi-schemas';
import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { Response } from 'express';
import { DomainError } from '../../common/errors/domain-error';
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
  @Answers('Health')
  @ApiOperation({ summary: '200 healthy when every check is ok, else 503 degraded (public)' })
  async status(@Res({ passthrough: true }) res: Response) {
    const checks = await this.health.checks();
    const healthy = Object.values(checks).every((value) => value === 'ok');
    res.status(healthy ? 200 : 503);
    return { status: healthy ? 'healthy' : 'degraded', checks };
  }

  @Get('live')
  @Answers('Liveness')
  @ApiOperation({ summary: 'The process is up' })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Ready for traffic: database, queue and storage answer' })
  async ready() {
    let failing: string[] = [];
    try {
      return await this.terminus.check([
        async () => {
          const checks = await this.health.readiness();
          failing = Object.entries(checks).filter(([, value]) => value !== 'ok').map(([name, value]) => `${name}: ${value}`);
          const session = this.indicator.check('dependencies');
          return failing.length === 0 ? session.up(checks) : session.down(checks);
        },
      ]);
    } catch (error) {
      // Terminus's 503 reached clients as "Internal server error", saying nothing of what failed
      if (failing.length > 0) throw new DomainError('unavailable', `Not ready: ${failing.join('; ')}`);
      throw error;
    }
  }
}
