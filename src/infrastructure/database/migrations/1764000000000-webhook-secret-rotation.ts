import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A rotated webhook secret keeps signing deliveries beside the new one for a while (Standard
 * Webhooks' several `v1,` signatures during rotation), so receivers can move to the new one without
 * refusing deliveries in between.
 */
export class WebhookSecretRotation1764000000000 implements MigrationInterface {
  name = 'WebhookSecretRotation1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // [{"secret": "whsec_...", "validUntil": ISO}], the latest replaced first
    await queryRunner.query(`ALTER TABLE api_keys ADD COLUMN previous_webhook_secrets jsonb NOT NULL DEFAULT '[]'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN previous_webhook_secrets`);
  }
}
