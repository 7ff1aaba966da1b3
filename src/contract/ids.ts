/**
 * The shapes of the ids the API hands out: a prefix and base62 characters (26 carry ~154 bits,
 * unguessable). Generated in src/common/ids.ts, checked here, read by the server and src/web.
 */
export const ID_PREFIX = { job: 'job_', upload: 'vid_', request: 'req_', webhookMessage: 'msg_' } as const;
export const ID_LENGTH = { job: 26, upload: 26, request: 20, webhookMessage: 24 } as const;

export const JOB_ID_PATTERN = /^job_[0-9A-Za-z]{26}$/;
export const UPLOAD_ID_PATTERN = /^vid_[0-9A-Za-z]{26}$/;
/** A job id at the start of a path under /v1/jobs/. */
export const JOB_ID_IN_PATH = /^\/v1\/jobs\/(job_[0-9A-Za-z]{26})/;

export const isJobId = (candidate: string): boolean => JOB_ID_PATTERN.test(candidate);
export const isUploadId = (candidate: string): boolean => UPLOAD_ID_PATTERN.test(candidate);
