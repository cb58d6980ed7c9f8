// Who may sign in (AUTH_MODE=oauth): any one match admits. With nothing configured nobody is
// admitted: an operator who forgot the allowlist has a closed server, not an open one.
import type { Config } from "../config";
import type { SignedInUser } from "./identity-provider";

export type Admission = { admitted: true; by: string } | { admitted: false; why: string };

export function admits(config: Config, user: SignedInUser): Admission {
  const logins = config.OAUTH_ALLOWED_GITHUB_LOGINS;
  const orgs = config.OAUTH_ALLOWED_GITHUB_ORGS;
  const emails = config.OAUTH_ALLOWED_EMAILS;
  const domains = config.OAUTH_ALLOWED_EMAIL_DOMAINS;
  if (logins.length + orgs.length + emails.length + domains.length === 0)
    return { admitted: false, why: "This server admits nobody yet: its operator has configured no allowlist." };
  if (user.githubLogin && logins.includes(user.githubLogin)) return { admitted: true, by: "GitHub login" };
  const org = user.githubOrgs.find((name) => orgs.includes(name));
  if (org) return { admitted: true, by: `GitHub organization ${org}` };
  if (user.verifiedEmails.some((email) => emails.includes(email))) return { admitted: true, by: "email address" };
  const domain = user.verifiedEmails
    .map((email) => email.slice(email.lastIndexOf("@") + 1))
    .find((d) => domains.includes(d));
  if (domain) return { admitted: true, by: `email domain ${domain}` };
  return { admitted: false, why: "Your account is not on this server's allowlist." };
}
