/** The reference Node chat client: raw frames, HTTP calls, and the member with recovery rules. */
export * from './chat-member';
export * from './http';
export * from './raw-client';
