import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { WorkerGatewayModule } from '../worker-gateway/worker-gateway.module';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { QueueProbe } from './queue-probe';

@Module({
  imports: [TerminusModule, WorkerGatewayModule],
  controllers: [HealthController],
  providers: [HealthService, QueueProbe],
})
export class HealthModule {}
