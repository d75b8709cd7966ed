/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test", "<rootDir>/examples"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { isolatedModules: true, diagnostics: false }],
  },
  testPathIgnorePatterns: ["/node_modules/", "/dist/", "/test/fixtures/"],
  modulePathIgnorePatterns: ["<rootDir>/dist/", "<rootDir>/.gateway/"],
  testTimeout: 30000,
};
