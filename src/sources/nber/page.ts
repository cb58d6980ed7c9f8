// An NBER paper page -> paper info, from its citation_* meta tags and its sections (abstract,
// Published Versions, the Topics / Programs / JEL info-grid). Streams through HTMLRewriter.
import { decodeHTML, decodeHTMLAttribute } from "entities";
import { ToolError } from "../../errors";
import { politeFetch, readBytesCapped } from "../../upstream/fetch";
import type { NberId } from "./ids";
import { paperUrl, PUBLIC_NBER, type NberPaperInfo } from "./paper";

/** citation_author is "Last, First" on NBER pages; show "First Last". */
function displayName(author: string): string {
  const [last, first] = author.split(/,\s*/, 2);
  return first ? `${first} ${last}` : author;
}

export async function fetchPaperPage(env: Env, id: NberId, deadline?: number): Promise<NberPaperInfo | undefined> {
  const response = await politeFetch(env, "nber", `/papers/${id.id}`, { retries: 2, ...(deadline === undefined ? {} : { deadline }) });
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  const html = new TextDecoder().decode(await readBytesCapped(response, 5_000_000, "upstream_malformed", "NBER's paper page"));
  return parsePaperPage(html, id);
}

export async function parsePaperPage(html: string, id: NberId): Promise<NberPaperInfo> {
  const meta: Record<string, string[]> = {};
  let abstractParts: string[] | null = null;
  const abstract: string[] = [];
  let inPublishedHeading = false;
  let headingParts: string[] = [];
  let publishedNext = false;
  let published: string[] | null = null;
  const publishedText: string[] = [];
  const grid: Record<string, string[]> = {};
  let gridTitle: string[] | null = null;
  let currentGrid: string | null = null;
  let gridItem: string[] | null = null;

  // Each element below matches one handler that registers an end-tag callback: HTMLRewriter keeps
  // only the last such callback per element.
  await new HTMLRewriter()
    .on("meta[name^='citation_']", {
      element(element) {
        const name = element.getAttribute("name")!;
        const content = decodeHTMLAttribute(element.getAttribute("content") ?? "").trim();
        if (content) (meta[name] ??= []).push(content);
      },
    })
    .on(".page-header__intro-inner p", {
      element(element) {
        abstractParts = [];
        element.onEndTag(() => {
          abstract.push((abstractParts ?? []).join(""));
          abstractParts = null;
        });
      },
      text(chunk) {
        abstractParts?.push(chunk.text);
      },
    })
    .on("h2", {
      element(element) {
        inPublishedHeading = true;
        const parts: string[] = [];
        element.onEndTag(() => {
          inPublishedHeading = false;
          publishedNext = /published versions?/i.test(parts.join(""));
        });
        headingParts = parts;
      },
      text(chunk) {
        if (inPublishedHeading) headingParts.push(chunk.text);
      },
    })
    .on("p", {
      element(element) {
        if (!publishedNext || publishedText.length > 0) return;
        publishedNext = false;
        published = [];
        element.onEndTag(() => {
          publishedText.push((published ?? []).join(""));
          published = null;
        });
      },
      text(chunk) {
        published?.push(chunk.text);
      },
    })
    .on(".info-grid__item-title", {
      element(element) {
        gridTitle = [];
        element.onEndTag(() => {
          currentGrid = decodeHTML((gridTitle ?? []).join("")).trim();
          gridTitle = null;
          grid[currentGrid] ??= [];
        });
      },
      text(chunk) {
        gridTitle?.push(chunk.text);
      },
    })
    .on(".info-grid__item li", {
      element(element) {
        gridItem = [];
        element.onEndTag(() => {
          const text = decodeHTML((gridItem ?? []).join("")).replace(/\s+/g, " ").trim();
          if (currentGrid && text) grid[currentGrid]!.push(text);
          gridItem = null;
        });
      },
      text(chunk) {
        gridItem?.push(chunk.text);
      },
    })
    .transform(new Response(html))
    .arrayBuffer();

  const title = meta["citation_title"]?.[0];
  if (!title) {
    throw new ToolError("upstream_malformed", `NBER's page for ${id.id} has no citation metadata (perhaps a bot check or an error page).`, {
      retryable: true,
      recovery: "Retry later, or open the paper page in a browser.",
    });
  }
  const number = meta["citation_technical_report_number"]?.[0];
  if (number && number.toLowerCase() !== id.id) {
    throw new ToolError("upstream_malformed", `NBER's page for ${id.id} describes ${number}.`, { retryable: true, recovery: "Retry later." });
  }
  const clean = (text: string) => decodeHTML(text).replace(/\s+/g, " ").trim();
  const abstractText = clean(abstract.join(" "));
  const dateRaw = meta["citation_publication_date"]?.[0] ?? "";
  const date = /^\d{4}[/-]\d{2}[/-]\d{2}$/.test(dateRaw) ? dateRaw.replaceAll("/", "-") : null;
  const pick = (...names: string[]) => names.map((name) => grid[name]).find((items) => items && items.length > 0);
  const topics = pick("Topics", "Topic");
  const programs = pick("Programs", "Program");
  const jel = pick("JEL Codes", "JEL Code", "JEL");
  const publishedVersion = publishedText.length > 0 ? clean(publishedText[0]!) : "";
  const pdf = meta["citation_pdf_url"]?.[0];
  return {
    id: id.id,
    title,
    authors: (meta["citation_author"] ?? []).map(displayName),
    date,
    abstract: abstractText === "" ? null : abstractText,
    url: paperUrl(id.id),
    pdf_url: pdf && pdf.startsWith(`${PUBLIC_NBER}/`) ? pdf : `${PUBLIC_NBER}/papers/${id.id}.pdf`,
    doi: meta["citation_doi"]?.[0] ?? null,
    ...(topics ? { topics } : {}),
    ...(programs ? { programs } : {}),
    ...(jel ? { jel_codes: jel } : {}),
    ...(publishedVersion ? { published_version: publishedVersion } : {}),
  };
}
