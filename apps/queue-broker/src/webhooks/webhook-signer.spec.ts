import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signedHeaders } from './webhook-signer.js';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('signedHeaders (Standard Webhooks)', () => {
  const body = JSON.stringify({ id: 'job-1', status: 'COMPLETED', output: { ok: true } });

  it('signs so that the specification library verifies it, and a changed body fails', () => {
    const key = secret();
    const headers = signedHeaders('msg_1', new Date(), body, [key]);
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(key).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(key).verify(body.replace('true', 'false'), headers)).toThrow();
    expect(() => new Webhook(secret()).verify(body, headers)).toThrow();
  });

  it('carries one signature per secret during a rotation: receivers with either verify', () => {
    const current = secret();
    const previous = secret();
    const headers = signedHeaders('msg_2', new Date(), body, [current, previous]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toBeTruthy();
    expect(new Webhook(previous).verify(body, headers)).toBeTruthy();
  });

  it('is refused by receivers when its timestamp is stale (replay protection)', () => {
    const key = secret();
    const headers = signedHeaders('msg_3', new Date(Date.now() - 3600_000), body, [key]);
    expect(() => new Webhook(key).verify(body, headers)).toThrow(/timestamp/i);
  });

  it('sends no signature header when the endpoint has no secret', () => {
    expect(signedHeaders('msg_4', new Date(), body, [])['webhook-signature']).toBeUndefined();
  });
});
