/**
 * The demo's token files (`<stateDir>/hook-token`, `operator-token`): generated on first
 * use, and never left empty by a full disk or a crash in the middle of that first write.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureDemoOperatorToken, ensureDemoToken, markDemoTokenShown } from "../../../src/gateway/config/demo-config";
import { fullDiskAfter } from "../storage/full-disk";

const bytes = (fill: number) => (n: number) => Buffer.alloc(n, fill);

describe("demo token files", () => {
  let stateDir: string;
  beforeEach(() => {
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-demo-"));
  });
  afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  it("regression: a full disk during the first write left an empty hook-token, and every later start failed with 'hooks.token must not be empty'; now nothing is left and the next start creates it", () => {
    const disk = fullDiskAfter(0);
    try {
      expect(() => ensureDemoToken(stateDir, bytes(1))).toThrow(expect.objectContaining({ code: "ENOSPC" }));
    } finally {
      disk.restore();
    }
    expect(fs.readdirSync(stateDir)).toEqual([]);
    const token = ensureDemoToken(stateDir, bytes(2));
    expect(token).toMatchObject({ token: Buffer.alloc(24, 2).toString("base64url"), firstShow: true });
    expect(fs.readFileSync(token.file, "utf8")).toBe(`${token.token}\n`);
    expect(fs.statSync(token.file).mode & 0o777).toBe(0o600);
  });

  it("regression: the hook-token.shown marker was created 0644 in the private state dir; it is 0600 like every state file", () => {
    const old = process.umask(0o022);
    try {
      markDemoTokenShown(ensureDemoToken(stateDir, bytes(1)));
    } finally {
      process.umask(old);
    }
    expect(fs.statSync(path.join(stateDir, "hook-token.shown")).mode & 0o777).toBe(0o600);
  });

  it("an empty token file (left by an older version's interrupted write) is generated again and shown again", () => {
    const first = ensureDemoToken(stateDir, bytes(1));
    markDemoTokenShown(first);
    fs.writeFileSync(first.file, "");
    fs.writeFileSync(path.join(stateDir, "operator-token"), "\n");
    const again = ensureDemoToken(stateDir, bytes(3));
    expect(again).toMatchObject({ token: Buffer.alloc(24, 3).toString("base64url"), firstShow: true });
    expect(ensureDemoOperatorToken(stateDir, bytes(4)).token).toBe(Buffer.alloc(24, 4).toString("base64url"));
  });

  it("keeps an existing token across starts", () => {
    const first = ensureDemoToken(stateDir, bytes(1));
    expect(ensureDemoToken(stateDir, bytes(9)).token).toBe(first.token);
  });

  it("regression: a token file others could read (0644, e.g. after a copy) was used as it was; now it is tightened to 0600 and the start says so", () => {
    const first = ensureDemoToken(stateDir, bytes(1));
    fs.chmodSync(first.file, 0o644);
    const again = ensureDemoToken(stateDir, bytes(9));
    expect(again.token).toBe(first.token);
    expect(again.notes).toEqual([`permissions of ${first.file} tightened from 0644 to 0600 (it holds a token)`]);
    expect(fs.statSync(first.file).mode & 0o777).toBe(0o600);
    expect(ensureDemoToken(stateDir, bytes(9)).notes).toEqual([]);
    const operator = ensureDemoOperatorToken(stateDir, bytes(4));
    fs.chmodSync(operator.file, 0o640);
    expect(ensureDemoOperatorToken(stateDir, bytes(4)).notes).toEqual([`permissions of ${operator.file} tightened from 0640 to 0600 (it holds a token)`]);
  });
});
