import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox's payload is `json` (the text as written, checked) rather than `jsonb` (taken apart into a binary
 * form): the relay only ever reads it back whole, and a large event (a 250-pod cluster's) cost twice as long to
 * insert as `jsonb`. Rows unpublished at the upgrade keep their payloads (converted in place).
 */
export class OutboxJsonPayload1795927928310 implements MigrationInterface {
  name = 'OutboxJsonPayload1795927928310';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."outbox" ALTER COLUMN "payload" TYPE json USING "payload"::json`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "cluster_scheduler"."outbox" ALTER COLUMN "payload" TYPE jsonb USING "payload"::jsonb`,
    );
  }
}
