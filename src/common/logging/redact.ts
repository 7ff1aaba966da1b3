import { fingerprintOf, hashApiKey } from '../../modules/auth/domain/api-key';

const API_KEY = /bd_live_[0-9A-Za-z]{32}/g;
const URL_SIGNATURE = /([?&](?:signature|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&\s"']+/gi;

/**
 * Makes a log line safe: API keys become their fingerprint, URL signatures and the given secrets
 * (admin token, signing secret) disappear. Applied to every message; the access log never reads
 * headers or query strings in the first place.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let safe = text.replace(API_KEY, (key) => `bd_live_<key ${fingerprintOf(hashApiKey(key))}>`).replace(URL_SIGNATURE, '$1[redacted]');
  for (const secret of secrets) if (secret.length >= 8) safe = safe.split(secret).join('[redacted]');
  return safe;
}
