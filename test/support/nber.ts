// The NBER mirror rows the tests seed: real records from data/nberwp (CC0).
import { env } from "cloudflare:workers";
import { upsertMirror } from "../../src/store/nber-mirror";

export const NBER_SEED = [
  { id: "w0001", title: "Education, Information, and Efficiency", authors: ["Finis Welch"], date: "1973-06" },
  {
    id: "w10000",
    title: "Trade Wars: The Exaggerated Impact of Trade in Economic Debate",
    authors: ["Richard B Freeman"],
    date: "2003-10",
  },
  {
    id: "w25000",
    title: "The Intergenerational Transmission of Human Capital: Evidence from the Golden Age of Upward Mobility",
    authors: ["David Card", "Lowell J Taylor", "Ciprian Domnisoru"],
    date: "2018-09",
  },
  {
    id: "w29623",
    title: "Worker Beliefs About Outside Options",
    authors: ["Christopher P Roth", "Benjamin Schoefer", "Simon Jager", "Nina Roussille"],
    date: "2021-12",
  },
  {
    id: "w29624",
    title: "The Political Economy of Anti-Bribery Enforcement",
    authors: ["Lauren H Cohen", "Bo Li"],
    date: "2021-12",
  },
].map((paper) => ({ ...paper, abstract: null, source: "nberwp" as const }));

/** The paper the reference tests cite in every style (real nberwp record): Neumark and Wascher, NBER WP 4679. */
export const MINIMUM_WAGE_PAPER = {
  id: "w4679",
  title: "Minimum Wage Effects on Employment and School Enrollment",
  authors: ["David Neumark", "William Wascher"],
  date: "1994-03",
  abstract: null,
  source: "nberwp" as const,
};

export const seedNberMirror = () => upsertMirror(env.DB, NBER_SEED);
