export * from './objects';
export * from './problems';
export * from './render';
export * from './fixtures';
