/**
 * JSON Schema (ajv) of the keys the gateway itself owns: `gateway.*`, `plugins.*`,
 * `agents.runner`, `agents.defaults.{heartbeat,model,models,timeoutSeconds}` and
 * `session.main.{lastRoute,maxPending}`. Other top-level sections belong to plugins and are
 * validated against their manifests' `configSchema`.
 */
const secretRef = {
  anyOf: [
    { type: "string", minLength: 1 },
    { type: "object", properties: { env: { type: "string", minLength: 1 } }, required: ["env"], additionalProperties: false },
    { type: "object", properties: { file: { type: "string", minLength: 1 } }, required: ["file"], additionalProperties: false },
  ],
};

export const GATEWAY_CONFIG_SCHEMA = {
  type: "object",
  properties: {
    gateway: {
      type: "object",
      additionalProperties: false,
      properties: {
        bind: { type: "string", minLength: 1 },
        port: { type: "integer", minimum: 0, maximum: 65535 },
        stateDir: { type: "string", minLength: 1 },
        logLevel: { enum: ["debug", "info", "warn", "error"] },
        auth: {
          type: "object",
          additionalProperties: false,
          properties: { token: secretRef },
        },
      },
    },
    plugins: {
      type: "object",
      additionalProperties: false,
      properties: {
        paths: { type: "array", items: { type: "string", minLength: 1 } },
      },
    },
    agents: {
      type: "object",
      properties: {
        runner: {
          type: "object",
          required: ["kind"],
          properties: {
            kind: { enum: ["echo", "openai"] },
            delayMs: { type: "integer", minimum: 0 },
            baseUrl: { type: "string", minLength: 1 },
            apiKeyEnv: { type: "string", minLength: 1 },
            model: { type: "string", minLength: 1 },
          },
          additionalProperties: false,
        },
        defaults: {
          type: "object",
          properties: {
            model: { type: "string", minLength: 1 },
            timeoutSeconds: { type: "number", exclusiveMinimum: 0 },
            heartbeat: {
              type: "object",
              additionalProperties: false,
              properties: { every: { type: ["string", "number"] }, maxPromptChars: { type: "integer", minimum: 1000 } },
            },
            models: {
              type: "object",
              additionalProperties: {
                type: "object",
                properties: { alias: { type: "string", minLength: 1 } },
              },
            },
          },
        },
      },
    },
    session: {
      type: "object",
      properties: {
        main: {
          type: "object",
          additionalProperties: false,
          properties: {
            maxPending: { type: "integer", minimum: 1 },
            lastRoute: {
              type: "object",
              required: ["channel"],
              additionalProperties: false,
              properties: { channel: { type: "string", minLength: 1 }, to: { type: "string", minLength: 1 } },
            },
          },
        },
      },
    },
  },
} as const;
