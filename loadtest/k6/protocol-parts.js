// What the k6 scripts use of @taco/protocol, which `npm run build` (build:k6) bundles into
// k6/protocol.js (git-ignored). Only the modules these come from end up in it (the package is
// marked free of side effects): the others make a TextEncoder and Unicode property patterns at
// load time, which k6 lacks.
export { ApiPath, CloseCode, ErrorCode, FrameType } from '@taco/protocol';
export { decideReconnect, RATE_LIMITS } from '@taco/protocol';
export { HISTORY_COUNT_MAX, HISTORY_REQUEST_COUNT } from '@taco/protocol';
