import { describe, expect, it, jest } from '@jest/globals';
import { StartupTasks } from './startup-tasks.js';

/** A promise and the hand that settles it, to hold a task open for as long as a test needs. */
function gate(): { promise: Promise<void>; open: () => void; fail: (error: Error) => void } {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

describe('StartupTasks', () => {
  it('lists a task as unfinished until its work has resolved', async () => {
    const tasks = new StartupTasks();
    const work = gate();
    const task = tasks.run('fleet', () => work.promise);
    expect(tasks.unfinished()).toEqual(['fleet']);
    work.open();
    await task;
    expect(tasks.unfinished()).toEqual([]);
    expect(tasks.failed()).toEqual([]);
  });

  it('starts a task given `after` only once that has resolved', async () => {
    const tasks = new StartupTasks();
    const fleet = gate();
    void tasks.run('fleet', () => fleet.promise);
    const started = jest.fn(() => Promise.resolve());
    const consumers = tasks.run('consumers', started, tasks.settled());
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).not.toHaveBeenCalled();
    expect(tasks.unfinished()).toEqual(['fleet', 'consumers']);
    fleet.open();
    await consumers;
    expect(started).toHaveBeenCalledTimes(1);
    expect(tasks.unfinished()).toEqual([]);
  });

  it('reports a failure to the handler, records it, and fails a task waiting for it without running it', async () => {
    const tasks = new StartupTasks();
    const handler = jest.fn<(name: string, error: Error) => void>();
    tasks.onFailure(handler);
    const fleet = gate();
    void tasks.run('fleet', () => fleet.promise);
    const started = jest.fn(() => Promise.resolve());
    const consumers = tasks.run('consumers', started, tasks.settled());
    fleet.fail(new Error('FLEET_FILE cannot be read'));
    await consumers;
    expect(started).not.toHaveBeenCalled();
    expect(handler).toHaveBeenCalledWith('fleet', new Error('FLEET_FILE cannot be read'));
    expect(handler).toHaveBeenCalledWith('consumers', new Error('start-up task(s) failed: fleet'));
    expect(tasks.failed()).toEqual([
      ['fleet', 'FLEET_FILE cannot be read'],
      ['consumers', 'start-up task(s) failed: fleet'],
    ]);
    expect(tasks.unfinished()).toEqual([]);
  });

  it('passes a failure that happened before a handler was set to the handler when it is set', async () => {
    const tasks = new StartupTasks();
    await tasks.run('fleet', () => Promise.reject(new Error('invalid fleet file')));
    const handler = jest.fn<(name: string, error: Error) => void>();
    tasks.onFailure(handler);
    expect(handler).toHaveBeenCalledWith('fleet', new Error('invalid fleet file'));
  });

  it('refuses a second task of the same name while the first runs', () => {
    const tasks = new StartupTasks();
    void tasks.run('fleet', () => gate().promise);
    expect(() => tasks.run('fleet', () => Promise.resolve())).toThrow(/already running/);
  });
});
