/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The version of this build; persisted state from another version is discarded. */
  readonly VITE_BUILD_VERSION?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
