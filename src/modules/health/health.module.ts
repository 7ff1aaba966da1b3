import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { WorkerGatewayModule } from '../worker-gateway/worker-gateway.module';
import { HealthController } from './health.controller';
import { DatabaseProbe, PostgresDatabaseProbe } from './database-probe';
import { HealthService } from './health.service';
import { QueueProbe } from './queue-probe';

@Module({
  // Terminus wrote an error line for every failing probe (every 5 s from every pod); the health
  // service logs each cause once every 30 s, and the 503 gets its warning and access line.
  imports: [TerminusModule.forRoot({ logger: false }), WorkerGatewayModule],
  controllers: [HealthController],
  providers: [HealthService, QueueProbe, { provide: DatabaseProbe, useClass: PostgresDatabaseProbe }],
})
export class HealthModule {}
