/**
 * The client's build-time configuration. The only module that reads `import.meta.env`;
 * Jest maps it to `test/config.ts`, since `import.meta` does not exist there.
 */
export interface AppConfig {
  /** The build version; persisted state written by another version is discarded. */
  buildVersion: string;
  /** Origin the HTTP API is called on; empty for the page's own origin. */
  apiOrigin: string;
}

export const config: AppConfig = {
  buildVersion: import.meta.env.VITE_BUILD_VERSION ?? 'dev',
  apiOrigin: '',
};
