import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The pods on draining hosts as the autoscaler heard them (`endpoint.cmd.drain-workers`; docs/adr/0039-live-fleet.md):
 * the workers among them are replaced elsewhere, then terminated.
 */
export class DrainingPods1796531922580 implements MigrationInterface {
  name = 'DrainingPods1796531922580';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "endpoint_autoscaler"."draining_pods" ("pod_id" text NOT NULL, "host_id" text NOT NULL, "since" TIMESTAMP WITH TIME ZONE NOT NULL, "deadline" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_d523790e182b1c9ec1385a8cdd2" PRIMARY KEY ("pod_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "draining_pods_host_idx" ON "endpoint_autoscaler"."draining_pods"  ("host_id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "endpoint_autoscaler"."draining_pods_host_idx"`);
    await queryRunner.query(`DROP TABLE "endpoint_autoscaler"."draining_pods"`);
  }
}
