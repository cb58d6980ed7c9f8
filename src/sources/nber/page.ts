// An NBER paper page -> paper info, from its citation_* meta tags and its sections (abstract,
// Published Versions, the Topics / Programs / JEL info-grid). Streams through HTMLRewriter.
import { decodeHTML, decodeHTMLAttribute } from "entities";
import { PapersError } from "../../errors";
import { coalesce } from "../../upstream/coalesce";
import { politeFetch, readBytesCapped } from "../../upstream/fetch";
import type { NberId } from "./ids";
import { paperUrl, PUBLIC_NBER, type NberPaperInfo } from "./paper";
import type { AppContext } from "../../context";

/** citation_author is "Last, First" on NBER pages; show "First Last". */
function displayName(author: string): string {
  const [last, first] = author.split(/,\s*/, 2);
  return first ? `${first} ${last}` : author;
}

export async function fetchPaperPage(
  ctx: AppContext,
  id: NberId,
  deadline?: number,
): Promise<NberPaperInfo | undefined> {
  // Concurrent lookups of one paper share one request (and one parse).
  return coalesce(`nber:page:${id.id}`, async () => {
    const response = await politeFetch(ctx, "nber", `/papers/${id.id}`, {
      retries: 2,
      ...(deadline === undefined ? {} : { deadline }),
    });
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    const html = new TextDecoder().decode(
      await readBytesCapped(response, 5_000_000, "upstream_malformed", "NBER's paper page"),
    );
    return parsePaperPage(html, id);
  });
}

/**
 * Handlers that collect the text of each matching element and hand it to `done` at its end tag;
 * `when` can decline an element (then its text is not collected).
 */
function collectText(
  done: (text: string) => void,
  when: () => boolean = () => true,
): HTMLRewriterElementContentHandlers {
  let parts: string[] | null = null;
  return {
    element(element) {
      if (!when()) return;
      const mine: string[] = [];
      parts = mine;
      element.onEndTag(() => {
        parts = null;
        done(mine.join(""));
      });
    },
    text(chunk) {
      parts?.push(chunk.text);
    },
  };
}

/** What one pass over an NBER paper page collects: its citation metadata, abstract, published version and info grid. */
interface PageFields {
  meta: Record<string, string[]>;
  abstract: string[];
  publishedText: string[];
  grid: Record<string, string[]>;
}

export async function parsePaperPage(html: string, id: NberId): Promise<NberPaperInfo> {
  return paperInfo(await readPage(html), id);
}

async function readPage(html: string): Promise<PageFields> {
  const meta: Record<string, string[]> = {};
  const abstract: string[] = [];
  let publishedNext = false;
  const publishedText: string[] = [];
  const grid: Record<string, string[]> = {};
  let currentGrid: string | null = null;

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
    .on(
      ".page-header__intro-inner p",
      collectText((text) => abstract.push(text)),
    )
    // The paragraph right after a "Published Versions" heading is the published version.
    .on(
      "h2",
      collectText((text) => void (publishedNext = /published versions?/i.test(text))),
    )
    .on(
      "p",
      collectText(
        (text) => publishedText.push(text),
        () => {
          const take = publishedNext && publishedText.length === 0;
          publishedNext = false;
          return take;
        },
      ),
    )
    .on(
      ".info-grid__item-title",
      collectText((text) => {
        currentGrid = decodeHTML(text).trim();
        grid[currentGrid] ??= [];
      }),
    )
    .on(
      ".info-grid__item li",
      collectText((text) => {
        const item = decodeHTML(text).replace(/\s+/g, " ").trim();
        if (currentGrid && item) grid[currentGrid]!.push(item);
      }),
    )
    .transform(new Response(html))
    .arrayBuffer();
  return { meta, abstract, publishedText, grid };
}

/** The paper's info from the page's fields; a page without citation metadata, or about another paper, is refused. */
function paperInfo({ meta, abstract, publishedText, grid }: PageFields, id: NberId): NberPaperInfo {
  const title = meta["citation_title"]?.[0];
  if (!title) {
    throw new PapersError(
      "upstream_malformed",
      `NBER's page for ${id.id} has no citation metadata (perhaps a bot check or an error page).`,
      {
        retryable: true,
        recovery: "Retry later, or open the paper page in a browser.",
      },
    );
  }
  const number = meta["citation_technical_report_number"]?.[0];
  if (number && number.toLowerCase() !== id.id) {
    throw new PapersError("upstream_malformed", `NBER's page for ${id.id} describes ${number}.`, {
      retryable: true,
      recovery: "Retry later.",
    });
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
    pdf_url: pdf?.startsWith(`${PUBLIC_NBER}/`) ? pdf : `${PUBLIC_NBER}/papers/${id.id}.pdf`,
    doi: meta["citation_doi"]?.[0] ?? null,
    ...(topics ? { topics } : {}),
    ...(programs ? { programs } : {}),
    ...(jel ? { jel_codes: jel } : {}),
    ...(publishedVersion ? { published_version: publishedVersion } : {}),
  };
}
