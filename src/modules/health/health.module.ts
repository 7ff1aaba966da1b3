import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { WorkerGatewayModule } from '../worker-gateway/worker-gateway.module';
import { HealthController } from './health.controller';
import { DatabaseProbe, PostgresDatabaseProbe } from './database-probe';
import { HealthService } from './health.service';
import { QueueProbe } from './queue-probe';

@Module({
  imports: [TerminusModule, WorkerGatewayModule],
  controllers: [HealthController],
  providers: [HealthService, QueueProbe, { provide: DatabaseProbe, useClass: PostgresDatabaseProbe }],
})
export class HealthModule {}
