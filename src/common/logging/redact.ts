import { API_KEY_IN_TEXT, fingerprintOf, hashApiKey } from '../api-key-format';
const URL_SIGNATURE = /([?&](?:signature|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&\s"']+/gi;

/**
 * Makes a log line safe: API keys become their fingerprint, URL signatures and the given secrets
 * (admin token, signing secret) disappear. Applied to every message; the access log never reads
 * headers or query strings in the first place.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let safe = text.replace(API_KEY_IN_TEXT, (key) => `bd_live_<key ${fingerprintOf(hashApiKey(key))}>`).replace(URL_SIGNATURE, '$1[redacted]');
  for (const secret of secrets) if (secret.length >= 8) safe = safe.split(secret).join('[redacted]');
  return safe;
}
