/** Parsing raw messages into the preset's plain-text message objects, and the text bounds. */
import { parseMessage, SNIPPET_MAX_BYTES } from "../../../src/mail/watcher/parse-message";
import { collapseWhitespace, htmlToPlainText, tidyText, trimEndOf, truncateUtf8 } from "../../../src/mail/watcher/text-bounds";
import { stripHtml } from "../../../src/mail/watcher/strip-html";
import { alternativeMessage, htmlOnlyMessage, messageWithoutId, nonAsciiSubjectMessage, plainMessage } from "../helpers/messages";

const opts = { maxBytes: 8192, includeBody: true, fallbackId: "7.42@imap.example" };

describe("truncateUtf8", () => {
  test("leaves text within the budget alone", () => {
    expect(truncateUtf8("hello", 5)).toBe("hello");
  });
  test("cuts on a character boundary and counts the ellipsis", () => {
    expect(truncateUtf8("héllo wörld", 8)).toBe("héll…");
    expect(Buffer.byteLength(truncateUtf8("東京東京東京", 10))).toBeLessThanOrEqual(10);
    expect(truncateUtf8("東京東京東京", 10)).toBe("東京…");
  });
  test("never splits a surrogate pair (emoji)", () => {
    expect(truncateUtf8("ab😀😀", 9)).toBe("ab😀…");
    expect(truncateUtf8("ab😀😀", 8)).toBe("ab…");
  });
  test("a budget smaller than the ellipsis gives an empty string", () => {
    expect(truncateUtf8("abcdef", 2)).toBe("");
  });
});

test("tidyText and collapseWhitespace", () => {
  expect(tidyText("a  \r\nb\r\n\r\n\r\n\r\nc \t")).toBe("a\nb\n\nc");
  expect(collapseWhitespace(" a\n\n b\t c ")).toBe("a b c");
});

test("htmlToPlainText drops tags, link targets, images, styles and scripts", () => {
  const text = htmlToPlainText(
    '<style>p{color:red}</style><script>alert(1)</script><p>Hello <a href="https://x.example">world</a><img src="cid:x" alt="logo"></p>',
  );
  expect(text).toBe("Hello world");
});

test("a plain message: decoded fields, snippet on one line, body with its lines", async () => {
  const m = plainMessage("Hello", "line one\r\nline two");
  expect(await parseMessage(Buffer.from(m.raw), opts)).toEqual({
    id: m.id,
    from: "Alice Example <alice@example.com>",
    subject: "Hello",
    snippet: "line one line two",
    body: "line one\nline two",
    date: "2024-06-04T10:15:00.000Z",
  });
});

test("an HTML-only message becomes readable text", async () => {
  const m = htmlOnlyMessage("Newsletter", "<html><body><h2>Big news</h2><ul><li>one</li><li>two</li></ul><p>Café &amp; crème</p></body></html>");
  const parsed = await parseMessage(Buffer.from(m.raw), opts);
  expect(parsed.snippet).toBe("BIG NEWS * one * two Café & crème");
  expect(parsed.body).toBe("BIG NEWS\n\n * one\n * two\n\nCafé & crème");
});

test("multipart/alternative uses the text part, not the HTML part", async () => {
  const m = alternativeMessage("Alt", "plain version ✓", "<p>html version</p>");
  const parsed = await parseMessage(Buffer.from(m.raw), opts);
  expect(parsed.snippet).toBe("plain version ✓");
  expect(parsed.body).toBe("plain version ✓");
});

test("RFC 2047 subjects (B and Q encodings) are decoded", async () => {
  const b = nonAsciiSubjectMessage("Привет, 世界 — ça va?", "x");
  expect((await parseMessage(Buffer.from(b.raw), opts)).subject).toBe("Привет, 世界 — ça va?");
  const q = plainMessage("=?ISO-8859-1?Q?Gr=FC=DFe_aus_M=FCnchen?=", "x");
  expect((await parseMessage(Buffer.from(q.raw), opts)).subject).toBe("Grüße aus München");
});

test("a latin-1 body is converted to UTF-8", async () => {
  const raw = Buffer.concat([
    Buffer.from(
      "From: a@example.com\r\nSubject: x\r\nMessage-ID: <l1@example.com>\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n",
    ),
    Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65, 0x0d, 0x0a]),
  ]);
  expect((await parseMessage(raw, opts)).snippet).toBe("Grüße");
});

test("missing Message-ID, subject and Date fall back to the synthetic id, a placeholder and the internal date", async () => {
  const raw = "From: bob@example.com\r\nContent-Type: text/plain\r\n\r\nno headers to speak of\r\n";
  const parsed = await parseMessage(Buffer.from(raw), { ...opts, internalDate: new Date("2024-01-02T03:04:05Z") });
  expect(parsed).toMatchObject({ id: "7.42@imap.example", from: "bob@example.com", subject: "(no subject)", date: "2024-01-02T03:04:05.000Z" });
  const noFrom = await parseMessage(Buffer.from(messageWithoutId("s", "b").replace(/^From: .*\r\n/, "")), opts);
  expect(noFrom.from).toBe("(unknown sender)");
});

