// Tables as Markdown rows ("| a | b |", a separator after the first row); an equation laid out
// as a table (LaTeXML's ltx_equation) is not a table: its maths comes through math.ts alone.
import type { ChainHandler, Opened, ReaderState } from "./state";

const EQUATION_TABLE = /\bltx_(equation|eqn_table|equationgroup)\b/;

export const TABLE_SELECTORS = ["table", "tr", "td", "th"];

export const openRow: ChainHandler = (state, { tag, ends }) => {
  if (tag !== "tr") return false;
  const { out } = state;
  const table = state.tables.at(-1);
  if (table) {
    table.cells = 0;
    out.breakLine(1);
    if (!table.equation) {
      out.raw("|");
      ends.push(() => {
        table.rows++;
        if (table.rows !== 1) return;
        table.firstRowCells = Math.max(1, table.cells);
        out.breakLine(1);
        out.raw(`|${"---|".repeat(table.firstRowCells)}`);
      });
    }
  }
  return true;
};

export const openCell: ChainHandler = (state, { tag, ends }) => {
  if (tag !== "td" && tag !== "th") return false;
  const table = state.tables.at(-1);
  if (table && !table.equation) {
    table.cells++;
    state.out.raw(" ");
    ends.push(() => state.out.raw(" |"));
  }
  return true;
};

/** A table (or an equation's layout table) opens: its rows and cells are counted in it. */
export function openTable(state: ReaderState, { tag, classes, ends }: Opened, active: boolean): void {
  if (tag !== "table") return;
  const table = { equation: EQUATION_TABLE.test(classes.join(" ")), rows: 0, cells: 0, firstRowCells: 0 };
  state.tables.push(table);
  if (active) state.out.breakLine(2);
  ends.push(() => {
    state.tables.pop();
    if (state.skipDepth === 0) state.out.breakLine(2);
  });
}
