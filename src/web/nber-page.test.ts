// An NBER paper's page: NBER's records are plain text, so a title's or an abstract's dollar
// amounts are money, never a formula (w28321's real title has two).
import { describe, expect, it } from "vitest";
import { type NberRecord, renderNberPage } from "./nber-page";

const TITLE =
  "Did the $660 Billion Paycheck Protection Program and $220 Billion Economic Injury Disaster Loan Program Get Disbursed to Minority Communities in the Early Stages of COVID-19?";

describe("an NBER paper's page", () => {
  it("shows a title and an abstract with dollar amounts as written, with no maths", async () => {
    const paper = {
      id: "w28321",
      title: TITLE,
      authors: ["Robert W. Fairlie", "Frank M. Fossen"],
      abstract: "Lenders gave $1.2 million to one and $40,000 to another; x_1 stays x_1.",
      links: [],
      url: "https://www.nber.org/papers/w28321",
      pdf_url: "https://www.nber.org/system/files/working_papers/w28321/w28321.pdf",
      notices: [],
      served_from: "upstream",
    } as unknown as NberRecord;
    const page = String(await renderNberPage(paper, "@techreport{x, title = {x}}"));
    expect(page).not.toContain("<math");
    expect(page).toContain(`<title>${TITLE}`);
    expect(page).toContain("$660 Billion Paycheck Protection Program and $220 Billion");
    expect(page).toContain("$1.2 million to one and $40,000 to another; x_1 stays x_1.");
  });
});
