import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SealedSecretEnv1795469196236 implements MigrationInterface {
  name = 'SealedSecretEnv1795469196236';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "pod_lifecycle"."pods" ADD "secret_env" jsonb NOT NULL DEFAULT '{}'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pod_lifecycle"."pods" DROP COLUMN "secret_env"`);
  }
}
