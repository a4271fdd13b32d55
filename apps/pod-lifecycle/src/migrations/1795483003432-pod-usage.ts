import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PodUsage1795483003432 implements MigrationInterface {
  name = 'PodUsage1795483003432';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pod_lifecycle"."pod_usage" ("pod_id" text NOT NULL, "kind" text NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "ended_at" TIMESTAMP WITH TIME ZONE, "owner_id" text NOT NULL, "cluster_id" text, "endpoint_id" text, "gpu_type_id" text, "units" integer NOT NULL, "rate_per_hr" numeric(16,8) NOT NULL, CONSTRAINT "PK_a22dd36295405e324b9c326fe9b" PRIMARY KEY ("pod_id", "kind", "started_at"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "pod_usage_owner_idx" ON "pod_lifecycle"."pod_usage"  ("owner_id", "started_at") `,
    );
    // Defaults stay: pods created before prices existed accrue at 0, and so do rows a previous release still
    // writes during a rolling upgrade (it does not know the columns); new pods always get their placement's rates.
    await queryRunner.query(
      `ALTER TABLE "pod_lifecycle"."pods" ADD "compute_per_hr" numeric(14,6) NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `ALTER TABLE "pod_lifecycle"."pods" ADD "container_disk_per_gb_hr" numeric(14,8) NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" ADD "endpoint_id" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" DROP COLUMN "endpoint_id"`);
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" DROP COLUMN "container_disk_per_gb_hr"`);
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" DROP COLUMN "compute_per_hr"`);
    await queryRunner.query(`DROP INDEX "pod_lifecycle"."pod_usage_owner_idx"`);
    await queryRunner.query(`DROP TABLE "pod_lifecycle"."pod_usage"`);
  }
}
