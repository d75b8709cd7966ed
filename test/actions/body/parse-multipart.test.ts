/** parseMultipart: multipart/form-data bodies of mapped hooks (SPEC §12). */
import { parseMultipart } from "../../../src/actions/body/parse-multipart";

const TYPE = "multipart/form-data; boundary=b";
const field = (name: string, value: string) => `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const file = (name: string) => `--b\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n%PDF\r\n`;

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
    expect(!r.ok && [r.error.status, r.error.code, r.error.message]).toEqual([415, "unsupported_media_type", "The multipart part invoice is a file; mapped hooks accept form fields only."]);
  });

  it("a file part in a body cut before its closing boundary no longer throws « Unexpected end of form » past the parser: 415, nothing unhandled", async () => {
    const r = await parseMultipart(Buffer.from(file("invoice")), TYPE);
    expect(!r.ok && [r.error.status, r.error.code]).toEqual([415, "unsupported_media_type"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  it("a field-only body cut before its closing boundary → 400 invalid_payload naming the reason", async () => {
    const r = await parseMultipart(Buffer.from(field("subject", "hi")), TYPE);
    expect(!r.ok && [r.error.status, r.error.code, r.error.message]).toEqual([400, "invalid_payload", "The multipart/form-data body is malformed: the form ends before its closing boundary."]);
  });

  it("no boundary parameter → 400 invalid_payload", async () => {
    const r = await parseMultipart(Buffer.from(field("subject", "hi") + "--b--\r\n"), "multipart/form-data");
    expect(!r.ok && [r.error.status, r.error.code, r.error.message]).toEqual([400, "invalid_payload", "The multipart/form-data body is malformed: the Content-Type has no boundary."]);
  });
});
