"use strict";
/**
 * The plugin's entry inside OpenClaw (package.json#openclaw.extensions). It registers nothing: the preset is
 * declared in plugin.json (`contributes.presets`), which the inbound-webhooks plugin reads from where OpenClaw
 * installed this package, without running it. OpenClaw needs an entry to install a plugin, and does not load
 * this one at startup (openclaw.plugin.json: `activation.onStartup: false`).
 */
const plugin = {
  id: "alertmanager-preset",
  name: "Alertmanager preset",
  description: "Prometheus Alertmanager notifications for the inbound-webhooks plugin (preset alertmanager).",
  register() {},
};
module.exports = plugin;
module.exports.default = plugin;
