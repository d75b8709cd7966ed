/** The escaping behind the CLI's terminal safety (SPEC §9). */
import { terminalSafe, terminalSafeLine } from "../../src/host-contract/terminal-text";
import { foldUntrustedNotice, FOLDED_UNTRUSTED_NOTICE, UNTRUSTED_NOTICE } from "../../src/host-contract/untrusted-notice";

test("every C0 control, DEL, every C1 control and the bidi overrides become visible escapes", () => {
  const all = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join("") + "\u200e\u200f\u202a\u202e\u2066\u2069";
  const out = terminalSafeLine(all);
  expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  expect(out).toContain("\\x00\\x01");
  expect(out).toContain("\\x1b");
  expect(out).toContain(' !"#');
  expect(out).toContain("~\\x7f\\x80");
  expect(out.endsWith("\\x9f\\u200e\\u200f\\u202a\\u202e\\u2066\\u2069")).toBe(true);
});

test("a block keeps its line feeds and tabs; a line or cell escapes them too", () => {
  expect(terminalSafe("a\tb\nc\r\n\u001b[2J")).toBe("a\tb\nc\\x0d\n\\x1b[2J");
  expect(terminalSafeLine("a\tb\nc")).toBe("a\\x09b\\x0ac");
});

test("text without controls is unchanged (letters of every script, emoji)", () => {
  const text = "héllo — Привет 你好 🎉 \\x1b stays as typed";
  expect(terminalSafe(text)).toBe(text);
});

test("the notice is folded to one short line wherever it appears, other text untouched", () => {
  expect(foldUntrustedNotice(`${UNTRUSTED_NOTICE}\nA\n${UNTRUSTED_NOTICE}`)).toBe(`${FOLDED_UNTRUSTED_NOTICE}\nA\n${FOLDED_UNTRUSTED_NOTICE}`);
  expect(foldUntrustedNotice("SECURITY NOTICE: something else")).toBe("SECURITY NOTICE: something else");
});
