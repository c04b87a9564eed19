// What the fuzz agent knows about the lines it sends and the answers it gets, from their bytes alone: which lines
// are requests that must be answered (and under which id, compared as the raw text that went out), and a ledger
// that matches answers to them. Nothing here uses src/acp: the agent judges the client as an independent peer.

/** The error codes an ACP client may answer with: JSON-RPC's own, plus ACP's. */
const SPEC_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32603, -32800, -32000, -32002]);

/** What the client sees in one line, and so what it owes us. */
export type LineKind =
  | { readonly kind: 'nothing' } // blank, not JSON, not an object, a notification or a response: no answer is due
  | { readonly kind: 'request'; readonly key: string; readonly raw: string; readonly method: string }
  | { readonly kind: 'null-id' } // a request whose id is null: one answer with id null is due
  | { readonly kind: 'bad-id' } // a request whose id is an object, array or boolean: -32600 with id null is due
  | { readonly kind: 'optional'; readonly key?: string }; // an id with neither method nor result: answer or not

/** Splits bytes into lines at LF (a trailing CR is dropped later, as the client does) and classifies each. */
function classifyLines(bytes: Buffer): LineKind[] {
  const kinds: LineKind[] = [];
  let start = 0;
  for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
    kinds.push(classify(bytes.toString('utf8', start, nl)));
    start = nl + 1;
  }
  if (start < bytes.length) kinds.push(classify(bytes.toString('utf8', start)));
  return kinds;
}

function classify(line: string): LineKind {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'nothing' };
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return { kind: 'nothing' };
  const m = message as Record<string, unknown>;
  if (!Object.hasOwn(m, 'id')) return { kind: 'nothing' };
  const id = m['id'];
  const method = m['method'];
  const isResponse = Object.hasOwn(m, 'result') || Object.hasOwn(m, 'error');
  if (typeof id === 'string' || typeof id === 'number') {
    const raw = rawMember(text, 'id') ?? JSON.stringify(id);
    const key = idKey(raw);
    if (typeof method === 'string' || (Object.hasOwn(m, 'method') && !isResponse)) return { kind: 'request', key, raw, method: String(method) };
    return isResponse ? { kind: 'nothing' } : { kind: 'optional', key };
  }
  if (typeof method !== 'string') return isResponse ? { kind: 'nothing' } : { kind: 'optional' };
  return id === null ? { kind: 'null-id' } : { kind: 'bad-id' };
}

/**
 * What identifies an id: a string by its value, an integer by its exact digits (so 2^60 + 1 does not pass for
 * 2^60), any other number by its value. `8` and `"8"` differ.
 */
function idKey(raw: string): string {
  if (raw.startsWith('"')) return `s:${JSON.parse(raw) as string}`;
  if (/^-?\d+$/.test(raw)) return `n:${BigInt(raw)}`;
  return `n:${Number(raw)}`;
}

/**
 * The raw text of a top-level member's value in a JSON object (the last one, as JSON.parse keeps the last of
 * duplicated keys), or undefined. `text` must be valid JSON. Iterative: values may be nested thousands deep.
 */
function rawMember(text: string, name: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return undefined;
  let found: string | undefined;
  i = skipSpace(text, i + 1);
  while (i < text.length && text[i] !== '}') {
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    const end = valueEnd(text, i);
    if (key === name) found = text.slice(i, end);
    i = skipSpace(text, end);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return found;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return i;
}

/** The index just past the string that starts (with its quote) at `i`. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length;) {
    const quote = text.indexOf('"', j);
    if (quote === -1) return text.length;
    let backslashes = 0;
    for (let k = quote - 1; k > i && text[k] === '\\'; k--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    j = quote + 1;
  }
  return text.length;
}

function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return stringEnd(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text[j];
      if (d === '"') j = stringEnd(text, j) - 1;
      else if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        if (--depth === 0) return j + 1;
      }
    }
    return text.length;
  }
  let j = i;
  while (j < text.length && !',}] \t\r\n'.includes(text[j] as string)) j++;
  return j;
}

// ---- the ledger ----------------------------------------------------------------------------------------------------

export interface CategoryFigures {
  /** Messages (units) of this category sent. */
  sent: number;
  /** Requests with a usable id, each owed one answer under its id. */
  owed: number;
  answered: number;
  /** Requests with id null or a malformed id, owed an answer with id null. */
  owedNull: number;
  /** Answers by outcome: "ok" for a result, the code for an error. */
  outcomes: Record<string, number>;
}

