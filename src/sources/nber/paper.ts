// The NBER records our tools return.
import { z } from "zod";

export const PUBLIC_NBER = "https://www.nber.org";

export const nberPaperSchema = z.object({
  id: z.string(),
  title: z.string(),
  authors: z.array(z.string()),
  date: z.string().nullable(),
  abstract: z.string().nullable(),
  url: z.string(),
});
export type NberPaper = z.infer<typeof nberPaperSchema>;

export const nberPaperInfoSchema = nberPaperSchema.extend({
  pdf_url: z.string(),
  doi: z.string().nullable(),
  topics: z.array(z.string()).optional(),
  programs: z.array(z.string()).optional(),
  jel_codes: z.array(z.string()).optional(),
  published_version: z.string().optional(),
});
export type NberPaperInfo = z.infer<typeof nberPaperInfoSchema>;

export const paperUrl = (id: string) => `${PUBLIC_NBER}/papers/${id}`;

/** HTML fragment -> plain text (tags dropped, entities decoded, whitespace collapsed). */
export function plainText(html: string, decode: (text: string) => string): string {
  return decode(html.replace(/<[^>]*>/g, " "))
    .replace(/\s+/g, " ")
    .trim();
}
