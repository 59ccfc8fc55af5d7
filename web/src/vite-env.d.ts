/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The version of this build; persisted state from another version is discarded. */
  readonly VITE_BUILD_VERSION?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}

/** `protocol/src/e2e.ts` as a module of its own (see features/e2e/e2eCrypto.ts). */
declare module '*/protocol/src/e2e.ts?lazy' {
  export { newRoomKey, roomCipher } from '@taco/protocol';
}
