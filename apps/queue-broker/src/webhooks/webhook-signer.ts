import { Webhook } from 'standardwebhooks';

/**
 * The Standard Webhooks headers (https://www.standardwebhooks.com): `webhook-id` stays the same across the
 * retries of one delivery, so receivers can drop duplicates; `webhook-signature` lists one `v1,<base64>` per
 * secret (the current one, and during a rotation's overlap the previous one), space-separated.
 */
export function signedHeaders(
  messageId: string,
  at: Date,
  body: string,
  secrets: string[],
): Record<string, string> {
  const headers: Record<string, string> = {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
  };
  if (secrets.length) {
    headers['webhook-signature'] = secrets
      .map((secret) => new Webhook(secret).sign(messageId, at, body))
      .join(' ');
  }
  return headers;
}
