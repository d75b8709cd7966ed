/** parseMultipart: multipart/form-data bodies of mapped hooks (SPEC §12). */
import { MAX_MULTIPART_FIELDS, MULTIPART_CHUNK_BYTES, parseMultipart } from "../../../src/actions/body/parse-multipart";

const TYPE = "multipart/form-data; boundary=b";
const field = (name: string, value: string) => `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const file = (name: string) =>
  `--b\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n%PDF\r\n`;

describe("parseMultipart", () => {
  let unhandled: unknown[];
  const onError = (e: unknown) => void unhandled.push(e);
  beforeEach(() => {
    unhandled = [];
    process.on("uncaughtException", onError);
  });
  afterEach(() => process.off("uncaughtException", onError));

  it("fields become keys and a repeated name a list, in order", async () => {
    const r = await parseMultipart(Buffer.from(field("subject", "hi") + field("tag", "a") + field("tag", "b") + "--b--\r\n"), TYPE);
    expect(r.ok && { ...r.value }).toEqual({ subject: "hi", tag: ["a", "b"] });
  });

  it("a file part → 415 unsupported_media_type naming the part", async () => {
    const r = await parseMultipart(Buffer.from(field("subject", "hi") + file("invoice") + "--b--\r\n"), TYPE);
    expect(!r.ok && [r.error.status, r.error.code, r.error.message]).toEqual([
      415,
      "unsupported_media_type",
      "The multipart part invoice is a file; mapped hooks accept form fields only.",
    ]);
  });

  it("a file part in a body cut before its closing boundary no longer throws « Unexpected end of form » past the parser: 415, nothing unhandled", async () => {
    const r = await parseMultipart(Buffer.from(file("invoice")), TYPE);
    expect(!r.ok && [r.error.status, r.error.code]).toEqual([415, "unsupported_media_type"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  it("a field-only body cut before its closing boundary → 400 invalid_payload naming the reason", async () => {
    const r = await parseMultipart(Buffer.from(field("subject", "hi")), TYPE);
    expect(!r.ok && [r.error.status, r.error.code, r.error.message]).toEqual([
      400,
      "invalid_payload",
      "The multipart/form-data body is malformed: the form ends before its closing boundary.",
    ]);
  });

  it("no boundary parameter → 400 invalid_payload", async () => {
    const r = await parseMultipart(Buffer.from(field("subject", "hi") + "--b--\r\n"), "multipart/form-data");
    expect(!r.ok && [r.error.status, r.error.code, r.error.message]).toEqual([
      400,
      "invalid_payload",
      "The multipart/form-data body is malformed: the Content-Type has no boundary.",
    ]);
  });

  describe("fed in chunks, refused at the first malformed part, bounded before parsing", () => {
    /** A nextTurn that counts the turns the parser waited for. */
    const turns = () => {
      const t = { count: 0, nextTurn: () => new Promise<void>((resolve) => void (t.count++, setImmediate(resolve))) };
      return t;
    };
    const headerless = (n: number) => "--b\r\nnot a header\r\n".repeat(n);

    it("a valid body is fed one chunk per turn of the event loop, values spanning chunks intact", async () => {
      const big = "v".repeat(100_000);
      const raw = Buffer.from(field("a", big) + field("b", "é".repeat(30_000)) + "--b--\r\n");
      const t = turns();
      const r = await parseMultipart(raw, TYPE, { chunkBytes: MULTIPART_CHUNK_BYTES, nextTurn: t.nextTurn });
      expect(r.ok && { ...r.value }).toEqual({ a: big, b: "é".repeat(30_000) });
      expect(t.count).toBe(Math.ceil(raw.length / MULTIPART_CHUNK_BYTES) - 1);
    });

    it("4 MiB of header-less parts (busboy raised an error per part, all in one call) → 400 before anything is parsed", async () => {
      const raw = Buffer.from(headerless(Math.ceil((4 * 1024 * 1024) / 19)));
      const t = turns();
      const r = await parseMultipart(raw, TYPE, { nextTurn: t.nextTurn });
      expect(!r.ok && [r.error.status, r.error.code, r.error.message]).toEqual([
        400,
        "invalid_payload",
        `The multipart/form-data body has more than ${MAX_MULTIPART_FIELDS} fields.`,
      ]);
      expect(t.count).toBe(0);
    });

    it("a malformed part stops the feeding: the rest of a 2 MiB body is never handed to the parser", async () => {
      const raw = Buffer.from(headerless(1) + field("pad", "x".repeat(2 * 1024 * 1024)) + "--b--\r\n");
      const t = turns();
      const r = await parseMultipart(raw, TYPE, { nextTurn: t.nextTurn });
      expect(!r.ok && [r.error.status, r.error.code, r.error.message]).toEqual([
        400,
        "invalid_payload",
        "The multipart/form-data body is malformed: a part header is malformed.",
      ]);
      expect(t.count).toBe(0);
    });

    it("1,000 header-less parts (at the part bound) are refused at the first one, in the first chunk", async () => {
      const t = turns();
      const r = await parseMultipart(Buffer.from(headerless(1000) + "--b--\r\n"), TYPE, { chunkBytes: 64, nextTurn: t.nextTurn });
      expect(!r.ok && r.error.message).toBe("The multipart/form-data body is malformed: a part header is malformed.");
      expect(t.count).toBe(0);
    });

    it("a quoted boundary is counted like busboy reads it", async () => {
      const r = await parseMultipart(Buffer.from(headerless(1002)), 'multipart/form-data; boundary="b"');
      expect(!r.ok && r.error.message).toBe(`The multipart/form-data body has more than ${MAX_MULTIPART_FIELDS} fields.`);
    });
  });
});
