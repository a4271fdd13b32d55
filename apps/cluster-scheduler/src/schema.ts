/** The Postgres schema cluster-scheduler owns; raw SQL names its tables through `table()`. */
export const SCHEMA = 'cluster_scheduler';

/** `"cluster_scheduler"."<name>"`, for raw SQL (TypeORM's own queries qualify names themselves). */
export function table(name: string): string {
  return `"${SCHEMA}"."${name}"`;
}
