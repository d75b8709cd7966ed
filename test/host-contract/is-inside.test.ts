import path from "node:path";
import { isInside } from "../../src/host-contract/is-inside";

const root = path.resolve("/srv/plugin");

describe("isInside", () => {
  it.each([
    ["the directory itself", root],
    ["a file in it", path.join(root, "index.js")],
    ["a nested file", path.join(root, "dist", "plugin", "index.js")],
    // The gateway's former copy of the rule (rel.startsWith("..")) took these for outside.
    ["a file whose name starts with ..", path.join(root, "..hidden.js")],
    ["a folder whose name starts with ..", path.join(root, "..d", "x.js")],
  ])("%s is inside", (_label, child) => {
    expect(isInside(root, child)).toBe(true);
  });

  it.each([
    ["the parent", path.dirname(root)],
    ["a sibling", path.resolve(root, "..", "other", "index.js")],
    ["a sibling sharing the name's start", `${root}-evil/index.js`],
    ["a path that climbs out", path.join(root, "dist", "..", "..", "x.js")],
  ])("%s is outside", (_label, child) => {
    expect(isInside(root, child)).toBe(false);
  });
});
