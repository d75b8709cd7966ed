/** "Copy as curl": the stored request again, naming each secret's place (never its value) and quoting everything a sender chose. */
import { execFileSync } from "node:child_process";
import { curlCommand, variableName } from "../../../../src/gateway/ui/views/curl-command";
import { delivery } from "../../../helpers/fake-inspector";

describe("curlCommand", () => {
  it("names the hook token and each redacted header by a variable, leaves out connection headers, and sends the body as stored", () => {
    const d = delivery({
      url: "/hooks/github?token=[REDACTED]&x=1",
      headers: { authorization: "[REDACTED]", "x-hub-signature-256": "[REDACTED]", "content-type": "application/json", host: "gw:1", "content-length": "9" },
      body: '{"ref":"main"}',
    });
    expect(curlCommand(d, "http://127.0.0.1:18789")).toBe(
      [
        `curl -X POST 'http://127.0.0.1:18789/hooks/github?token='"\${HOOK_TOKEN}"'&x=1'`,
        `-H 'authorization: Bearer '"\${HOOK_TOKEN}"`,
        `-H 'content-type: application/json'`,
        `-H 'x-hub-signature-256: '"\${X_HUB_SIGNATURE_256}"`,
        `--data-binary '{"ref":"main"}'`,
      ].join(" \\\n  "),
    );
  });

  it("a body or header a sender chose is one shell word whatever it holds (the shell prints it back unchanged)", () => {
    const evil = `it's $(rm -rf ~) \`id\` "q" \\ $HOME\nline 2`;
    const d = delivery({ headers: { "x-note": evil, "x-token": `[REDACTED]${evil}` }, body: evil });
    const cmd = curlCommand(d, "http://h").replace(/^curl /, "printf '%s\\n' ");
    const printed = execFileSync("sh", ["-c", cmd], { encoding: "utf8", env: { X_TOKEN: "<var>", HOOK_TOKEN: "", PATH: process.env.PATH } });
    expect(printed).toContain(`x-note: ${evil}\n`);
    expect(printed).toContain(`x-token: <var>${evil}\n`);
    expect(printed).toContain(`--data-binary\n${evil}\n`);
  });

  it("a body that is not UTF-8 is piped from its base64", () => {
    const d = delivery({ headers: {}, body: undefined, bodyBase64: "//4A" });
    expect(curlCommand(d, "http://h")).toBe(`printf %s '//4A' | base64 -d | curl -X POST 'http://h/hooks/github' \\\n  --data-binary @-`);
  });

  it("variable names come from header names", () => {
    expect(variableName("stripe-signature")).toBe("STRIPE_SIGNATURE");
    expect(variableName("--")).toBe("SECRET");
  });
});