test("snippet is bounded by min(maxBytes, SNIPPET_MAX_BYTES); body by maxBytes; no body without includeBody", async () => {
  const long = plainMessage("long", "word ".repeat(5000));
  const big = await parseMessage(Buffer.from(long.raw), { ...opts, maxBytes: 3000 });
  expect(Buffer.byteLength(big.snippet)).toBeLessThanOrEqual(SNIPPET_MAX_BYTES);
  expect(Buffer.byteLength(big.body!)).toBeLessThanOrEqual(3000);
  expect(Buffer.byteLength(big.body!)).toBeGreaterThan(2990);
  const small = await parseMessage(Buffer.from(long.raw), { ...opts, maxBytes: 100, includeBody: false });
  expect(Buffer.byteLength(small.snippet)).toBeLessThanOrEqual(100);
  expect(small.body).toBeUndefined();
});

test("Message-ID angle brackets are removed", async () => {
  const m = plainMessage("x", "y");
  expect(m.raw).toContain(`<${m.id}>`);
  expect((await parseMessage(Buffer.from(m.raw), opts)).id).toBe(m.id);
});

/**
 * Regression (SPEC §9 "linear parsing"): trailing blanks were trimmed with `[ \t]+$`
 * and the Message-ID's closing brackets with `>+$`, regexes V8 retries at every
 * position of a run that does not end the text: a 40 KB line of spaces followed by a
 * letter took 2 s, 1 MiB would take hours, and the watcher (inside the gateway with
 * `autoStart`) held the event loop, fetching the same message again after every
 * restart. Each case parses 512 KiB to 1 MiB of it; the old code never finishes. No
 * duration is asserted.
 */
describe("a hostile message is parsed in linear time (regression: a long line of blanks or '>' held the watcher for hours)", () => {
  const MIB = 1024 * 1024;
  const headers = (messageId: string) =>
    `From: Mallory <m@example.com>\r\nTo: a@example.com\r\nSubject: blanks\r\nMessage-ID: ${messageId}\r\nDate: Tue, 4 Jun 2024 10:15:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n`;

  it("a body line of 1 MiB of spaces, then a letter", async () => {
    const raw = Buffer.from(headers("<blanks@example.com>") + "a" + " ".repeat(MIB) + "b\r\n");
    const parsed = await parseMessage(raw, opts);
    expect(parsed.id).toBe("blanks@example.com");
    expect(parsed.snippet).toBe("a b");
    expect(parsed.body).toBe("a" + " ".repeat(8192 - 4) + "…"); // 8192 bytes with the 3-byte ellipsis
  }, 20_000);

  it("a Message-ID of 512 KiB of '>', then a letter (a header block over 1 MiB is refused by mailparser)", async () => {
    const raw = Buffer.from(headers(`<${">".repeat(MIB / 2)}x>`) + "hello\r\n");
    const parsed = await parseMessage(raw, opts);
    expect(parsed.id).toBe(">".repeat(500 - 3) + "…");
    expect(parsed.snippet).toBe("hello");
  }, 20_000);
});

test("trimEndOf drops only the trailing characters named", () => {
  expect(trimEndOf("a \t\u00a0 ", " \t\u00a0")).toBe("a");
  expect(trimEndOf(" a b ", " ")).toBe(" a b");
  expect(trimEndOf("   ", " ")).toBe("");
  expect(trimEndOf("id>>", ">")).toBe("id");
});

test("an HTML-only message nested too deep for html-to-text keeps its sender, subject and text (regression: it became '(message could not be parsed)' from '(unknown sender)')", async () => {
  // 5 000 unclosed <font> tags (what some mail generators leave behind) nest 5 000 deep; html-to-text recurses per level.
  const m = htmlOnlyMessage("Deep", `${"<font>".repeat(5000)}Hello &amp; <b>welcome</b>`);
  const parsed = await parseMessage(Buffer.from(m.raw), opts);
  expect(parsed).toMatchObject({ id: m.id, from: "Alice Example <alice@example.com>", subject: "Deep", snippet: "Hello & welcome", body: "Hello & welcome" });
});

test("stripHtml (the fallback for HTML too deep to convert): tags dropped, blocks on their own lines, scripts and styles skipped, references decoded", () => {
  expect(stripHtml("<style>p{color:red}</style><P>Caf&eacute; &amp; cr&#232;me</P><SCRIPT>alert(1)</SCRIPT><div>a&#x1F600;b &lt;tag&gt;</div><br>end")).toBe(
    "\nCaf&eacute; & crème\n\na😀b <tag>\n\nend",
  );
  expect(stripHtml("<b>unfinished <i")).toBe("unfinished ");
  expect(stripHtml(`${"<font>".repeat(100_000)}deep`)).toBe("deep");
});

test("stripHtml: text after a script is kept whole when letters before it grow in lower case (regression: İ shifted the skip and ate the text)", () => {
  expect(stripHtml(`<p>${"İ".repeat(20)}</p><script>x()</script>Pay invoice 42 by Friday`)).toBe(`\n${"İ".repeat(20)}\nPay invoice 42 by Friday`);
});
