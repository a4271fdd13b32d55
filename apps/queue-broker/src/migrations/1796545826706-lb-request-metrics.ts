import type { MigrationInterface, QueryRunner } from 'typeorm';

export class LbRequestMetrics1796545826706 implements MigrationInterface {
  name = 'LbRequestMetrics1796545826706';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "lb_2xx" integer NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "lb_4xx" integer NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "lb_5xx" integer NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "lb_proxy_errors" integer NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "lb_latency_hist" integer array NOT NULL DEFAULT '{}'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "lb_latency_hist"`,
    );
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "lb_proxy_errors"`,
    );
    await queryRunner.query(`ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "lb_5xx"`);
    await queryRunner.query(`ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "lb_4xx"`);
    await queryRunner.query(`ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "lb_2xx"`);
  }
}
