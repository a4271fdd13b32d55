import type { MigrationInterface, QueryRunner } from 'typeorm';

export class HostStartFailures1796532175674 implements MigrationInterface {
  name = 'HostStartFailures1796532175674';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pod_lifecycle"."host_start_failures" ("host_id" text NOT NULL, "failures" jsonb NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_ab8acf1f2dc455a11c4426ad45b" PRIMARY KEY ("host_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "pod_lifecycle"."host_start_failures"`);
  }
}
