import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkerPodsIndex1795492485229 implements MigrationInterface {
  name = 'WorkerPodsIndex1795492485229';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "pods_endpoint_idx" ON "pod_lifecycle"."pods"  ("endpoint_id") WHERE endpoint_id IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."pods_endpoint_idx"`);
  }
}
