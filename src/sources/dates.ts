// Calendar days as tools take them (YYYY-MM-DD, UTC), shared by every source.
import { PapersError } from "../errors";

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Validates YYYY-MM-DD as a real calendar day; returns YYYYMMDD. */
export function parseDay(value: string, field: string, { minYear = 1900 }: { minYear?: number } = {}): string {
  const match = DAY.exec(value);
  const valid =
    match !== null &&
    (() => {
      const [, y, m, d] = match.map(Number) as [number, number, number, number];
      const date = new Date(Date.UTC(y, m - 1, d));
      return (
        date.getUTCFullYear() === y &&
        date.getUTCMonth() === m - 1 &&
        date.getUTCDate() === d &&
        y >= minYear &&
        y <= 2100
      );
    })();
  if (!valid) {
    throw new PapersError(
      "invalid_date",
      `${field} ${JSON.stringify(value.slice(0, 40))} is not a real day as YYYY-MM-DD.`,
      {
        recovery: `Give ${field} as YYYY-MM-DD (UTC), a real day from ${minYear} on, e.g. 2024-01-31.`,
      },
    );
  }
  return value.replaceAll("-", "");
}
