/**
 * pg-pool's `onConnect`: every pooled connection listens for its own errors. pg-pool stops
 * listening while a connection is taken out, and one the server ended between two queries (a
 * Postgres restart, 57P01) emitted `error` with no listener, which ended the process: a worker died.
 * Its next query fails instead, and the pool drops it. For the app's pool and BullMQ's Postgres
 * backend's alike.
 */
export function listenForErrors(client: { on(event: 'error', listener: () => void): unknown }): void {
  client.on('error', () => undefined);
}
