import type { AppConfig } from '../src/common/config';

/** Stands in for `src/common/config.ts` under Jest, where `import.meta.env` does not exist. */
export const config: AppConfig = {
  buildVersion: 'test-1',
  apiOrigin: 'http://localhost',
};
