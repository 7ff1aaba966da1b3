import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every API process caches API keys; a key disabled, deleted, or given a new hash or webhook secret,
 * by whatever means, is announced on the channel `backdrop_api_key_changes` (payload: the key's hash)
 * so each cache drops it at once.
 */
export class ApiKeyChangeNotifications1763920000000 implements MigrationInterface {
  name = 'ApiKeyChangeNotifications1763920000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION notify_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('backdrop_api_key_changes', OLD.key_hash);
        IF TG_OP = 'UPDATE' AND NEW.key_hash IS DISTINCT FROM OLD.key_hash THEN
          PERFORM pg_notify('backdrop_api_key_changes', NEW.key_hash);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER api_key_changed AFTER UPDATE ON api_keys FOR EACH ROW
      WHEN (OLD.enabled IS DISTINCT FROM NEW.enabled OR OLD.key_hash IS DISTINCT FROM NEW.key_hash OR OLD.webhook_secret IS DISTINCT FROM NEW.webhook_secret OR OLD.client_id IS DISTINCT FROM NEW.client_id)
      EXECUTE FUNCTION notify_api_key_change()`);
    await queryRunner.query(`CREATE TRIGGER api_key_deleted AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_api_key_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER api_key_deleted ON api_keys`);
    await queryRunner.query(`DROP TRIGGER api_key_changed ON api_keys`);
    await queryRunner.query(`DROP FUNCTION notify_api_key_change()`);
  }
}
