import { WorkerHost } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { FlowProducer, QueueBase } from 'bullmq';
import { RepeatedWarning } from '../../common/logging/repeated-warning';
import { withTimeout } from '../../common/with-timeout';

/** at most one line a connection in this long, however often it fails */
const ERROR_LOG_INTERVAL_MS = 30_000;
/** how long a start waits for every queue connection */
const QUEUE_READY_TIMEOUT_MS = 60_000;

interface QueueConnection {
  waitUntilReady(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Every queue, flow producer and worker of the app, looked after at start-up:
 * - start-up waits until each has its connection ready (on the Postgres backend: connected and its
 *   schema migrated), and fails if one cannot. BullMQ starts them without waiting and remembers a
 *   failed start for good: a database that went away while a worker's connection started left the
 *   worker retrying its fetch in a loop that never yields, the whole process frozen at full CPU.
 * - their errors are logged as one line, at most one each `ERROR_LOG_INTERVAL_MS`: unheard, BullMQ
 *   printed each with its database client's whole state, several a second while a database was down.
 */
@Injectable()
export class QueueConnections implements OnApplicationBootstrap {
  private readonly logger = new Logger('Queue');

  constructor(private readonly discovery: DiscoveryService) {}

  async onApplicationBootstrap(): Promise<void> {
    const connections = this.discovery.getProviders().flatMap(({ instance }): Array<[string, QueueConnection]> => {
      if (instance instanceof WorkerHost) return [[`the ${instance.worker.name} worker`, instance.worker]];
      if (instance instanceof QueueBase) return [[`the ${instance.name} queue`, instance]];
      if (instance instanceof FlowProducer) return [['the flow producer', instance]];
      return [];
    });
    for (const [name, connection] of connections) this.logErrors(name, connection);
    // a Redis that does not answer held the start for good (BullMQ retries its connection forever)
    await withTimeout(Promise.all(connections.map(([, connection]) => connection.waitUntilReady())), QUEUE_READY_TIMEOUT_MS, 'the queue backend (REDIS_URL, else the database)');
  }

  private logErrors(name: string, connection: QueueConnection): void {
    const errors = new RepeatedWarning(this.logger, ERROR_LOG_INTERVAL_MS);
    connection.on('error', (error) => errors.warn(`${name}: ${error.message}`));
  }
}
