import { Injectable } from '@nestjs/common';
import { DataSource, In, IsNull, Not, type EntityManager } from 'typeorm';
import { PodStatus } from '@app/contracts';
import { transformFrom } from '@app/database';
import type { PodsUsingRegistryAuth } from '../registry-auth/registry-auth.users.js';
import type { PodsUsingTemplate } from '../templates/template.users.js';
import { PodEntity } from './pod.entity.js';
import type { PodListRow } from './pod.mapper.js';

const LIVE = [PodStatus.Provisioning, PodStatus.Starting, PodStatus.Running];

/** `to_char`'s pattern for `Date.prototype.toISOString`'s text, of a time at UTC. */
const ISO_MS = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';

/** A pod by its id and the version of its row (Postgres' `xmin` as text). */
export interface PodVersion {
  id: string;
  version: string;
}

/** What `listByOwner` lists: terminated pods too, standalone ones only, a page. */
export interface ListByOwnerOptions {
  includeTerminated?: boolean;
  standaloneOnly?: boolean;
  limit?: number;
  afterId?: string;
}

@Injectable()
export class PodRepository implements PodsUsingTemplate, PodsUsingRegistryAuth {
  constructor(private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<PodEntity | null> {
    return manager.findOneBy(PodEntity, { id });
  }

  /** Reads the pod and locks its row until the transaction ends: actions on one pod are serialised. */
  lockById(id: string, manager: EntityManager): Promise<PodEntity | null> {
    return manager.findOne(PodEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * The owner's pods, oldest first (then by id), terminated ones only on request, a page of `limit` after the pod
   * `afterId`: a keyset on (created_at, id), so every page is one index range. The live ones are read through
   * `pods_owner_live_idx` (partial, not TERMINATED): an account's terminated history is most of its pods.
   * Plain rows, not entities, their times written by Postgres as the views write them: a whole list is a thousand
   * pods, and TypeORM's hydration, then parsing each time into a Date to write it back as text, cost more than the
   * statement and the views together (ADR 46).
   */
  async listByOwner(ownerId: string, options: ListByOwnerOptions = {}): Promise<PodListRow[]> {
    const page = this.ownerPage(ownerId, options);
    return this.listRows(page.text, page.values);
  }

  /**
   * The same page as `listByOwner`, each pod only by its id and the version of its row (Postgres' `xmin`: the
   * transaction that wrote it, new at every update of the row): what a list's cached views are checked against.
   */
  listVersionsByOwner(ownerId: string, options: ListByOwnerOptions = {}): Promise<PodVersion[]> {
    const page = this.ownerPage(ownerId, options);
    return this.dataSource.query(`SELECT p.id, p.xmin::text AS version ${page.text}`, page.values);
  }

  /** These pods' rows as `listByOwner` reads them, with their versions (none for a pod that is gone). */
  listRowsByIds(ids: string[]): Promise<(PodListRow & PodVersion)[]> {
    if (!ids.length) return Promise.resolve([]);
    const { schema, tableName } = this.dataSource.getMetadata(PodEntity);
    return this.listRows(
      `FROM "${schema}"."${tableName}" p WHERE p.id = ANY($1)`,
      [ids],
      ', p.xmin::text AS version',
    );
  }

  /** `FROM … WHERE … ORDER BY … LIMIT …` of an owner's page, with its values. */
  private ownerPage(ownerId: string, options: ListByOwnerOptions): { text: string; values: unknown[] } {
    const { schema, tableName } = this.dataSource.getMetadata(PodEntity);
    const table = `"${schema}"."${tableName}"`;
    const values: unknown[] = [ownerId];
    const where = ['p.owner_id = $1'];
    // A literal, not a parameter: the planner matches it to the partial index's predicate.
    if (!options.includeTerminated) where.push(`p.status <> '${PodStatus.Terminated}'`);
    if (options.standaloneOnly) where.push('p.cluster_id IS NULL');
    if (options.afterId !== undefined) {
      values.push(options.afterId);
      where.push(
        `(p.created_at, p.id) > (SELECT a.created_at, a.id FROM ${table} a WHERE a.id = $${values.length})`,
      );
    }
    let limit = '';
    if (options.limit !== undefined) {
      values.push(options.limit);
      limit = ` LIMIT $${values.length}`;
    }
    return {
      text: `FROM ${table} p WHERE ${where.join(' AND ')} ORDER BY p.created_at, p.id${limit}`,
      values,
    };
  }

  /** Every column of the rows `from` names, through the columns' transformers, the times as ISO text. */
  private async listRows<R extends PodListRow>(from: string, values: unknown[], extra = ''): Promise<R[]> {
    const metadata = this.dataSource.getMetadata(PodEntity);
    const columns = metadata.columns.map((c) => {
      const value = `p."${c.databaseName}"`;
      // toISOString's text (truncated to the millisecond, as a Date read from the column would be).
      const read = c.type === 'timestamptz' ? `to_char(${value} AT TIME ZONE 'UTC', '${ISO_MS}')` : value;
      return `${read} AS "${c.propertyName}"`;
    });
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT ${columns.join(', ')}${extra} ${from}`,
      values,
    );
    const transformed = metadata.columns.filter((c) => c.transformer);
    for (const row of rows) {
      for (const c of transformed) row[c.propertyName] = transformFrom(c, row[c.propertyName]);
    }
    return rows as unknown as R[];
  }

  /** The owner's worker pods of an endpoint that are not terminated, oldest first (through `pods_endpoint_idx`). */
  listWorkersOf(ownerId: string, endpointId: string): Promise<PodEntity[]> {
    return this.dataSource.manager.find(PodEntity, {
      where: { endpointId, ownerId, status: Not(PodStatus.Terminated) },
      select: { id: true, status: true, generation: true, lastStartedAt: true, createdAt: true },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** The state columns of the pods of these ids that exist, through the primary key. */
  statesOf(
    ids: string[],
  ): Promise<
    Pick<PodEntity, 'id' | 'ownerId' | 'status' | 'desiredStatus' | 'statusReason' | 'lastStatusChange'>[]
  > {
    if (!ids.length) return Promise.resolve([]);
    return this.dataSource.manager.find(PodEntity, {
      where: { id: In(ids) },
      select: {
        id: true,
        ownerId: true,
        status: true,
        desiredStatus: true,
        statusReason: true,
        lastStatusChange: true,
      },
    });
  }

  listByCluster(clusterId: string, manager: EntityManager = this.dataSource.manager): Promise<PodEntity[]> {
    return manager.find(PodEntity, { where: { clusterId }, order: { clusterRank: 'ASC', id: 'ASC' } });
  }

  /**
   * Holds the hosts' pod sets until the transaction ends, in host id order (two creates cannot deadlock on them). A
   * host command takes it before it reads the host's pods; a create takes it before it inserts pods there. A row
   * lock cannot order those: a pod inserted but not yet committed is invisible to the read. Without it, host-lost on
   * one replica missed the members a create on the other was committing, dated before it; the rebuild, in
   * processed_at order, included them (random history seed 1411). With it, whichever comes second sees the first.
   */
  async lockHosts(hostIds: Iterable<string | null>, manager: EntityManager): Promise<void> {
    const keys = [...new Set(hostIds)].filter((id): id is string => id !== null).sort();
    // Sent together; the connection runs them in this order.
    await Promise.all(
      keys.map((hostId) =>
        manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`pods-on-host:${hostId}`]),
      ),
    );
  }

  /**
   * Live pods on a host, locked, after the host's lock (`lockHosts`: a pod being created there is waited for). The
   * rows are locked on the host whatever their status, terminated ones aside, and the live ones kept: a start on
   * another replica is then waited for and its result seen, where a filter on the status would skip the row.
   */
  async lockLiveOnHost(hostId: string, manager: EntityManager): Promise<PodEntity[]> {
    await this.lockHosts([hostId], manager);
    const locked = await manager.find(PodEntity, {
      where: { hostId, status: Not(PodStatus.Terminated) },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
    const live: readonly PodStatus[] = LIVE;
    return locked.filter((pod) => live.includes(pod.status));
  }

  /**
   * The live pods among `podIds` that are on the host, after the host's lock (`lockHosts`: a pod being created there
   * by another replica is waited for and seen), each locked by its id (in id order): a command changing one of them
   * on another replica (a start) is waited for and its result seen, so the set does not depend on which committed
   * first, and a rebuild, applying them in processed_at order, finds the same pods.
   */
  async lockLiveOnHostAmong(hostId: string, podIds: string[], manager: EntityManager): Promise<PodEntity[]> {
    if (!podIds.length) return [];
    await this.lockHosts([hostId], manager);
    const locked = await manager.find(PodEntity, {
      where: { id: In(podIds) },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
    const live: readonly PodStatus[] = LIVE;
    return locked.filter((pod) => pod.hostId === hostId && live.includes(pod.status));
  }

  /**
   * Pods on a host that carry a notice of its state (any status), locked, after the host's lock (`lockHosts`): only
   * host-notice sets a notice, and it takes that lock too, so a notice being written is waited for and seen.
   */
  async lockNoticedOnHost(hostId: string, manager: EntityManager): Promise<PodEntity[]> {
    await this.lockHosts([hostId], manager);
    return manager.find(PodEntity, {
      where: { hostId, hostNotice: Not(IsNull()) },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Pods whose container should exist (for the runtime's reconcile at boot). */
  listLive(): Promise<PodEntity[]> {
    return this.dataSource.manager.find(PodEntity, { where: { status: In(LIVE) }, order: { id: 'ASC' } });
  }

  /** Pods whose env has the variable `name` (any value). */
  listWithEnvVar(name: string): Promise<PodEntity[]> {
    return this.dataSource.manager
      .createQueryBuilder(PodEntity, 'pod')
      .where('pod.env ? :name', { name })
      .orderBy('pod.id', 'ASC')
      .getMany();
  }

  /** Whether a pod that is not terminated uses the template. */
  async templateInUse(templateId: string, manager: EntityManager): Promise<string | null> {
    const pod = await manager.findOne(PodEntity, {
      where: { templateId, status: Not(PodStatus.Terminated) },
      select: { id: true },
      // The lowest id, not whichever row the scan meets first: the refusal names it, and a rebuild must too.
      order: { id: 'ASC' },
    });
    return pod?.id ?? null;
  }

  /** Whether a pod that is not terminated pulls with the credential. */
  async registryAuthInUse(registryAuthId: string, manager: EntityManager): Promise<string | null> {
    const pod = await manager.findOne(PodEntity, {
      where: { registryAuthId, status: Not(PodStatus.Terminated) },
      select: { id: true },
      // The lowest id, not whichever row the scan meets first: the refusal names it, and a rebuild must too.
      order: { id: 'ASC' },
    });
    return pod?.id ?? null;
  }

  /**
   * The pod as given: every column is set, so nothing is read back (TypeORM would copy the database's defaults
   * into the entity raw, numeric prices as strings, past their transformer).
   */
  insert(pod: PodEntity, manager: EntityManager): Promise<unknown> {
    return manager.createQueryBuilder().insert().into(PodEntity).values(pod).updateEntity(false).execute();
  }

  save(pod: PodEntity, manager: EntityManager): Promise<PodEntity> {
    return manager.save(PodEntity, pod);
  }
}
