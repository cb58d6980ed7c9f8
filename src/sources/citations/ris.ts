// CitationRecord -> RIS (EndNote, Zotero, Mendeley import). Tags as the RIS specification lists
// them: GEN for an arXiv preprint, JOUR once published, RPRT for an NBER working paper.
import type { CitationRecord } from "./record";

const line = (tag: string, value: string) => `${tag}  - ${value.replace(/\s+/g, " ").trim()}`;

export function toRis(record: CitationRecord, key: string): string {
  const lines: string[] = [];
  const type = record.kind === "nber" ? "RPRT" : record.publishedAs ? "JOUR" : "GEN";
  lines.push(line("TY", type));
  lines.push(line("ID", key));
  lines.push(line("TI", record.title));
  for (const name of record.authors) {
    const text = name.literal ?? [name.family, name.given, name.suffix].filter(Boolean).join(", ");
    if (text) lines.push(line("AU", text));
  }
  const published = record.journal?.year ?? null;
  if (published !== null) lines.push(line("PY", String(published)));
  else if (record.year !== null) {
    lines.push(line("PY", String(record.year)));
    lines.push(line("DA", `${record.year}/${record.month === null ? "" : String(record.month).padStart(2, "0")}//`));
  }
  if (record.kind === "arxiv") {
    if (record.journal) {
      lines.push(line("T2", record.journal.name));
      lines.push(line("VL", record.journal.volume));
      if (record.journal.issue) lines.push(line("IS", record.journal.issue));
      lines.push(line("SP", record.journal.firstPage));
      if (record.journal.lastPage) lines.push(line("EP", record.journal.lastPage));
    } else if (record.publishedAs) lines.push(line("T2", record.publishedAs));
    lines.push(line("PB", "arXiv"));
    lines.push(
      line("M1", `arXiv:${record.eprint!.id}${record.eprint!.version === null ? "" : `v${record.eprint!.version}`}`),
    );
  } else {
    lines.push(line("PB", record.report!.institution));
    lines.push(line("T2", record.report!.series));
    lines.push(line("SN", record.report!.number));
  }
  if (record.doi) lines.push(line("DO", record.doi));
  lines.push(line("UR", record.url));
  const notes = [`Source: ${record.source}`];
  if (record.kind === "arxiv") notes.push(`arXiv:${record.eprint!.id} [${record.eprint!.primaryClass}]`);
  if (record.doi !== record.sourceDoi && record.sourceDoi) notes.push(`arXiv DOI: ${record.sourceDoi}`);
  if (record.kind === "nber" && record.publishedAs) notes.push(`Published as: ${record.publishedAs}`);
  lines.push(line("N1", notes.join(". ")));
  lines.push("ER  - ");
  return lines.join("\n");
}
