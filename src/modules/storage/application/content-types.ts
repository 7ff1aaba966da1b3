import * as path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.mp4': 'video/mp4',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.zip': 'application/zip',
  '.avi': 'video/x-msvideo',
};

/** The Content-Type a stored object is served with, by its key's extension. */
export function contentTypeOf(key: string): string {
  return CONTENT_TYPES[path.extname(key)] ?? 'application/octet-stream';
}

/** A Content-Disposition that makes browsers save the object as `name` (reduced to safe characters). */
export function attachmentDisposition(name: string): string {
  return `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}
