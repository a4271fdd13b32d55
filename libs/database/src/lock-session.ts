import pg from 'pg';

/**
 * A dedicated connection for session-level advisory locks (advisory-leadership.ts, advisory-partitions.ts): the
 * locks live exactly as long as it does. Keepalive on, so a peer that vanished without closing is noticed; every
 * statement bounded, so a hung server fails a check instead of stalling it. `onLost` runs when the connection
 * errs or ends: whatever it held is gone. Throws when `stopped()` turned true while it connected.
 */
export async function openLockSession(options: {
  databaseUrl: string;
  applicationName: string;
  checkMs: number;
  onLost: (client: pg.Client) => void;
  stopped: () => boolean;
}): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: options.databaseUrl,
    application_name: options.applicationName.slice(0, 63),
    keepAlive: true,
    // A few checks' worth: a loaded database must not cost the locks (a lost partition is re-adopted elsewhere),
    // a hung one still fails a check within seconds.
    connectionTimeoutMillis: Math.max(3000, 2 * options.checkMs),
    query_timeout: Math.max(3000, 2 * options.checkMs),
  });
  client.on('error', () => {
    options.onLost(client);
    void client.end().catch(() => undefined);
  });
  client.on('end', () => options.onLost(client));
  await client.connect();
  if (options.stopped()) {
    await client.end();
    throw new Error('stopped');
  }
  return client;
}
