/**
 * The throwaway dovecot configuration of the mail tests: who the processes run as
 * (root or not) and the config file itself (maildir in the temp dir, a passwd-file
 * user with a plain password, no TLS, loopback only, logs on stderr, no chroot).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Accounts {
  internalUser: string;
  internalGroup: string;
  loginUser: string;
  mailUid: number;
  mailGid: number;
}

export function accounts(): Accounts {
  const me = os.userInfo();
  if (me.uid !== 0) {
    const group = execFileSync("id", ["-gn"], { encoding: "utf8" }).trim();
    return { internalUser: me.username, internalGroup: group, loginUser: me.username, mailUid: me.uid, mailGid: me.gid };
  }
  // As root, dovecot needs its unprivileged users (created by the Debian package) and
  // refuses to store mail as root: the mail belongs to "nobody".
  const uidOf = (u: string): number => Number(execFileSync("id", ["-u", u], { encoding: "utf8" }).trim());
  for (const u of ["dovecot", "dovenull"]) {
    try {
      uidOf(u);
    } catch {
      throw new Error(`dovecot's system user "${u}" is missing; reinstall dovecot-core (apt-get install --reinstall dovecot-core).`);
    }
  }
  const nobody = uidOf("nobody");
  const nogroup = Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" }).trim());
  return { internalUser: "dovecot", internalGroup: "dovecot", loginUser: "dovenull", mailUid: nobody, mailGid: nogroup };
}

export function writeConfig(dir: string, port: number, user: string, password: string, acc: Accounts, capability?: string): string {
  const mailDir = path.join(dir, "mail");
  fs.mkdirSync(path.join(dir, "run"), { recursive: true });
  fs.mkdirSync(path.join(dir, "state"), { recursive: true });
  fs.mkdirSync(mailDir, { recursive: true });
  fs.chmodSync(dir, 0o755);
  fs.chownSync(mailDir, acc.mailUid, acc.mailGid);
  fs.writeFileSync(path.join(dir, "users"), `${user}:{PLAIN}${password}::::::nodelay=yes\n`, { mode: 0o644 });
  const conf = `# throwaway test config (test/mail/helpers/dovecot.ts)
protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = inbound-webhooks-test-${port}
log_path = /dev/stderr
info_log_path = /dev/stderr
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
# Fail wrong logins at once: no failure delay (nodelay in the users file, auth_failure_delay)
# and no per-IP auth penalty (the anvil-auth-penalty listener is disabled below).
auth_failure_delay = 0
mail_location = maildir:${mailDir}/%u
${capability ? `imap_capability = ${capability}` : ""}
first_valid_uid = 1
first_valid_gid = 1
default_internal_user = ${acc.internalUser}
default_internal_group = ${acc.internalGroup}
default_login_user = ${acc.loginUser}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = passwd-file
  args = username_format=%u ${dir}/users
  default_fields = uid=${acc.mailUid} gid=${acc.mailGid} home=${mailDir}/%u
}
# No chroot: it needs root, and the tests may run unprivileged.
service anvil {
  chroot =
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service pop3-login {
  inet_listener pop3 {
    port = 0
  }
  inet_listener pop3s {
    port = 0
  }
}
`;
  const file = path.join(dir, "dovecot.conf");
  fs.writeFileSync(file, conf);
  return file;
}
