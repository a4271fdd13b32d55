import type { MigrationInterface, QueryRunner } from 'typeorm';

export class MetricsRowVersion1795524209378 implements MigrationInterface {
  name = 'MetricsRowVersion1795524209378';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "queue_broker"."endpoint_metric_rollups" ADD "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "queue_broker"."endpoint_metric_rollups" DROP COLUMN "updated_at"`);
  }
}
