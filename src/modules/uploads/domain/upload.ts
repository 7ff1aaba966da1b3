import { storageKeys } from '../../../common/storage-keys';

export interface Upload {
  id: string;
  apiKeyId: string;
  storageKey: string;
  filename: string;
  size: number;
  contentType: string;
  durationSeconds: number | null;
  /** the frames a second the engine reads (a long job's chunks each hold some); null for uploads made before it was kept */
  frameRate?: number | null;
  createdAt: Date;
  /** set when retention deleted the file */
  deletedAt?: Date | null;
}

export const uploadStorageKey = storageKeys.upload;

const MAX_FILENAME_CHARACTERS = 255;
/** C0 and C1 controls and DEL: Postgres refuses a NUL in text (the upload was answered 500), and none of them belongs in a name shown back */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
/** half of a UTF-16 pair without its other half */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The client's filename as it is kept and shown back: without control characters, a lone
 * surrogate (no character of its own) made U+FFFD, at most 255 characters, cut between characters,
 * never inside one. `video` where nothing is left.
 */
export function storableFilename(sent: string): string {
  const characters = Array.from(sent.replace(CONTROL_CHARACTERS, '').replace(LONE_SURROGATE, '\ufffd'));
  return characters.slice(0, MAX_FILENAME_CHARACTERS).join('') || 'video';
}
