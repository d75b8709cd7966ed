"use strict";
/**
 * Example channel plugin for the embedded gateway (host API ≥ 1.1).
 *
 * Registers the `workspace_chat_plugin` channel. A real plugin would post to a
 * workspace chat API here; this one appends each message as one JSON line to
 * `<its state dir>/outbox.jsonl`, so you can see what was delivered.
 *
 * Config (optional): { "workspaceChat": { "defaultChannelId": "C123" } }
 */
const fs = require("node:fs");
const path = require("node:path");

const CHANNEL_ID = "workspace_chat_plugin";

exports.activate = function activate(api) {
  if (typeof api.registerChannel !== "function") {
    throw new Error("this host does not support registerChannel (host API 1.1 needed)");
  }
  const section = api.config.workspaceChat || {};
  const outbox = path.join(api.stateDir, "outbox.jsonl");

  api.registerChannel({
    id: CHANNEL_ID,
    deliver({ to, text }) {
      const recipient = to || section.defaultChannelId;
      if (!recipient) throw new Error(`${CHANNEL_ID}: no recipient (give "to" or set workspaceChat.defaultChannelId)`);
      fs.appendFileSync(outbox, `${JSON.stringify({ ts: new Date().toISOString(), to: recipient, text })}\n`);
      api.logger.info("message posted", { channel: CHANNEL_ID, chars: text.length });
    },
  });
};

exports.deactivate = function deactivate() {};
