import type { MigrationInterface, QueryRunner } from 'typeorm';

export class LiveFleet1796531292762 implements MigrationInterface {
  name = 'LiveFleet1796531292762';

  /**
   * Hosts become live state (docs/adr/0039-live-fleet.md): the boolean `active` gives way to a scheduling state and
   * a health. Existing hosts came from the fleet file (source and scheduling_by `file`, dated now); one the file no
   * longer listed (active false) is GONE. The NOT NULL columns without a default get one only while filled in.
   */
  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD "scheduling_state" text NOT NULL DEFAULT 'READY'`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD "scheduling_by" text NOT NULL DEFAULT 'file'`,
    );
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" ADD "scheduling_reason" text`);
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD "scheduling_since" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD "healthy" boolean NOT NULL DEFAULT true`,
    );
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" ADD "health_code" text`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" ADD "health_reason" text`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" ADD "health_source" text`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" ADD "health_gpu_index" integer`);
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD "health_since" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD "drain_deadline" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD "drain_expired_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD "source" text NOT NULL DEFAULT 'file'`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD "registered_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()`,
    );
    await queryRunner.query(
      `UPDATE "cluster_scheduler"."hosts" SET "scheduling_state" = 'GONE', "scheduling_reason" = 'no longer in the fleet file' WHERE NOT "active"`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ALTER COLUMN "scheduling_since" DROP DEFAULT, ALTER COLUMN "source" DROP DEFAULT, ALTER COLUMN "registered_at" DROP DEFAULT`,
    );
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "active"`);
    await queryRunner.query(
      `CREATE INDEX "hosts_drain_due_idx" ON "cluster_scheduler"."hosts"  ("drain_deadline") WHERE "scheduling_state" = 'DRAINING' AND "drain_expired_at" IS NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD CONSTRAINT "hosts_health_code_ck" CHECK ("healthy" OR "health_code" IS NOT NULL)`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD CONSTRAINT "hosts_source_ck" CHECK ("source" IN ('file', 'api', 'kubernetes'))`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD CONSTRAINT "hosts_scheduling_by_ck" CHECK ("scheduling_by" IN ('operator', 'kubernetes', 'file'))`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD CONSTRAINT "hosts_scheduling_state_ck" CHECK ("scheduling_state" IN ('READY', 'CORDONED', 'DRAINING', 'GONE'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" ADD "active" boolean NOT NULL DEFAULT true`,
    );
    await queryRunner.query(
      `UPDATE "cluster_scheduler"."hosts" SET "active" = false WHERE "scheduling_state" = 'GONE'`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" DROP CONSTRAINT "hosts_scheduling_state_ck"`,
    );
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."hosts" DROP CONSTRAINT "hosts_scheduling_by_ck"`,
    );
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP CONSTRAINT "hosts_source_ck"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP CONSTRAINT "hosts_health_code_ck"`);
    await queryRunner.query(`DROP INDEX "cluster_scheduler"."hosts_drain_due_idx"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "registered_at"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "source"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "drain_expired_at"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "drain_deadline"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "health_since"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "health_gpu_index"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "health_source"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "health_reason"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "health_code"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "healthy"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "scheduling_since"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "scheduling_reason"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "scheduling_by"`);
    await queryRunner.query(`ALTER TABLE "cluster_scheduler"."hosts" DROP COLUMN "scheduling_state"`);
  }
}
