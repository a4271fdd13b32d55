import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OwnerListIndexes1796555940018 implements MigrationInterface {
  name = 'OwnerListIndexes1796555940018';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "pods_owner_live_idx" ON "pod_lifecycle"."pods"  ("owner_id", "created_at", "id") WHERE status <> 'TERMINATED'`,
    );
    await queryRunner.query(
      `CREATE INDEX "pod_usage_owner_end_idx" ON "pod_lifecycle"."pod_usage"  ("owner_id", "ended_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."pod_usage_owner_end_idx"`);
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."pods_owner_live_idx"`);
  }
}
