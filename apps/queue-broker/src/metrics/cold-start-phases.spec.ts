import { describe, expect, it } from '@jest/globals';
import { coldStartPhases } from './cold-start-phases.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

describe('coldStartPhases', () => {
  it('splits a start whose every time was recorded into its phases', () => {
    expect(
      coldStartPhases({
        decidedAt: at(0),
        placedAt: at(120),
        startingAt: at(2_120),
        runningAt: at(3_620),
        firstPollAt: at(4_000),
      }),
    ).toEqual({
      placement: 120,
      runtimeStart: 3_500,
      imagePull: 2_000,
      containerStart: 1_500,
      workerReady: 380,
    });
  });

  it('leaves out only the phases whose ends are missing', () => {
    // A pod that went PROVISIONING → RUNNING without STARTING, registered by an autoscaler that did not say when it
    // decided: no placement, no split of the runtime start.
    expect(
      coldStartPhases({
        decidedAt: null,
        placedAt: at(100),
        startingAt: null,
        runningAt: at(600),
        firstPollAt: at(900),
      }),
    ).toEqual({ runtimeStart: 500, workerReady: 300 });
    // A worker that called before anything was recorded of its start: no phase at all.
    expect(
      coldStartPhases({
        decidedAt: null,
        placedAt: null,
        startingAt: null,
        runningAt: null,
        firstPollAt: at(5),
      }),
    ).toEqual({});
  });

  it('counts a phase that reads negative across clocks as 0', () => {
    expect(
      coldStartPhases({
        decidedAt: at(0),
        placedAt: at(50),
        startingAt: at(40),
        runningAt: at(300),
        firstPollAt: at(290),
      }),
    ).toEqual({ placement: 50, runtimeStart: 250, imagePull: 0, containerStart: 260, workerReady: 0 });
  });
});
