import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkerOwner1796508839580 implements MigrationInterface {
  name = 'WorkerOwner1796508839580';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "queue_broker"."workers" ADD "owner_id" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "queue_broker"."workers" DROP COLUMN "owner_id"`);
  }
}
