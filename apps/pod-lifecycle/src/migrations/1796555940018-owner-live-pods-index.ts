import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OwnerLivePodsIndex1796555940018 implements MigrationInterface {
  name = 'OwnerLivePodsIndex1796555940018';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "pods_owner_live_idx" ON "pod_lifecycle"."pods"  ("owner_id", "created_at", "id") WHERE status <> 'TERMINATED'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."pods_owner_live_idx"`);
  }
}
