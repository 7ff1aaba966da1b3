/**
 * The API contract's job statuses: the one list the server, the worker protocol and the browser
 * bundle read. Pure TypeScript with no imports, so both builds (Node and src/web) compile it.
 */
export const JOB_STATUSES = ['created', 'pending', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed'];
