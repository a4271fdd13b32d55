import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Quotas1796519937873 implements MigrationInterface {
  name = 'Quotas1796519937873';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."preemptions" ("id" text NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL, "preemptor_account_id" text NOT NULL, "preemptor_workload_id" text NOT NULL, "victim_owner_id" text NOT NULL, "victim_cohort" text NOT NULL, "workload_id" text NOT NULL, "pod_ids" text array NOT NULL, "gpus" integer NOT NULL, "reason" text NOT NULL, CONSTRAINT "PK_ae927e5186e49bf5216d371e5ec" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "preemptions_owner_at_idx" ON "cluster_scheduler"."preemptions"  ("victim_owner_id", "at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "preemptions_cohort_at_idx" ON "cluster_scheduler"."preemptions"  ("victim_cohort", "at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."quota_samples" ("account_id" text NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL, "gpu_type_id" text NOT NULL, "data_center_id" text NOT NULL, "gpus" integer NOT NULL, "in_use" integer NOT NULL, "borrowed" integer NOT NULL, "lent" integer NOT NULL, CONSTRAINT "PK_5e8b538a339b5a46111902b84e4" PRIMARY KEY ("account_id", "at", "gpu_type_id", "data_center_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "cluster_scheduler"."quotas" ("account_id" text NOT NULL, "account_name" text, "cohort" text, "limits" jsonb NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_62219c068ccc33e61f5daa7e453" PRIMARY KEY ("account_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "quotas_cohort_idx" ON "cluster_scheduler"."quotas"  ("cohort") `);
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."reservations" ADD "priority" smallint NOT NULL DEFAULT '1'`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."reservations" ADD "interruptible" boolean NOT NULL DEFAULT false`,
    );
    await queryRunner.query(
      `CREATE INDEX "reservations_owner_type_idx" ON "cluster_scheduler"."reservations"  ("owner_id", "gpu_type_id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."reservations_owner_type_idx"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."reservations" DROP COLUMN "interruptible"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."reservations" DROP COLUMN "priority"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."quotas_cohort_idx"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."quotas"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."quota_samples"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."preemptions_cohort_at_idx"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."preemptions_owner_at_idx"`);
    await queryRunner.query(`DROP TABLE "cluster_scheduler"."preemptions"`);
  }
}
