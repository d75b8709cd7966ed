"use strict";
/**
 * Entry of the Alertmanager preset plugin. Everything it contributes is declared in
 * plugin.json (`contributes.presets`); the inbound-webhooks plugin reads it through
 * the host. Activation only says that the preset is available.
 */
exports.activate = function activate(api) {
  api.logger.info('alertmanager preset available; enable it with hooks.presets: ["alertmanager"]');
};

exports.deactivate = function deactivate() {};
