import { mailErrors } from "../../src/mail/mail-error";

describe("mail errors", () => {
  it("a refused IMAP login never advises an app password for Outlook.com, which accepts no password over IMAP (docs/mail.md step 1)", () => {
    const args = { server: "outlook.office365.com:993", user: "me@outlook.com", passwordRef: "environment variable MAIL_PASSWORD" };
    for (const e of [mailErrors.imapLoginRejected(args), mailErrors.imapLoginRejectedSaying({ ...args, said: "AUTHENTICATE failed" })]) {
      expect(e.code).toBe("imap_auth_failed");
      expect(e.message).toMatch(
        /; check the password in environment variable MAIL_PASSWORD \(Gmail, Fastmail and iCloud want an app password; Outlook\.com accepts no password, see docs\/mail\.md\)\.$/,
      );
      expect(e.message).not.toMatch(/Outlook use an app password/);
    }
  });
});
