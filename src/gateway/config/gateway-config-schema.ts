/**
 * JSON Schema (ajv) of the keys the gateway itself owns: `gateway.*`, `plugins.*`,
 * `agents.runner`, `agents.defaults.{heartbeat,model,models,timeoutSeconds}` and
 * `session.main.{lastRoute,maxPending}`, `session.hooks.retentionDays`. Other top-level sections belong to plugins and are
 * validated against their manifests' `configSchema`. Rules in words travel as
 * `x-rule` annotations, as in a plugin's schema (see ajv-errors.ts).
 */
import { RULE_ANNOTATION, RULES } from "../../host-contract/config-rules";

/** A secret: a non-empty string, or exactly one of `{ "env": NAME }` and `{ "file": path }`. */
const secretRefJsonSchema = {
  if: { type: "string" },
  then: { type: "string", minLength: 1 },
  else: {
    type: "object",
    additionalProperties: false,
    properties: { env: { type: "string", minLength: 1 }, file: { type: "string", minLength: 1 } },
    allOf: [
      { anyOf: [{ required: ["env"] }, { required: ["file"] }], [RULE_ANNOTATION]: RULES.someOf(["env", "file"]) },
      { not: { type: "object", required: ["env", "file"] }, [RULE_ANNOTATION]: RULES.onlyOneOf(["env", "file"]) },
    ],
    [RULE_ANNOTATION]: { type: 'must be a string, { "env": "NAME" } or { "file": "path" }' },
  },
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
        logFormat: { enum: ["pretty", "json"] },
        trustProxy: { type: "array", items: { type: "string", minLength: 1 } },
        durability: { enum: ["process", "os"] },
        role: { enum: ["consumer", "receiver"] },
        journal: {
          type: "object",
          additionalProperties: false,
          properties: { maxBytes: { type: "integer", minimum: 65536 } },
        },
        auth: {
          type: "object",
          additionalProperties: false,
          properties: { token: secretRefJsonSchema },
        },
        ui: {
          type: "object",
          additionalProperties: false,
          properties: { allowedHosts: { type: "array", items: { type: "string", minLength: 1 } } },
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
        hooks: {
          type: "object",
          additionalProperties: false,
          properties: { retentionDays: { type: "integer", minimum: 1, maximum: 3650 } },
        },
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
