/**
 * The layers of src/ (docs/architecture.md). Imports point down only:
 *   host-contract → core → domain (safety, config, actions, mappings, runs) →
 *   adapters (logging, store, intake, mail, cli, inspector) → plugin (composition root).
 * The embedded gateway knows the plugin only through host-contract/ and the
 * plugin's public entry (plugin/index.ts); so does each host adapter of
 * src/hosts/ (e.g. hosts/openclaw/, the only code that knows OpenClaw), and
 * nothing of the plugin imports a host adapter. `npm run lint` fails on any violation,
 * naming the rule.
 */
const DOMAIN = "^src/(safety|config|actions|mappings|runs)/";
const ADAPTERS = "^src/(logging|store|intake|mail|cli|inspector)/";

/** Domain folders in their order: each may import only the ones before it. */
const domainOrder = ["safety", "config", "actions", "mappings", "runs"];
const domainRules = domainOrder.map((name, i) => ({
  name: `domain-order-${name}`,
  comment: `src/${name}/ may import only the domain folders below it (${domainOrder.slice(0, i).join(", ") || "none"}).`,
  severity: "error",
  from: { path: `^src/${name}/` },
  to: { path: `^src/(${domainOrder.slice(i + 1).join("|") || "$^"})/` },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import cycle between files of src/.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "no-folder-cycle",
      comment: "No import cycle between folders of src/.",
      severity: "error",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "host-contract-imports-nothing",
      comment: "src/host-contract/ is the bottom layer: it imports nothing else of the project.",
      severity: "error",
      from: { path: "^src/host-contract/" },
      to: { path: "^src/", pathNot: "^src/host-contract/" },
    },
    {
      name: "core-imports-only-host-contract",
      comment: "src/core/ (the vocabulary) imports only src/host-contract/.",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^src/", pathNot: "^src/(core|host-contract)/" },
    },
    {
      name: "domain-never-imports-adapters",
      comment: "Domain folders import only core/, host-contract/ and each other downward: never an adapter, the plugin or the gateway.",
      severity: "error",
      from: { path: DOMAIN },
      to: { path: "^src/(logging|store|intake|mail|cli|inspector|plugin|gateway)/" },
    },
    ...domainRules,
    {
      name: "adapters-never-import-plugin-or-gateway",
      comment: "Adapters (logging, store, intake, mail, cli, inspector) never import the composition root or the gateway.",
      severity: "error",
      from: { path: ADAPTERS },
      to: { path: "^src/(plugin|gateway)/" },
    },
    {
      name: "plugin-never-imports-gateway",
      comment: "The plugin never imports the embedded gateway.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/gateway/" },
      to: { path: "^src/gateway/" },
    },
    {
      name: "core-never-imports-host-adapters",
      comment: "The plugin (and the embedded gateway) import nothing of a host adapter (src/hosts/): the plugin core stays host-neutral.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/hosts/" },
      to: { path: "^src/hosts/" },
    },
    {
      name: "host-adapters-know-only-host-contract-and-entry",
      comment:
        "A host adapter (src/hosts/<host>/) builds the host contract from its host's API: it imports src/host-contract/ and the plugin's public entry (src/plugin/index.ts), and — for generating its manifest at build time — src/config/json-schema/ and its config-snapshot. Nothing else of the plugin, never another host adapter.",
      severity: "error",
      from: { path: "^src/hosts/([^/]+)/" },
      to: { path: "^src/", pathNot: "^src/(host-contract|config/json-schema|hosts/$1)/|^src/plugin/index\\.ts$" },
    },
    {
      name: "gateway-knows-only-host-contract-and-entry",
      comment: "The embedded gateway imports only src/host-contract/ and the plugin's public entry (src/plugin/index.ts).",
      severity: "error",
      from: { path: "^src/gateway/" },
      to: { path: "^src/", pathNot: "^src/(gateway|host-contract)/|^src/plugin/index\\.ts$" },
    },
    {
      name: "intake-knows-no-express",
      comment:
        'The accept core (src/intake/: admission, credentials, body, mapping, idempotency, validation, dispatch, replay, dry run) reaches no Express, directly or through another module: a host\'s adapter hands it node:http objects. See docs/architecture.md "Request lifecycle".',
      severity: "error",
      from: { path: "^src/intake/" },
      to: { path: "node_modules/(express|express-rate-limit|@types/express|@types/express-serve-static-core)/" },
    },
    {
      name: "intake-speaks-node-http-only-in-its-io-port",
      comment:
        "Only the accept core's I/O port (src/intake/io/: the node-level handler, the body reader, the answer writer) imports node:http (or https, http2, net); every stage reads the HookRequest it built.",
      severity: "error",
      from: { path: "^src/intake/", pathNot: "^src/intake/io/" },
      to: { dependencyTypes: ["core"], path: "^(node:)?(http|https|http2|net)$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
