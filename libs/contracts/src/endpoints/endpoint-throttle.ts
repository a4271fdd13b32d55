/**
 * Why a serverless endpoint's workers are held back (docs/serverless.md, "Why an endpoint waits"): the autoscaler's
 * latest create or resume of a worker was refused, and none succeeded since. `code` is the refusal's ErrorCode
 * (QUOTA_EXCEEDED: the team's GPU quota is used up; SPEND_LIMIT_REACHED; CAPACITY_UNAVAILABLE; ...), `message` the
 * autoscaler's words for it, `since` when the endpoint began waiting (its first refusal since a create or resume last
 * went through, ISO 8601). Shown while the autoscaler keeps asking (a refusal within twice its back-off window).
 */
export interface EndpointThrottle {
  code: string;
  message: string;
  since: string;
}
