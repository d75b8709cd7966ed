/**
 * Standard Webhooks / Svix signature lists as Node delivers them. A `webhook-signature`
 * (or `svix-signature`) header that reaches the gateway twice — a proxy that appends
 * its own copy, a sender retry library that sets it again — is joined by Node's HTTP
 * parser with ", ". The reference libraries (`standardwebhooks`, `svix`) read each
 * space-separated entry as `<version>,<signature>` and ignore what follows a second
 * comma, so they verify such a header whichever copy carries the matching signature.
 * They also take a `whsec_` secret written without its base64 padding.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { createVerifier, verifySecretBytes } from "../../../src/safety/signatures/create-verifier";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const BODY = '{"type":"invoice.paid","id":"evt_1"}';
const NOW = 1_760_000_000_000;
const TS = String(NOW / 1000);
const ID = "msg_2Lx4";
const OTHER = `v1,${Buffer.alloc(32, 7).toString("base64")}`;

/** The value Node's HTTP parser gives a header sent once per element of `values`. */
async function asNodeJoins(name: string, values: string[]): Promise<string> {
  const server = http.createServer((req, res) => res.end(String(req.headers[name])));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port: (server.address() as AddressInfo).port, method: "POST" }, (res) => {
        let text = "";
        res
          .setEncoding("utf8")
          .on("data", (c: string) => (text += c))
          .on("end", () => resolve(text));
      });
      req.on("error", reject);
      for (const v of values) req.appendHeader(name, v);
      req.end();
    });
  } finally {
    server.close();
  }
}

const verify = createVerifier({ scheme: "standard-webhooks", secrets: [SECRET], now: () => NOW });

describe("standard-webhooks: a signature header sent twice", () => {
  const signed = new StandardWebhook(SECRET).sign(ID, new Date(NOW), BODY);

  it.each([
    ["the matching signature in the first copy", () => [signed, OTHER]],
    ["the matching signature in the second copy", () => [OTHER, signed]],
  ])("%s is verified, as the reference libraries verify it (regression: refused when the match came first)", async (_, copies) => {
    const joined = await asNodeJoins("webhook-signature", copies());
    expect(joined).toBe(copies().join(", "));
    const headers = { "webhook-id": ID, "webhook-timestamp": TS, "webhook-signature": joined };
    const svixHeaders = { "svix-id": ID, "svix-timestamp": TS, "svix-signature": joined };
    // What each sender's own library says of the same header (verified against the real clock's window).
    jest.useFakeTimers({ now: NOW, doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] });
    try {
      expect(() => new StandardWebhook(SECRET).verify(BODY, headers)).not.toThrow();
      expect(() => new SvixWebhook(SECRET).verify(BODY, svixHeaders)).not.toThrow();
    } finally {
      jest.useRealTimers();
    }
    expect(verify({ headers, rawBody: Buffer.from(BODY) })).toBeUndefined();
    expect(verify({ headers: svixHeaders, rawBody: Buffer.from(BODY) })).toBeUndefined();
  });

  it("two copies of which neither matches → invalid_signature naming the header", async () => {
    const joined = await asNodeJoins("webhook-signature", [OTHER, `v1,${Buffer.alloc(32, 9).toString("base64")}`]);
    expect(verify({ headers: { "webhook-id": ID, "webhook-timestamp": TS, "webhook-signature": joined }, rawBody: Buffer.from(BODY) })).toEqual({
      code: "invalid_signature",
      header: "webhook-signature",
      message: "webhook-signature has no v1 signature that matches the request",
    });
  });
});

describe("standard-webhooks: a whsec_ secret without base64 padding", () => {
  // 32 random bytes are 43 base64 characters and one "=": some senders show the secret without it.
  const KEY = Buffer.from("8f1c2a9e4b7d6c5a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a", "hex");
  const UNPADDED = `whsec_${KEY.toString("base64").replace(/=+$/, "")}`;

  it("verifies what the sender's library signs with it (regression: the start failed, 'is not a valid standard-webhooks secret')", () => {
    expect(UNPADDED.endsWith("=")).toBe(false);
    const signature = new StandardWebhook(UNPADDED).sign(ID, new Date(NOW), BODY);
    expect(signature).toBe(new SvixWebhook(UNPADDED).sign(ID, new Date(NOW), BODY));
    const unpadded = createVerifier({ scheme: "standard-webhooks", secrets: [UNPADDED], now: () => NOW });
    expect(unpadded({ headers: { "webhook-id": ID, "webhook-timestamp": TS, "webhook-signature": signature }, rawBody: Buffer.from(BODY) })).toBeUndefined();
    expect(verifySecretBytes("standard-webhooks", UNPADDED)).toBe(32);
  });

  it("a secret whose base64 cannot be complete (a length of 4n+1) is still refused", () => {
    expect(() => createVerifier({ scheme: "standard-webhooks", secrets: [`${UNPADDED}AA`.slice(0, 6 + 41)] })).toThrow();
  });
});
