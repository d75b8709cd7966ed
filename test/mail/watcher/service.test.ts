/** createMailService: the watcher as a gateway service (hooks.mail.autoStart). */
import fs from "node:fs";
import path from "node:path";
import { createMailService, MAIL_SERVICE_ID } from "../../../src/mail/watcher/service";
import { resolveConfig, resolveHooksSecrets } from "../../../src/config/resolve";
import type { MailBatchPayload } from "../../../src/mail/watcher/mail-payload";
import { useMailFixture } from "../helpers/mail-fixture";
import { createTestLogger } from "../helpers/test-logger";
import { plainMessage } from "../helpers/messages";

const TOKEN = "service-test-token-0123456789abcdef";
const fx = useMailFixture("iw-mail-svc-");

const resolveWithToken = (raw: Record<string, unknown>, ctx: { configDir: string }) => resolveHooksSecrets(resolveConfig(raw, ctx), ctx);

function config(password: { env: string } | { file: string }) {
  const ctx = { configDir: fx.dir };
  const raw = {
    hooks: {
      enabled: true,
      token: TOKEN,
      presets: ["mail"],
      mail: {
        imap: { host: "127.0.0.1", port: fx.imap.port, tls: "none", user: fx.imap.user, password, mailbox: "INBOX" },
        hookUrl: fx.receiver.url,
        autoStart: true,
        pollSeconds: 3600,
      },
    },
  };
  return resolveHooksSecrets(resolveConfig(raw, ctx), ctx);
}

test("start runs the watcher in the background; stop ends it cleanly", async () => {
  fs.writeFileSync(path.join(fx.dir, "pw"), fx.imap.password);
  const log = createTestLogger();
  const svc = createMailService({ config: config({ file: "pw" }), stateDir: fx.dir, logger: log.logger, configDir: fx.dir });
  expect(svc.id).toBe(MAIL_SERVICE_ID);
  await svc.start();
  await fx.receiver.waitFor(
    () => log.lines.some((l) => l.message === "first start for this mailbox: only mail arriving from now on is sent"),
    "the first checkpoint",
  );
  const m = plainMessage("service", "x");
  await fx.imap.append(m.raw);
  await fx.receiver.waitFor(() => fx.receiver.accepted().length === 1, "the message");
  expect((fx.receiver.accepted()[0]!.body as MailBatchPayload).messages[0]!.id).toBe(m.id);
  await svc.stop();
  expect(log.lines.find((l) => l.message === "mail watcher stopped")?.meta).toMatchObject({ rejected: 0 });
});

test("without hooks.mail.hookUrl the service posts to this gateway's own port (regression: it posted to 18789 whatever gateway.port said)", async () => {
  const port = Number(new URL(fx.receiver.url).port);
  const log = createTestLogger();
  const resolved = resolveWithToken(
    {
      gateway: { port },
      hooks: {
        enabled: true,
        token: TOKEN,
        presets: ["mail"],
        mail: {
          imap: { host: "127.0.0.1", port: fx.imap.port, tls: "none", user: fx.imap.user, password: { env: "SVC_PW" }, mailbox: "INBOX" },
          autoStart: true,
          pollSeconds: 3600,
        },
      },
    },
    { configDir: fx.dir },
  );
  const svc = createMailService({ config: resolved, stateDir: fx.dir, logger: log.logger, watcher: { env: { SVC_PW: fx.imap.password } } });
  await svc.start();
  expect(log.lines.find((l) => l.message === "mail watcher starting")?.meta).toMatchObject({ hookUrl: fx.receiver.url });
  await fx.receiver.waitFor(
    () => log.lines.some((l) => l.message === "first start for this mailbox: only mail arriving from now on is sent"),
    "the first checkpoint",
  );
  const m = plainMessage("own port", "x");
  await fx.imap.append(m.raw);
  await fx.receiver.waitFor(() => fx.receiver.accepted().length === 1, "the message");
  expect((fx.receiver.accepted()[0]!.body as MailBatchPayload).messages[0]!.id).toBe(m.id);
  await svc.stop();
});

test("a fatal error (password variable unset) stops only the watcher, with one error line", async () => {
  const log = createTestLogger();
  const svc = createMailService({ config: config({ env: "SVC_PW_UNSET_FOR_TEST" }), stateDir: fx.dir, logger: log.logger });
  await svc.start();
  await fx.receiver.waitFor(() => log.lines.some((l) => l.message === "mail watcher stopped on an error"), "the error line");
  expect(log.lines.find((l) => l.message === "mail watcher stopped on an error")).toMatchObject({
    level: "error",
    meta: {
      code: "password_unavailable",
      error: "hooks.mail.imap.password refers to environment variable SVC_PW_UNSET_FOR_TEST, which is not set (or empty) for this process.",
    },
  });
  await svc.stop();
});

test("without hooks.mail the service only warns", async () => {
  const log = createTestLogger();
  const ctx = { configDir: fx.dir };
  const svc = createMailService({
    config: resolveHooksSecrets(resolveConfig({ hooks: { enabled: true, token: TOKEN } }, ctx), ctx),
    stateDir: fx.dir,
    logger: log.logger,
  });
  await svc.start();
  await svc.stop();
  expect(log.lines.map((l) => [l.level, l.message])).toEqual([["warn", "hooks.mail.autoStart needs hooks.mail; run `gateway webhooks mail setup` first"]]);
});
