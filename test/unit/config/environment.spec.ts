import { loadAdminCliConfig } from '../../../src/config/environment';

describe('the process environment, read in src/config only', () => {
  it('the admin CLI loads the service configuration without an admin token of its own', () => {
    expect(() => loadAdminCliConfig({ PUBLIC_BASE_URL: 'http://backdrop.test', DATABASE_URL: 'postgres://db/x' })).not.toThrow();
    expect(() => loadAdminCliConfig({ PUBLIC_BASE_URL: 'http://backdrop.test', DATABASE_URL: 'postgres://db/x', ADMIN_TOKEN: '' })).not.toThrow(); // as .env files leave it
  });
});
