import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An endpoint's priority (low 0, normal 1, high 2), which its worker pods carry into placement
 * (docs/adr/0037-quotas-and-preemption.md). Every endpoint so far is normal.
 */
export class EndpointPriority1795940000000 implements MigrationInterface {
  name = 'EndpointPriority1795940000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "endpoint_autoscaler"."endpoints" ADD "priority" smallint NOT NULL DEFAULT 1`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "endpoint_autoscaler"."endpoints" DROP COLUMN "priority"`);
  }
}