interface Expected {
  readonly owed: number;
  got: number;
  /** Another request reused the id (a mutation can turn one id into another): its answers are not judged. */
  reused: boolean;
  readonly method: string;
  readonly category: string;
  readonly raw: string;
}

export interface LedgerReport {
  readonly categories: Record<string, CategoryFigures>;
  readonly unanswered: number;
  readonly unansweredExamples: string[];
  readonly nullId: {
    readonly nullIdRequests: number;
    readonly badIdRequests: number;
    readonly answers: Record<string, number>;
    readonly missing: number;
  };
  readonly outOfSpecCodes: number;
  readonly outOfSpecExamples: string[];
  readonly duplicated: number;
  readonly duplicatedExamples: string[];
  readonly changed: number;
  readonly changedExamples: string[];
  readonly optionalAnswered: number;
  readonly reusedIds: number;
  readonly malformedAnswers: number;
  readonly malformedExamples: string[];
}

const EXAMPLES = 5;
const short = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

/** Matches the client's answers to what we sent. */
export class Ledger {
  private readonly expected = new Map<string, Expected>();
  private readonly optional = new Set<string>();
  private readonly categories: Record<string, CategoryFigures> = {};
  private nullIdRequests = 0;
  private badIdRequests = 0;
  private readonly nullAnswers: Record<string, number> = {};
  private outstanding = 0;
  private outOfSpec = 0;
  private readonly outOfSpecExamples: string[] = [];
  private duplicated = 0;
  private readonly duplicatedExamples: string[] = [];
  private changed = 0;
  private readonly changedExamples: string[] = [];
  private optionalAnswered = 0;
  private reusedIds = 0;
  private malformed = 0;
  private readonly malformedExamples: string[] = [];
  /** Ids of requests someone else (the Peer) sent and matches: their answers are not ours to judge. */
  readonly ignored = new Set<string>();

  private figures(category: string): CategoryFigures {
    return (this.categories[category] ??= { sent: 0, owed: 0, answered: 0, owedNull: 0, outcomes: {} });
  }

  /** Records one message about to be sent: what each of its lines makes the client owe. */
  sent(bytes: Buffer, category: string): LineKind[] {
    const figures = this.figures(category);
    figures.sent++;
    const kinds = classifyLines(bytes);
    for (const kind of kinds) {
      if (kind.kind === 'request') {
        const entry = this.expected.get(kind.key);
        if (entry) {
          // An id sent before: which of the two an answer is for cannot be told, so only the first is owed.
          entry.reused = true;
          this.reusedIds++;
        } else {
          figures.owed++;
          this.outstanding++;
          this.expected.set(kind.key, { owed: 1, got: 0, reused: false, method: kind.method, category, raw: kind.raw });
        }
      } else if (kind.kind === 'null-id' || kind.kind === 'bad-id') {
        figures.owedNull++;
        if (kind.kind === 'null-id') this.nullIdRequests++;
        else this.badIdRequests++;
      } else if (kind.kind === 'optional' && kind.key !== undefined) {
        this.optional.add(kind.key);
      }
    }
    return kinds;
  }

