// Debian's Chromium for the page tests and bench:pages, driven by playwright-core (whose own browser download
// cannot be fetched here). Flags: headless, no sandbox (CI runs as root), and none of Chromium's
// background connections, which a closed network refuses many at a time.
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return existsSync(CHROMIUM_PATH)
    ? null
    : `${CHROMIUM_PATH} is not installed (Debian's chromium package; .ci/run installs it)`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

/** A page's load as the browser measured it: time to first byte, full load, and the bytes transferred. */
export interface PageTiming {
  ttfb_ms: number;
  load_ms: number;
  bytes: number;
}

export const NAVIGATION_TIMING = `(() => {
  const nav = performance.getEntriesByType("navigation")[0];
  return { ttfb_ms: nav.responseStart - nav.startTime, load_ms: nav.loadEventEnd - nav.startTime, bytes: nav.decodedBodySize };
})()`;
