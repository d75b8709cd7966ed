/**
 * The run queue's pause while the host is going away: a turn answered `unavailable` (host contract;
 * OpenClaw drains for a stop or a restart, or reloads the plugin) starts a pause of `ms` during which
 * the queue starts nothing; then `resume` is called (the queue tries again; a host still draining
 * refuses again and pauses it again). Not a tight loop, and nothing is recorded failed.
 */
export interface HostPause {
  /** True while paused. */
  readonly active: boolean;
  /** Starts a pause unless one is on. */
  start(): void;
  /** Ends the pause without calling `resume` (the queue stops). */
  cancel(): void;
}

export function createHostPause(ms: number, resume: () => void): HostPause {
  let timer: NodeJS.Timeout | undefined;
  return {
    get active() {
      return timer !== undefined;
    },
    start() {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        resume();
      }, ms);
      timer.unref?.();
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
