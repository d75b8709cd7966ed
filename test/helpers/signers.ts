/**
 * Requests signed the way real senders sign them: GitHub with @octokit/webhooks,
 * Standard Webhooks with `standardwebhooks`, Svix with `svix`, Stripe with
 * `stripe`. Slack, Shopify, the generic HMAC and token-header have no official
 * signer on npm; their headers follow the senders' documented recipes.
 */
import { createHmac } from "node:crypto";
import { Webhooks } from "@octokit/webhooks";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import Stripe from "stripe";

export type SignScheme = "github" | "standard-webhooks" | "svix" | "stripe" | "slack" | "shopify" | "hmac-sha256" | "token-header";

const stripe = new Stripe("sk_test_not_used_for_network");
const hmac = (secret: string, data: string, encoding: "hex" | "base64"): string => createHmac("sha256", secret).update(data).digest(encoding);

/** Headers that sign `body` (a UTF-8 string) with `secret` at `tsS` (Unix seconds, default now). */
export async function signHeaders(
  scheme: SignScheme,
  secret: string,
  body: string,
  tsS: number = Math.floor(Date.now() / 1000),
  id = "msg_2Lx4",
): Promise<Record<string, string>> {
  switch (scheme) {
    case "github":
      return { "X-Hub-Signature-256": await new Webhooks({ secret }).sign(body) };
    case "standard-webhooks":
      return { "webhook-id": id, "webhook-timestamp": String(tsS), "webhook-signature": new StandardWebhook(secret).sign(id, new Date(tsS * 1000), body) };
    case "svix":
      return { "svix-id": id, "svix-timestamp": String(tsS), "svix-signature": new SvixWebhook(secret).sign(id, new Date(tsS * 1000), body) };
    case "stripe":
      return { "Stripe-Signature": stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: tsS }) };
    case "slack":
      return { "X-Slack-Request-Timestamp": String(tsS), "X-Slack-Signature": `v0=${hmac(secret, `v0:${tsS}:${body}`, "hex")}` };
    case "shopify":
      return { "X-Shopify-Hmac-Sha256": hmac(secret, body, "base64") };
    case "hmac-sha256":
      return { "X-Signature": `sha256=${hmac(secret, body, "hex")}` };
    case "token-header":
      return { "X-Gitlab-Token": secret };
  }
}

/** Stripe's own multi-signature header (as sent while a secret is being rolled): one t, one v1 per secret. */
export function stripeHeaderForSecrets(body: string, secrets: string[], tsS: number): string {
  const sigs = secrets.map((secret) =>
    stripe.webhooks
      .generateTestHeaderString({ payload: body, secret, timestamp: tsS })
      .split(",")
      .find((p) => p.startsWith("v1="))!,
  );
  return [`t=${tsS}`, ...sigs].join(",");
}
