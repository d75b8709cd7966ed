/**
 * Two projects: `unit` (everything that mirrors src/: no build, no gateway process;
 * `npm run test:unit`) and `system` (the real gateway process and the built dist:
 * e2e, crash, fuzz and load suites). `npm test` runs both.
 * @type {import('jest').Config}
 */
const SYSTEM = "<rootDir>/test/(e2e|crash|fuzz|load)/";
const base = {
  testEnvironment: "node",
  transform: {
    "^.+\\.ts$": ["ts-jest", { isolatedModules: true, diagnostics: false }],
    // Sender libraries that ship only as ES modules (@octokit/webhooks signs the
    // GitHub test requests) are turned into CommonJS for jest's module system.
    "^.+/node_modules/@octokit/.+\\.js$": ["babel-jest", { babelrc: false, configFile: false, plugins: ["@babel/plugin-transform-modules-commonjs"] }],
  },
  transformIgnorePatterns: ["/node_modules/(?!@octokit/)"],
  // Its package exports name only the "import" condition, which jest's resolver does not use.
  moduleNameMapper: { "^@octokit/webhooks-methods$": "<rootDir>/node_modules/@octokit/webhooks-methods/dist-node/index.js" },
  modulePathIgnorePatterns: ["<rootDir>/dist/", "<rootDir>/.gateway/"],
};

module.exports = {
  // A global option: jest ignores it inside a project.
  testTimeout: 30000,
  projects: [
    {
      ...base,
      displayName: "unit",
      roots: ["<rootDir>/test", "<rootDir>/examples"],
      testMatch: ["**/*.test.ts"],
      testPathIgnorePatterns: ["/node_modules/", "/dist/", "/test/fixtures/", SYSTEM],
    },
    {
      ...base,
      displayName: "system",
      roots: ["<rootDir>/test"],
      testMatch: ["<rootDir>/test/(e2e|crash|fuzz|load)/**/*.test.ts"],
      testPathIgnorePatterns: ["/node_modules/", "/dist/", "/test/fixtures/"],
    },
  ],
};
