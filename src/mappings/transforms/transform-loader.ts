/**
 * Loads transform modules (`.js`, `.mjs`, `.cjs`, `.ts`) with jiti, caches the
 * chosen function per module + export, and reloads a module when its file
 * changes (checked by real path, mtime, ctime, size and inode on every load; a mapping
 * loads once per request, src/mappings/template-mapping.ts), so
 * an edited transform takes effect on the next request without a restart.
 *
 * Transforms may `import { defineTransform } from "inbound-webhooks"`: the loader
 * provides that module itself, wherever the transform lives.
 */
import fs from "node:fs/promises";
import { createJiti } from "jiti";
import * as defineTransformModule from "../define-transform";
import type { TransformFn } from "../define-transform";
import { realPathInside, type ResolvedTransformModule } from "./transform-path";

export interface TransformLoader {
  /** The transform function of `mod`, loaded (again) when its file is new or changed. */
  load(mod: ResolvedTransformModule): Promise<TransformFn>;
}

export interface TransformLoaderOptions {
  /** Evaluates a module file afresh and returns its namespace. Default: jiti without module cache. */
  importModule?: (file: string) => Promise<unknown>;
}

/** Node's code when `import()` is unavailable in the current VM context (e.g. inside jest). */
const NO_DYNAMIC_IMPORT = "ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG";

/**
 * Default module importer: one jiti instance that evaluates the transform's
 * current source text afresh on every call (`evalModule` with forced
 * transpilation), so `.js`, `.mjs`, `.cjs` and `.ts` files all reload. Loading
 * the file by name instead would hand `.mjs`/`.cjs` to Node's own `import`/
 * `require`, whose module caches cannot be cleared. Modules are evaluated
 * asynchronously (top-level await works); where the host VM context has no
 * dynamic `import()` (jest's module sandbox), they are evaluated synchronously.
 *
 * Relative imports inside the transform resolve from its own directory. Helpers
 * that jiti transpiles (`.ts`, ES-module `.js`) are evaluated afresh with each
 * reload of the transform; helpers that Node loads itself (`.mjs`, `.cjs`,
 * CommonJS `.js`) stay in Node's cache until restart.
 */
export function createJitiImporter(): (file: string) => Promise<unknown> {
  const jiti = createJiti(__filename, {
    moduleCache: false,
    fsCache: false,
    interopDefault: false,
    virtualModules: { "inbound-webhooks": defineTransformModule },
  });
  let dynamicImport = true;
  return async (file) => {
    const source = await fs.readFile(file, "utf8");
    if (dynamicImport) {
      try {
        return await jiti.evalModule(source, { filename: file, async: true, forceTranspile: true });
      } catch (e) {
        if ((e as { code?: unknown })?.code !== NO_DYNAMIC_IMPORT) throw e;
        dynamicImport = false;
      }
    }
    return jiti.evalModule(source, { filename: file, async: false, forceTranspile: true });
  };
}

function ownValue(obj: unknown, key: string): unknown {
  if (obj === null || (typeof obj !== "object" && typeof obj !== "function")) return undefined;
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/**
 * Picks the export: `exportName` when given, else `default`, else `transform`.
 * A CommonJS module's `module.exports` (seen as `default`, or as the namespace
 * itself when it is a function) is searched too.
 */
export function pickTransformExport(namespace: unknown, module: string, exportName?: string): TransformFn {
  if (typeof namespace === "function" && !exportName) return namespace as TransformFn;
  const cjs = ownValue(namespace, "default");
  const scopes = cjs !== null && typeof cjs === "object" ? [namespace, cjs] : [namespace];
  const names = exportName ? [exportName] : ["default", "transform"];
  for (const name of names) {
    for (const scope of scopes) {
      const v = ownValue(scope, name);
      if (typeof v === "function") return v as TransformFn;
    }
  }
  const wanted = exportName ? `export "${exportName}"` : `"default" or "transform" export`;
  throw new Error(`transform module "${module}" has no function ${wanted}`);
}

interface CachedModule {
  signature: string;
  namespace: Promise<unknown>;
}

/** Creates a loader with its own caches. */
export function createTransformLoader(options: TransformLoaderOptions = {}): TransformLoader {
  let importer = options.importModule;
  const modules = new Map<string, CachedModule>();
  const functions = new Map<string, { signature: string; fn: TransformFn }>();

  return {
    async load(mod) {
      const real = realPathInside(mod);
      const st = await fs.stat(real);
      const signature = `${real}|${st.mtimeMs}|${st.ctimeMs}|${st.size}|${st.ino}`;
      const fnKey = `${mod.file}#${mod.exportName ?? ""}`;
      const cachedFn = functions.get(fnKey);
      if (cachedFn && cachedFn.signature === signature) return cachedFn.fn;

      let cachedModule = modules.get(mod.file);
      if (!cachedModule || cachedModule.signature !== signature) {
        importer ??= createJitiImporter();
        cachedModule = { signature, namespace: importer(real) };
        modules.set(mod.file, cachedModule);
        // A failed import is not cached: the next call tries again.
        cachedModule.namespace.catch(() => {
          if (modules.get(mod.file) === cachedModule) modules.delete(mod.file);
        });
      }
      const fn = pickTransformExport(await cachedModule.namespace, mod.module, mod.exportName);
      functions.set(fnKey, { signature, fn });
      return fn;
    },
  };
}
