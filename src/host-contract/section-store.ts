/**
 * The host contract's `api.sectionStore` (1.5): how a host lets the plugin's commands change its section of the
 * host's config through the host's own mechanism (docs/host-contract.md).
 */
/** `api.sectionStore`: the plugin's section of the host's config, read and written by the host's own mechanism. */
export interface SectionStore {
  /** Where the section is kept, for messages, e.g. `~/.openclaw/openclaw.json (plugins.entries.inbound-webhooks.config)`. */
  readonly location: string;
  /** The section as written in the host's config (no defaults applied); {} when there is none. */
  read(): Record<string, unknown>;
  /** The config snapshot the plugin would be given (`api.config`) with `section` in place of its section: what a writer checks first. */
  snapshotWith(section: Record<string, unknown>): Record<string, unknown>;
  /** Replaces the section with `update(current)` (current: as written now), keeping every other key of the host's config. */
  write(update: (current: Record<string, unknown>) => Record<string, unknown>): Promise<void>;
  /** The host's commands a user runs next: make the gateway read the new section, run the mail watcher. */
  readonly commands: { restart: string; mailRun: string };
}