  /**
   * Takes one line the client sent. Returns the key of the request it answers (for follow-ups), or undefined when
   * it is not an answer to one of ours.
   */
  received(line: string): { key: string; message: Record<string, unknown> } | undefined {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text.trim() === '') return undefined;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      this.malformedAnswer(text);
      return undefined;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.malformedAnswer(text);
      return undefined;
    }
    if (typeof message['method'] === 'string') return undefined; // the client's own request or notification
    const hasResult = Object.hasOwn(message, 'result');
    const error = message['error'] as Record<string, unknown> | undefined;
    const hasError = Object.hasOwn(message, 'error');
    if (hasResult === hasError || (hasError && (error === null || typeof error !== 'object'))) this.malformedAnswer(text);
    let outcome = 'ok';
    if (hasError) {
      const code = error?.['code'];
      outcome = String(code);
      if (typeof code !== 'number' || !SPEC_CODES.has(code)) {
        this.outOfSpec++;
        if (this.outOfSpecExamples.length < EXAMPLES) this.outOfSpecExamples.push(short(text, 160));
      }
    }
    const raw = rawMember(text, 'id');
    if (raw === undefined || raw === 'null') {
      this.nullAnswers[outcome] = (this.nullAnswers[outcome] ?? 0) + 1;
      return undefined;
    }
    let key: string;
    try {
      key = idKey(raw);
    } catch {
      key = `?:${raw}`;
    }
    if (this.ignored.has(key)) return undefined;
    const entry = this.expected.get(key);
    if (!entry) {
      if (this.optional.has(key)) this.optionalAnswered++;
      else {
        this.changed++;
        if (this.changedExamples.length < EXAMPLES) this.changedExamples.push(`answer with id ${short(raw)}, never sent`);
      }
      return undefined;
    }
    entry.got++;
    if (entry.got > entry.owed && entry.reused) {
      this.optionalAnswered++;
      return undefined;
    }
    if (entry.got > entry.owed) {
      this.duplicated++;
      if (this.duplicatedExamples.length < EXAMPLES)
        this.duplicatedExamples.push(`id ${short(entry.raw)} (${short(entry.method, 40)}) answered ${entry.got} times`);
      return undefined;
    }
    this.outstanding--;
    const figures = this.figures(entry.category);
    figures.answered++;
    figures.outcomes[outcome] = (figures.outcomes[outcome] ?? 0) + 1;
    return { key, message };
  }

  private malformedAnswer(text: string): void {
    this.malformed++;
    if (this.malformedExamples.length < EXAMPLES) this.malformedExamples.push(short(text, 160));
  }

  /** Requests owed an answer under their id and not answered yet. */
  get unanswered(): number {
    return this.outstanding;
  }

  /** Requests owed an answer with id null (id null or malformed) beyond the answers with id null seen so far. */
  get missingNullAnswers(): number {
    const answers = Object.values(this.nullAnswers).reduce((a, b) => a + b, 0);
    // Parse errors may be answered with id null too (-32700): those answer junk lines, not these requests.
    const parseErrors = this.nullAnswers['-32700'] ?? 0;
    const invalid = this.nullAnswers['-32600'] ?? 0;
    const missingInvalid = Math.max(0, this.badIdRequests - invalid);
    const missingNull = Math.max(0, this.nullIdRequests - Math.max(0, answers - parseErrors - Math.min(invalid, this.badIdRequests)));
    return missingInvalid + missingNull;
  }

  report(): LedgerReport {
    // Examples from as many categories as there are, before a second one from any.
    const unanswered = [...this.expected.values()].filter((e) => e.got < e.owed);
    const picked = new Set<Expected>();
    const seen = new Set<string>();
    for (const entry of unanswered) {
      if (picked.size < EXAMPLES && !seen.has(entry.category)) {
        seen.add(entry.category);
        picked.add(entry);
      }
    }
    for (const entry of unanswered) if (picked.size < EXAMPLES) picked.add(entry);
    const unansweredExamples = [...picked].map((e) => `id ${short(e.raw)} (${short(e.method, 40)}, ${e.category})`);
    return {
      categories: this.categories,
      unanswered: this.outstanding + this.missingNullAnswers,
      unansweredExamples,
      nullId: { nullIdRequests: this.nullIdRequests, badIdRequests: this.badIdRequests, answers: this.nullAnswers, missing: this.missingNullAnswers },
      outOfSpecCodes: this.outOfSpec,
      outOfSpecExamples: this.outOfSpecExamples,
      duplicated: this.duplicated,
      duplicatedExamples: this.duplicatedExamples,
      changed: this.changed,
      changedExamples: this.changedExamples,
      optionalAnswered: this.optionalAnswered,
      reusedIds: this.reusedIds,
      malformedAnswers: this.malformed,
      malformedExamples: this.malformedExamples,
    };
  }
}
