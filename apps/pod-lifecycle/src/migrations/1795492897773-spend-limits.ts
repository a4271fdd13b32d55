import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SpendLimits1795492897773 implements MigrationInterface {
  name = 'SpendLimits1795492897773';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pod_lifecycle"."spend_limits" ("user_id" text NOT NULL, "operator_limit" numeric(16,6), "user_limit" numeric(16,6), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_eb41d05eccfa96ccd2e13a3478f" PRIMARY KEY ("user_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "pod_lifecycle"."spend_limits"`);
  }
}
