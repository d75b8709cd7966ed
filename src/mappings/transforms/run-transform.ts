/**
 * Calls a transform with a time bound and checks its result. Failures are
 * returned (never thrown) with the cause, for the engine to log and turn into
 * `transform_failed`.
 */
import type { TransformContext, TransformFn, TransformResult } from "../define-transform";
import { validateTransformResult } from "./validate-transform-result";

export type TransformRun = { ok: true; value: TransformResult } | { ok: false; reason: "load_failed" | "threw" | "timeout" | "invalid_result"; cause: string };

/**
 * `<name>: <message>` of a thrown value, for the log. Never throws itself: reading a thrown
 * object runs the transform's code (a getter, a Proxy trap) and its parts may have no text form.
 */
function describeThrown(e: unknown): string {
  try {
    if (e instanceof Error || (typeof e === "object" && e !== null && "message" in e)) {
      const err = e as { name?: unknown; message?: unknown };
      return `${String(err.name ?? "Error")}: ${String(err.message)}`;
    }
    return `non-error value thrown: ${typeof e}`;
  } catch {
    return `a thrown value that cannot be described (${typeof e})`;
  }
}

/**
 * The time the transform calls of one request share (`hooks.transformTimeoutMs`, SPEC §6.3): a
 * `forEach` calls its transform once per item, and every call draws on this one budget, so a
 * fan-out holds its request no longer than a single call may.
 *
 * @example const budget = transformBudget(5000); // once per request, then runTransform(load, ctx, budget) per call
 */
export interface TransformBudget {
  /** `hooks.transformTimeoutMs`, as the cause names it. */
  limitMs: number;
  /** When the budget is spent, on the `performance.now()` clock. */
  deadline: number;
}

/** The budget of one request, starting now. */
export function transformBudget(limitMs: number): TransformBudget {
  return { limitMs, deadline: performance.now() + limitMs };
}

/**
 * Loads (via `load`) and runs the transform within what is left of the request's `budget`
 * (loading included); a call when nothing is left fails at once, without running. A transform
 * that blocks the event loop synchronously cannot be interrupted (the next call then finds the
 * budget spent).
 */
export async function runTransform(load: () => Promise<TransformFn>, ctx: TransformContext, budget: TransformBudget): Promise<TransformRun> {
  const spent: TransformRun = {
    ok: false,
    reason: "timeout",
    cause: `the transform did not finish within ${budget.limitMs} ms (hooks.transformTimeoutMs, shared by every transform call of the request)`,
  };
  const remainingMs = Math.ceil(budget.deadline - performance.now());
  if (remainingMs <= 0) return spent;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<TransformRun>((resolve) => {
    timer = setTimeout(() => resolve(spent), remainingMs);
  });
  const work = (async (): Promise<TransformRun> => {
    let fn: TransformFn;
    try {
      fn = await load();
    } catch (e) {
      return { ok: false, reason: "load_failed", cause: describeThrown(e) };
    }
    let value: unknown;
    try {
      value = await fn(ctx);
    } catch (e) {
      return { ok: false, reason: "threw", cause: describeThrown(e) };
    }
    let check: ReturnType<typeof validateTransformResult>;
    try {
      check = validateTransformResult(value);
    } catch (e) {
      // A getter or a Proxy trap of the result runs the transform's code while it is read.
      return { ok: false, reason: "invalid_result", cause: `reading the result threw ${describeThrown(e)}` };
    }
    return check.ok ? { ok: true, value: check.value } : { ok: false, reason: "invalid_result", cause: check.problem };
  })();
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
