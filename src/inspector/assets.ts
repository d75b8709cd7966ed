/**
 * The dashboard's static files, served from `dist/inspector/assets/` (copied
 * there by `npm run build`: our CSS and scripts plus uPlot from node_modules).
 * Only the names listed here are served; nothing is fetched from a CDN.
 */
import fs from "node:fs";
import path from "node:path";
import type { Request, Response } from "express";
import { errorBody } from "../host-contract/json-response";

export const ASSET_TYPES: Record<string, string> = {
  "dashboard.css": "text/css; charset=utf-8",
  "deliveries.js": "text/javascript; charset=utf-8",
  "delivery.js": "text/javascript; charset=utf-8",
  "overview.js": "text/javascript; charset=utf-8",
  "favicon.svg": "image/svg+xml",
  "uPlot.iife.min.js": "text/javascript; charset=utf-8",
  "uPlot.min.css": "text/css; charset=utf-8",
};

/** Where the built assets live (beside this module in dist/). */
export const DEFAULT_ASSETS_DIR = path.join(__dirname, "assets");

export function createAssetHandler(dir: string = DEFAULT_ASSETS_DIR) {
  const cache = new Map<string, Buffer>();
  return function serveAsset(req: Request, res: Response): void {
    const name = String(req.params.name);
    const type = Object.hasOwn(ASSET_TYPES, name) ? ASSET_TYPES[name] : undefined;
    let data = cache.get(name);
    if (type && !data) {
      try {
        data = fs.readFileSync(path.join(dir, name));
        cache.set(name, data);
      } catch {
        data = undefined;
      }
    }
    if (!type || !data) {
      res.status(404).json(errorBody("not_found", "No dashboard asset has this name."));
      return;
    }
    res.setHeader("Content-Type", type);
    res.setHeader("Cache-Control", "no-cache");
    res.send(data);
  };
}
