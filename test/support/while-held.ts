import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `hold` (taking a lock) in a transaction of its own on `dataSource`, as a command in another lane would, and starts `work`:
 * answers once `work` waits for a lock that transaction holds (pg_stat_activity), or with `waited: false` (the hold
 * rolled back) if it finished without waiting. `end` then runs `after` in the holding transaction, commits it, and
 * answers what `work` came to (or throws what it threw).
 */
export async function whileHeld(
  dataSource: DataSource,
  hold: (manager: EntityManager) => Promise<unknown>,
  work: () => Promise<unknown>,
): Promise<{
  waited: boolean;
  end: (after?: (manager: EntityManager) => Promise<unknown>) => Promise<unknown>;
}> {
  const holder = dataSource.createQueryRunner();
  await holder.connect();
  await holder.startTransaction();
  await hold(holder.manager);
  const [{ pid }] = (await holder.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
  const outcome = work().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  let finished = false;
  void outcome.then(() => (finished = true));
  let waited = false;
  while (!finished && !waited) {
    const rows = await dataSource.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
      [pid],
    );
    waited = rows[0].n > 0;
    if (!waited) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (!waited) {
    // It did not wait (the test fails on that): the lock goes now, so that the tests after it do not hang on it.
    await holder.rollbackTransaction();
    await holder.release();
    return { waited, end: async () => outcome };
  }
  return {
    waited,
    end: async (after) => {
      if (after) await after(holder.manager);
      await holder.commitTransaction();
      await holder.release();
      const settled = await outcome;
      if ('error' in settled) throw settled.error;
      return settled.value;
    },
  };
}
