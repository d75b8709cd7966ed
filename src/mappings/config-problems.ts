/**
 * Collects the ConfigErrors of the steps that compile mappings at activation, so
 * one start reports every bad template, forEach, response or transform at once
 * (one `<key> <rule>` line each) instead of the first one only.
 *
 * @example
 *   const problems = collectConfigProblems();
 *   const a = problems.attempt(() => compileTemplate(x)); // undefined when it threw a ConfigError
 *   problems.throwIfAny(); // one ConfigError, a line per problem
 */
import { ConfigError } from "../core/errors";

export interface ConfigProblemCollector {
  /** The step's value, or undefined when it threw a ConfigError (kept for `throwIfAny`). Other errors propagate. */
  attempt<T>(step: () => T): T | undefined;
  /** Throws one ConfigError listing every collected problem, a line each; returns when there is none. */
  throwIfAny(): void;
}

export function collectConfigProblems(): ConfigProblemCollector {
  const lines: string[] = [];
  return {
    attempt(step) {
      try {
        return step();
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        lines.push(...e.message.split("\n").filter((l) => l.trim() !== ""));
        return undefined;
      }
    },
    throwIfAny() {
      if (lines.length > 0) throw new ConfigError(lines.join("\n"));
    },
  };
}
