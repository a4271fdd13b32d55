import type { MigrationInterface, QueryRunner } from 'typeorm';

export class VolumeUsage1795483035329 implements MigrationInterface {
  name = 'VolumeUsage1795483035329';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."volume_usage" ("volume_id" text NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "ended_at" TIMESTAMP WITH TIME ZONE, "owner_id" text NOT NULL, "size_gb" integer NOT NULL, "rate_per_hr" numeric(16,8) NOT NULL, CONSTRAINT "PK_bd5f5271cffc5e215b06e06253b" PRIMARY KEY ("volume_id", "started_at"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "volume_usage_owner_idx" ON "cluster_scheduler"."volume_usage"  ("owner_id", "started_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."volume_usage_owner_idx"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."volume_usage"`);
  }
}
