import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookSecrets1795468977310 implements MigrationInterface {
  name = 'WebhookSecrets1795468977310';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "queue_broker"."webhook_secrets" ("endpoint_id" text NOT NULL, "secret_sealed" text NOT NULL, "previous_sealed" text, "rotated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_44bf990624480f985227893bf43" PRIMARY KEY ("endpoint_id"))`,
    );
    await queryRunner.query(`ALTER TABLE "queue_broker"."webhook_deliveries" ADD "endpoint_id" text`);
    // Deliveries still pending get signed once their endpoint has a secret.
    await queryRunner.query(
      `UPDATE "queue_broker"."webhook_deliveries" d SET "endpoint_id" = j."endpoint_id" FROM "queue_broker"."jobs" j WHERE j."id" = d."job_id" AND d."delivered_at" IS NULL AND d."gave_up_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "queue_broker"."webhook_deliveries" DROP COLUMN "endpoint_id"`);
    await queryRunner.query(`DROP TABLE "queue_broker"."webhook_secrets"`);
  }
}
