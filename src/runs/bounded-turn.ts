/**
 * One agent turn bounded by a timeout and an optional cancellation signal. The
 * runner's own promise is raced against both, so a runner that ignores its
 * abort signal cannot hold a run past its timeout.
 */
import type { RunTurnResult } from "../host-contract/host-api";

export type TurnEnd =
  { kind: "result"; result: RunTurnResult } | { kind: "threw"; error: unknown } | { kind: "timed_out" } | { kind: "cancelled"; reason: string };

/** Abort reason given to the runner when the timeout fires. */
export class RunTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the run did not finish within ${timeoutMs / 1000} s`);
    this.name = "TimeoutError";
  }
}

function cancelReason(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (typeof reason === "string") return reason;
  return "cancelled";
}

/**
 * Calls `turn(signal)` and settles with whichever comes first: the runner's
 * result or error, the timeout (the signal is aborted with a RunTimeoutError), or
 * `cancel` aborting (the signal is aborted with cancel's reason).
 */
export function boundedTurn(turn: (signal: AbortSignal) => Promise<RunTurnResult>, opts: { timeoutMs: number; cancel?: AbortSignal }): Promise<TurnEnd> {
  const controller = new AbortController();
  return new Promise<TurnEnd>((resolve) => {
    let settled = false;
    const finish = (end: TurnEnd): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.cancel?.removeEventListener("abort", onCancel);
      resolve(end);
    };
    const onCancel = (): void => {
      const reason = opts.cancel?.reason;
      controller.abort(reason);
      finish({ kind: "cancelled", reason: cancelReason(reason) });
    };
    const timer = setTimeout(() => {
      controller.abort(new RunTimeoutError(opts.timeoutMs));
      finish({ kind: "timed_out" });
    }, opts.timeoutMs);

    if (opts.cancel?.aborted) return onCancel();
    opts.cancel?.addEventListener("abort", onCancel, { once: true });

    let pending: Promise<RunTurnResult>;
    try {
      pending = Promise.resolve(turn(controller.signal));
    } catch (error) {
      return finish({ kind: "threw", error });
    }
    pending.then(
      (result) => finish({ kind: "result", result }),
      (error: unknown) => finish({ kind: "threw", error }),
    );
  });
}
