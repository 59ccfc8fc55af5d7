/** @type {import('jest').Config} */
module.exports = {
  projects: [
    '<rootDir>/protocol',
    '<rootDir>/api',
    '<rootDir>/web',
    '<rootDir>/web/e2e',
    '<rootDir>/infra',
    '<rootDir>/loadtest',
  ],
};
