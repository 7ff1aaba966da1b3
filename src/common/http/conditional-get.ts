import type { Request, Response } from 'express';

/** What a stored file's answer says about its version: its entity tag and when it was last written. */
export interface FileVersion {
  size: number;
  modifiedAt: Date;
}

/** a strong tag: a stored file is written once, whole, so its size and time name its bytes */
const entityTagOf = ({ size, modifiedAt }: FileVersion): string => `"${size.toString(16)}-${modifiedAt.getTime().toString(16)}"`;

/** HTTP dates have whole seconds */
const wholeSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/**
 * Sets ETag and Last-Modified on a stored file's answer. Without either a browser does not resume
 * a download cut short (it started a 500 MB output again from its first byte), and a client could
 * not ask whether its copy was current.
 */
export function setVersionHeaders(res: Response, version: FileVersion): void {
  res.setHeader('ETag', entityTagOf(version));
  res.setHeader('Last-Modified', version.modifiedAt.toUTCString());
}

/**
 * Whether the client's copy is current (RFC 9110 section 13.1.2 and 13.1.3): If-None-Match names
 * the file's tag (or `*`); without If-None-Match, If-Modified-Since is no earlier than its last write.
 */
export function clientHasCurrent(req: Request, version: FileVersion): boolean {
  const noneMatch = req.headers['if-none-match'];
  if (noneMatch !== undefined) {
    const tag = entityTagOf(version);
    return noneMatch
      .split(',')
      .map((candidate) => candidate.trim().replace(/^W\//, ''))
      .some((candidate) => candidate === '*' || candidate === tag);
  }
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && wholeSeconds(version.modifiedAt) <= since / 1000;
}

/**
 * Whether a Range still applies (RFC 9110 section 13.1.5): with If-Range, only while it names this
 * version (its strong tag, or exactly its last write); otherwise the whole file is sent, not a part
 * of a newer one spliced onto the client's older bytes.
 */
export function rangeStillApplies(req: Request, version: FileVersion): boolean {
  const ifRange = req.headers['if-range'];
  if (ifRange === undefined) return true;
  if (typeof ifRange !== 'string') return false; // sent twice: no version it names for sure
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return ifRange === entityTagOf(version);
  const date = Date.parse(ifRange);
  return Number.isFinite(date) && date / 1000 === wholeSeconds(version.modifiedAt);
}
