/** What the action validators read besides the raw fields. */
import type { HooksConfig } from "../config/types";
import type { HostRuntime } from "../host-contract/host-api";

export interface ValidationContext {
  /** Channels (`channels.list()`) and models (`models.allowList()`, `models.resolve()`) are read at validation time. */
  runtime: HostRuntime;
  config: HooksConfig;
  /** Generator of the uuid in a default session key; default `crypto.randomUUID`. */
  idGen?: () => string;
}
