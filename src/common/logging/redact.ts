import { API_KEY_IN_TEXT, fingerprintOf, hashApiKey } from '../api-key-format';
/** a URL's signature parameters, also percent-encoded (a signed URL inside another URL's query) */
const URL_SIGNATURE = /((?:[?&]|%3F|%26)(?:signature|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)(?:=|%3D))(?:(?!%26)[^&\s"'])+/gi;
/**
 * the user and password of a URL (`postgres://user:pass@host`). The scheme starts where no scheme
 * character stands before it: with `\b` a run like `x-x-x-...` was scanned from each of its letters,
 * which took 9 s over 100 kB.
 */
const URL_USERINFO = /((?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/)[^\s/@"'<>]+@/gi;
const WEBHOOK_SECRET = /\bwhsec_[A-Za-z0-9+/=]+/g;
/** an http(s) URL in text: its user and password, where and what it is, and its query string */
const HTTP_URL = /\b(https?:\/\/)(?:[^\s/@"'<>]+@)?([^\s?#"'<>]*)(\?[^\s#"'<>]*)?/gi;

/**
 * Makes a log line safe: API keys become their fingerprint, URL signatures, passwords in URLs,
 * webhook secrets and the given secrets (admin token, signing secret, worker and S3 keys)
 * disappear. Applied to every message; the access log never reads headers or query strings in the
 * first place.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let safe = text
    .replace(API_KEY_IN_TEXT, (key) => `bd_live_<key ${fingerprintOf(hashApiKey(key))}>`)
    .replace(URL_SIGNATURE, '$1[redacted]')
    .replace(URL_USERINFO, '$1[redacted]@')
    .replace(WEBHOOK_SECRET, 'whsec_[redacted]');
  for (const secret of secrets) if (secret.length >= 8) safe = safe.split(secret).join('[redacted]');
  return safe;
}

/**
 * Text from outside (a remote worker's error, its notes) made fit to show a client: every http(s)
 * URL loses its user, password and query string, where a signed or credentialed URL keeps its
 * secret, and the rest of redactSecrets applies.
 */
export function withoutUrlSecrets(text: string): string {
  return redactSecrets(text.replace(HTTP_URL, (_url, scheme: string, rest: string, query?: string) => `${scheme}${rest}${query ? '?[redacted]' : ''}`));
}
