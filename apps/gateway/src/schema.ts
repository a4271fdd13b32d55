/** The Postgres schema the gateway owns (users, API keys, rate-limit counters); nobody else writes it. */
export const SCHEMA = 'gateway';
