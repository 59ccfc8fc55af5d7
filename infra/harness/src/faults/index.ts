/** The fault suite: each scenario once, for `npm run chaos`, the tests and the bench. */
export * from './abuse';
export * from './chaos';
export * from './redis';
export * from './replica';
export * from './slow-reader';
export * from './storm';
export * from './verdict';
