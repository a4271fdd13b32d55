/**
 * The NATS prefix of the system last started on each database: the keys CLI records its account commands in that
 * system's commands stream (so a rebuild of the system's history has its users and keys), whoever calls it.
 */
const prefixes = new Map<string, string>();

export function rememberSystemPrefix(databaseUrl: string, natsPrefix: string): void {
  prefixes.set(databaseUrl, natsPrefix);
}

export function systemPrefixOf(databaseUrl: string): string | undefined {
  return prefixes.get(databaseUrl);
}
