import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { dropTornTail, openLineFile, StorageWriteError } from "../../../src/gateway/storage/line-file";
import { fullDiskAfter, type FullDisk } from "./full-disk";

const tmpFile = (name = "lines.jsonl") => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gw-lines-")), name);
const linesOf = (file: string) => fs.readFileSync(file, "utf8");

describe("openLineFile: whole-line appends", () => {
  let disk: FullDisk | undefined;
  afterEach(() => {
    disk?.restore();
    disk = undefined;
  });

  it("appends one line with its newline and returns the length before it", () => {
    const file = tmpFile();
    const out = openLineFile(file, { keepOpen: true });
    expect(out.append('{"a":1}')).toBe(0);
    expect(out.append('{"b":2}')).toBe(8);
    out.close();
    expect(linesOf(file)).toBe('{"a":1}\n{"b":2}\n');
  });

  it("a write cut short by a full disk leaves no torn line, and the next append after space returns is a clean line (regression: the next line was glued onto the torn one)", () => {
    const file = tmpFile();
    const out = openLineFile(file, { name: "lines.jsonl", keepOpen: true });
    out.append('{"n":1}');
    disk = fullDiskAfter(5);
    let thrown: unknown;
    try {
      out.append('{"n":2,"text":"does not fit"}');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(StorageWriteError);
    expect(thrown).toMatchObject({ code: "ENOSPC", file, message: "cannot append to lines.jsonl: ENOSPC: no space left on device, write" });
    expect(linesOf(file)).toBe('{"n":1}\n');

    disk.free();
    out.append('{"n":3}');
    out.close();
    expect(linesOf(file)).toBe('{"n":1}\n{"n":3}\n');
  });

  it("a cut that fails is owed: the next append first cuts the torn bytes away", () => {
    const file = tmpFile();
    const out = openLineFile(file);
    out.append('{"n":1}');
    disk = fullDiskAfter(4);
    const ftruncate = jest.spyOn(fs, "ftruncateSync").mockImplementationOnce(() => {
      throw Object.assign(new Error("EIO: i/o error, ftruncate"), { code: "EIO" });
    });
    expect(() => out.append('{"n":2}')).toThrow(StorageWriteError);
    expect(linesOf(file)).toBe('{"n":1}\n{"n"');
    disk.free();
    ftruncate.mockRestore();
    out.append('{"n":3}');
    expect(linesOf(file)).toBe('{"n":1}\n{"n":3}\n');
  });

  it("truncate undoes an append", () => {
    const file = tmpFile();
    const out = openLineFile(file);
    out.append("one");
    const before = out.append("two");
    out.truncate(before);
    expect(linesOf(file)).toBe("one\n");
  });
});

describe("dropTornTail", () => {
  it("cuts a last line that has no newline and says how many bytes it dropped", () => {
    const file = tmpFile();
    fs.writeFileSync(file, '{"a":1}\n{"b":2}\n{"c":');
    expect(dropTornTail(file)).toBe(5);
    expect(linesOf(file)).toBe('{"a":1}\n{"b":2}\n');
  });

  it("leaves a clean file alone and treats a missing file as clean", () => {
    const file = tmpFile();
    expect(dropTornTail(file)).toBe(0);
    fs.writeFileSync(file, '{"a":1}\n');
    expect(dropTornTail(file)).toBe(0);
    expect(linesOf(file)).toBe('{"a":1}\n');
  });

  it("finds the last newline behind a torn tail longer than one read chunk, and empties a file that is one torn line", () => {
    const file = tmpFile();
    fs.writeFileSync(file, `{"a":1}\n${"x".repeat(200_000)}`);
    expect(dropTornTail(file)).toBe(200_000);
    expect(linesOf(file)).toBe('{"a":1}\n');
    fs.writeFileSync(file, "x".repeat(100));
    expect(dropTornTail(file)).toBe(100);
    expect(linesOf(file)).toBe("");
  });
});
