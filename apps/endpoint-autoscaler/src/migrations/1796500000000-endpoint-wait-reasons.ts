import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Why each endpoint's jobs wait, as the control loop last judged it (docs/adr/0039-live-fleet.md): one row per
 * endpoint while something holds its jobs.
 */
export class EndpointWaitReasons1796500000000 implements MigrationInterface {
  name = 'EndpointWaitReasons1796500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "endpoint_autoscaler"."endpoint_wait_reasons" ("endpoint_id" text NOT NULL, "code" text NOT NULL, "message" text NOT NULL, "since" TIMESTAMP WITH TIME ZONE NOT NULL, "details" jsonb, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_cc670f6347a6814143bd72a9c1e" PRIMARY KEY ("endpoint_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "endpoint_autoscaler"."endpoint_wait_reasons"`);
  }
}
