import type { AppConfig } from '../src/app/config';

/** Stands in for `src/app/config.ts` under Jest, where `import.meta.env` does not exist. */
export const config: AppConfig = {
  buildVersion: 'test-1',
  apiOrigin: 'http://localhost',
};
