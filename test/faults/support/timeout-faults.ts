// Setup file of the `faults` jest project (see jest.config.mjs): scenarios kill and restart processes under load
// on a small machine, so each test and hook gets 5 minutes unless it sets its own (the suite runs in band).
import { jest } from '@jest/globals';

jest.setTimeout(300_000);
