import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects } from '@app/contracts';
import { HandlerHarness, refusalOf } from '../../../../../test/support/handler-harness.js';
import { DATA_SOURCE_SPEC } from '../../data-source.js';
import { RotateWebhookSecretHandler } from '../rotate-webhook-secret/rotate-webhook-secret.handler.js';
import { WebhookSecretsRepository } from '../webhook-secrets.repository.js';
import { GetWebhookSecretHandler } from './get-webhook-secret.handler.js';

/** `job.qry.webhook-secret` over queue-broker's real schema: the secrets its rotate command stored. */

let harness: HandlerHarness;

beforeAll(async () => {
  harness = await HandlerHarness.start('webhook_secret', 'queue-broker', DATA_SOURCE_SPEC);
  const secrets = new WebhookSecretsRepository(harness.dataSource);
  harness.register(new RotateWebhookSecretHandler(secrets), new GetWebhookSecretHandler(secrets));
});

afterAll(async () => {
  await harness?.stop();
});

const rotate = (endpointId: string, secretSealed: string, issuedAt: string) =>
  harness.send(Subjects.job.rotateWebhookSecret, { endpointId, secretSealed }, { issuedAt });
const secret = (endpointId: string) => harness.query(Subjects.job.webhookSecret, { endpointId });

describe("getting an endpoint's webhook secret", () => {
  it('answers the secret of the last rotation, still sealed, and when it was rotated', async () => {
    await rotate('ep-hooks', 'v1.key.Zmlyc3Q=', '2026-03-01T10:00:00.000Z');
    await rotate('ep-hooks', 'v1.key.c2Vjb25k', '2026-03-01T11:00:00.000Z');
    expect(await secret('ep-hooks')).toEqual({
      endpointId: 'ep-hooks',
      secretSealed: 'v1.key.c2Vjb25k',
      rotatedAt: '2026-03-01T11:00:00.000Z',
    });
  });

  it("answers null for an endpoint never rotated, whatever another endpoint's holds", async () => {
    await rotate('ep-other', 'v1.key.b3RoZXI=', '2026-03-01T10:00:00.000Z');
    expect(await secret('ep-never')).toBeNull();
    expect((await secret('ep-other'))?.secretSealed).toBe('v1.key.b3RoZXI=');
  });

  it('refuses a query without an endpoint (422)', async () => {
    expect(await refusalOf(harness.query(Subjects.job.webhookSecret, {}))).toMatchObject({
      code: ErrorCode.ValidationFailed,
    });
  });
});
