import { Module } from '@nestjs/common';
import { WorkerGatewayModule } from '../../worker-gateway.module';
import { WorkerCallbacksController } from './worker-callbacks.controller';

/** The API's endpoint for remote workers' callbacks. */
@Module({ imports: [WorkerGatewayModule], controllers: [WorkerCallbacksController] })
export class WorkerCallbacksModule {}
