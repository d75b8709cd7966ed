/**
 * Delivery channels of the embedded gateway: the seven built-in outbox channels
 * (a delivery is recorded in the journal; nothing goes over the network) plus
 * channels registered by channel plugins (`api.registerChannel`). Every
 * successful delivery is journaled and becomes the main session's last route.
 */
import type { DeliverRequest, HostLogger, LastRoute } from "../../host-contract/host-api";
import type { Journal } from "../journal/journal";
import type { SessionStore } from "../sessions/session-store";

export const BUILTIN_CHANNELS = ["phone_chat", "bot_chat", "community_chat", "workspace_chat", "privacy_chat", "device_chat", "enterprise_chat"] as const;

export type DeliverFn = (req: DeliverRequest) => void | Promise<void>;

export interface ChannelRegistry {
  list(): string[];
  has(id: string): boolean;
  /** Adds a plugin channel; throws when the id is taken or invalid. */
  register(id: string, deliver: DeliverFn, pluginId: string): void;
  resolveLast(sessionKey: string): LastRoute | undefined;
  deliver(req: DeliverRequest): Promise<void>;
}

export interface ChannelRegistryOptions {
  journal: Journal;
  sessions: SessionStore;
  mainKey: string;
  /** `session.main.lastRoute` from config: the main last route until a delivery happens. */
  seedLastRoute?: LastRoute;
  logger: HostLogger;
}

export function createChannelRegistry(opts: ChannelRegistryOptions): ChannelRegistry {
  const plugins = new Map<string, { deliver: DeliverFn; pluginId: string }>();
  const builtin = new Set<string>(BUILTIN_CHANNELS);
  const list = () => [...BUILTIN_CHANNELS, ...plugins.keys()];

  return {
    list,
    has: (id) => builtin.has(id) || plugins.has(id),
    register(id, deliver, pluginId) {
      if (!/^[a-z][a-z0-9_]{0,63}$/.test(id)) throw new Error(`channel id "${id}" must be lowercase letters, digits and underscores`);
      if (builtin.has(id)) throw new Error(`channel "${id}" is built in and cannot be registered by plugin ${pluginId}`);
      const taken = plugins.get(id);
      if (taken) throw new Error(`channel "${id}" is already registered by plugin ${taken.pluginId}`);
      plugins.set(id, { deliver, pluginId });
    },
    resolveLast(sessionKey) {
      const stored = opts.sessions.has(sessionKey) ? opts.sessions.get(sessionKey).lastRoute : undefined;
      if (stored) return { ...stored };
      return sessionKey === opts.mainKey && opts.seedLastRoute ? { ...opts.seedLastRoute } : undefined;
    },
    async deliver(req) {
      const plugin = plugins.get(req.channel);
      if (!plugin && !builtin.has(req.channel)) {
        throw new Error(`unknown channel "${req.channel}"; available: ${list().join(", ")}`);
      }
      if (typeof req.text !== "string") throw new Error("delivery text must be a string");
      if (plugin) await plugin.deliver({ channel: req.channel, to: req.to, text: req.text });
      opts.journal.append({
        type: "delivery",
        channel: req.channel,
        ...(req.to !== undefined ? { to: req.to } : {}),
        text: req.text,
        ...(plugin ? { via: plugin.pluginId } : {}),
      });
      opts.sessions.setLastRoute(opts.mainKey, { channel: req.channel, ...(req.to !== undefined ? { to: req.to } : {}) });
      opts.logger.info("delivered", { channel: req.channel, chars: req.text.length });
    },
  };
}
