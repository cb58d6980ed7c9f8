// The text a page becomes, written piece by piece: whitespace collapsed, paragraph and line breaks
// merged (two blocks in a row make one blank line), and capped at a number of characters (past
// the cap the rest is dropped and `full` says so).
export class TextBuilder {
  private parts: string[] = [];
  length = 0;
  private pendingBreak = 0;
  private pendingSpace = false;
  private lastChar = "\n";
  full = false;

  constructor(private readonly maxChars: number) {}

  /** Ask for n newlines before the next text (1: new line, 2: new paragraph). */
  breakLine(n: 1 | 2): void {
    if (this.length > 0) this.pendingBreak = Math.max(this.pendingBreak, n);
    this.pendingSpace = false;
  }

  space(): void {
    if (this.pendingBreak === 0 && this.length > 0) this.pendingSpace = true;
  }

  /** Appends text verbatim (already decoded); whitespace runs collapse to one space. */
  text(raw: string): void {
    const collapsed = raw.replace(/\s+/g, " ");
    if (collapsed === "") return;
    const leading = collapsed.startsWith(" ");
    const body = collapsed.trim();
    if (leading) this.space();
    if (body !== "") this.write(body);
    if (collapsed.endsWith(" ") && body !== "") this.pendingSpace = true;
  }

  /** Appends a token exactly (markup such as "## ", "$$", "|"). */
  raw(token: string): void {
    this.write(token);
  }

  /** Where the next text will start, without writing the pending break (so later breaks still merge with it). */
  nextOffset(): number {
    if (this.length === 0) return 0;
    if (this.pendingBreak > 0) return this.length + this.pendingBreak;
    return this.length + (this.pendingSpace && this.lastChar !== " " && this.lastChar !== "\n" ? 1 : 0);
  }

  /** Flushes pending breaks and returns the offset where the next character will go. */
  mark(): number {
    this.flush();
    return this.length;
  }

  private flush(): void {
    if (this.pendingBreak > 0) {
      this.push("\n".repeat(this.pendingBreak));
      this.pendingBreak = 0;
    } else if (this.pendingSpace && this.lastChar !== " " && this.lastChar !== "\n") {
      this.push(" ");
    }
    this.pendingSpace = false;
  }

  private write(token: string): void {
    // A token that starts with a space makes a pending space redundant.
    if (token.startsWith(" ")) this.pendingSpace = false;
    this.flush();
    if (token.startsWith(" ") && this.lastChar === " ") token = token.slice(1);
    this.push(token);
  }

  private push(piece: string): void {
    if (this.full) return;
    const room = this.maxChars - this.length;
    if (piece.length > room) {
      piece = piece.slice(0, room);
      this.full = true;
    }
    if (piece === "") return;
    this.parts.push(piece);
    this.length += piece.length;
    this.lastChar = piece[piece.length - 1]!;
  }

  toString(): string {
    return this.parts.join("");
  }
}
