import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The hosts that can take a GPU pod, in packing order per GPU type and data center (snapshot-statement.ts): a
 * snapshot reads the first few of each data center instead of sorting the type's hosts (docs/adr/0005, "Placement
 * at fleet size"). Written by hand: TypeORM cannot describe an expression index (HostEntity declares it unsynced).
 */
export class HostsPackingIndex1796569638361 implements MigrationInterface {
  name = 'HostsPackingIndex1796569638361';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "hosts_packing_idx" ON "cluster_scheduler"."hosts"
         ("gpu_type_id", "data_center_id", ("free_gpus" < "gpu_count") DESC, "free_gpus", "id" COLLATE "C")
         WHERE "scheduling_state" = 'READY' AND "healthy" AND "free_gpus" > 0`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."hosts_packing_idx"`);
  }
}
