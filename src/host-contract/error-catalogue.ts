/**
 * The one factory behind every catalogue of coded errors (the plugin's HookError
 * and MailError, the gateway's CLI, config and protocol errors), in the manner of
 * `@fastify/error`: each entry declares its message template beside its code, and
 * call sites pass only the template's arguments (plus options such as a `cause`).
 *
 * Placeholders are `{name}` (a JavaScript identifier in braces); a template holds
 * no other braces. Arguments are filled in one pass over the template, so an
 * argument that itself contains `{name}` is copied as it is, and the work is linear
 * in the size of the template and the arguments.
 *
 * This file has no codes of its own and imports nothing of the project, so the
 * plugin and the gateway can both build on it.
 */

/** The names of the `{placeholder}`s in a template (a string literal type). */
export type PlaceholderNames<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | PlaceholderNames<Rest> : never;

/** A template's arguments: one property per placeholder. */
export type TemplateArgs<T extends string> = { readonly [K in PlaceholderNames<T>]: string | number };

/** What every catalogue entry has; catalogues add their own fields (code, status, …). */
export interface CatalogueEntry {
  readonly message: string;
}

/**
 * The function an entry becomes: the template's arguments first (left out when the
 * template has no placeholder), then the catalogue's options.
 */
export type ErrorFactory<T extends string, Options, E> = [PlaceholderNames<T>] extends [never]
  ? (options?: Options) => E
  : (args: TemplateArgs<T>, options?: Options) => E;

/** One factory per entry of catalogue `C`. */
export type ErrorFactories<C extends Record<string, CatalogueEntry>, Options, E> = {
  readonly [K in keyof C]: ErrorFactory<C[K]["message"], Options, E>;
};

/**
 * Refuses an entry whose message type is plain `string` (e.g. built with `+`): its
 * placeholders would be unknown to the compiler. Use a literal or a `template`.
 */
type LiteralMessages<C> = {
  [K in keyof C]: C[K] extends { message: infer M } ? (string extends M ? { message: "a message template must be a string literal" } : unknown) : unknown;
};

/** What the catalogue's `build` receives for one error: the entry, its name and the filled message. */
export interface FilledEntry<C extends Record<string, CatalogueEntry>> {
  readonly name: keyof C & string;
  readonly entry: C[keyof C];
  readonly message: string;
}

/** A template split once into literal text (even indexes) and placeholder names (odd indexes). */
type Parsed = readonly string[];

const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function splitTemplate(template: string, entryName: string): Parsed {
  const parts: string[] = [];
  let literal = "";
  for (let i = 0; i < template.length; i++) {
    const ch = template[i]!;
    if (ch === "}") throw new Error(`error template ${entryName}: "}" at ${i} closes no placeholder`);
    if (ch !== "{") {
      literal += ch;
      continue;
    }
    const close = template.indexOf("}", i + 1);
    const name = close < 0 ? "" : template.slice(i + 1, close);
    if (!PLACEHOLDER_NAME.test(name)) throw new Error(`error template ${entryName}: "{" at ${i} starts no {placeholder}`);
    parts.push(literal, name);
    literal = "";
    i = close;
  }
  parts.push(literal);
  return parts;
}

function fill(parts: Parsed, args: Readonly<Record<string, unknown>> | undefined, entryName: string): string {
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const value = args?.[parts[i]!];
    if (typeof value !== "string" && typeof value !== "number") {
      throw new TypeError(`error template ${entryName} needs {${parts[i]}} (a string or number)`);
    }
    out += String(value) + parts[i + 1]!;
  }
  return out;
}

/**
 * Fills a template's placeholders with `args`.
 *
 * @example fillTemplate("Only {method} is allowed on {where}.", { method: "POST", where: "this hook" })
 * // "Only POST is allowed on this hook."
 */
export function fillTemplate<T extends string>(template: T, args: TemplateArgs<T>): string {
  return fill(splitTemplate(template, "(inline)"), args, "(inline)");
}

/**
 * Turns a catalogue into one factory per entry. Each template is checked when the
 * catalogue is created (a stray brace throws then, not when the error is raised);
 * `build` makes the error from the entry and its filled message.
 *
 * @example
 * const errors = createErrorCatalogue(
 *   { portInvalid: { message: "--port must be 0 to 65535 (got {got})" } } as const,
 *   ({ message }, opts?: { cause?: unknown }) => new Error(message, opts),
 * );
 * errors.portInvalid({ got: "x" }).message // "--port must be 0 to 65535 (got x)"
 */
export function createErrorCatalogue<const C extends Record<string, CatalogueEntry>, Options, E>(
  catalogue: C & LiteralMessages<C>,
  build: (filled: FilledEntry<C>, options: Options | undefined) => E,
): ErrorFactories<C, Options, E> {
  const factories: Record<string, unknown> = {};
  for (const name of Object.keys(catalogue) as Array<keyof C & string>) {
    const entry = catalogue[name] as C[keyof C];
    const parts = splitTemplate(entry.message, name);
    factories[name] =
      parts.length === 1
        ? (options?: Options) => build({ name, entry, message: parts[0]! }, options)
        : (args: Record<string, unknown>, options?: Options) => build({ name, entry, message: fill(parts, args, name) }, options);
  }
  return Object.freeze(factories) as ErrorFactories<C, Options, E>;
}
