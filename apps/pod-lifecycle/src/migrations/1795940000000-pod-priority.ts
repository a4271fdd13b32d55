import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A pod's priority (low 0, normal 1, high 2) and whether it is interruptible, which every reservation of it carries
 * (docs/adr/0037-quotas-and-preemption.md). Every pod so far is normal and not interruptible.
 */
export class PodPriority1795940000000 implements MigrationInterface {
  name = 'PodPriority1795940000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" ADD "priority" smallint NOT NULL DEFAULT 1`);
    await queryRunner.query(
      `ALTER TABLE "pod_lifecycle"."pods" ADD "interruptible" boolean NOT NULL DEFAULT false`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" DROP COLUMN "interruptible"`);
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" DROP COLUMN "priority"`);
  }
}
