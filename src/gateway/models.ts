/** `runtime.models` of the embedded gateway, from `agents.defaults.models`. */
import type { AllowedModel, HostRuntime } from "../host-contract/host-api";

export function createModelRegistry(models: readonly AllowedModel[]): HostRuntime["models"] {
  const list = models.map((m) => ({ ...m }));
  return {
    resolve: (refOrAlias) => list.find((m) => m.alias === refOrAlias)?.ref ?? refOrAlias,
    allowList: () => list.map((m) => ({ ...m })),
  };
}
