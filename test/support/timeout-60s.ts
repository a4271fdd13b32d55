// Setup file of the `int` and `e2e` jest projects (see jest.config.mjs): they talk to real Postgres, NATS and
// child processes, so each test and hook gets 60 s instead of jest's 5 s.
import { jest } from '@jest/globals';

jest.setTimeout(60_000);
