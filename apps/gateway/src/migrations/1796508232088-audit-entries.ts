import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AuditEntries1796508232088 implements MigrationInterface {
  name = 'AuditEntries1796508232088';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."audit_entries" ("id" text NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL, "account_id" text NOT NULL, "actor_user_id" text NOT NULL, "actor_key_id" text, "actor_kind" text NOT NULL, "actor_reason" text, "action" text NOT NULL, "resource_type" text NOT NULL, "resource_id" text, "error_code" text, "error_message" text, "details" jsonb, "command_id" text, CONSTRAINT "PK_6b1623bcad4d04530b76548d619" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_entries_at_idx" ON "gateway"."audit_entries"  ("at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_entries_actor_idx" ON "gateway"."audit_entries"  ("account_id", "actor_user_id", "at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_entries_resource_idx" ON "gateway"."audit_entries"  ("account_id", "resource_id", "at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_entries_action_idx" ON "gateway"."audit_entries"  ("account_id", "action", "at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_entries_account_idx" ON "gateway"."audit_entries"  ("account_id", "at", "id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "gateway"."audit_entries_account_idx"`);
    await queryRunner.query(`DROP INDEX "gateway"."audit_entries_action_idx"`);
    await queryRunner.query(`DROP INDEX "gateway"."audit_entries_resource_idx"`);
    await queryRunner.query(`DROP INDEX "gateway"."audit_entries_actor_idx"`);
    await queryRunner.query(`DROP INDEX "gateway"."audit_entries_at_idx"`);
    await queryRunner.query(`DROP TABLE "gateway"."audit_entries"`);
  }
}
