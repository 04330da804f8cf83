// Input echoed back in a message: one line, printable, bounded. A value can hold newlines,
// escape sequences or 100 KB; the message must still be one readable line.

const MAX_CHARS = 80;
const LINE_BREAKING_OR_REORDERING = /[\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function escapeChar(c: string): string {
  const code = c.codePointAt(0) as number;
  if (c === '\n') return '\\n';
  if (c === '\t') return '\\t';
  if (c === '\r') return '\\r';
  if (c === '\\') return '\\\\';
  if (c === "'") return "\\'";
  if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) return `\\x${code.toString(16).padStart(2, '0')}`;
  // A lone surrogate (half of a split pair) or U+FFFD (bytes that were not UTF-8).
  if ((code >= 0xd800 && code <= 0xdfff) || code === 0xfffd) return `\\u{${code.toString(16)}}`;
  // Line and paragraph separators end a line for many log readers; bidi controls reorder it.
  if (LINE_BREAKING_OR_REORDERING.test(c)) return `\\u{${code.toString(16)}}`;
  return c;
}

/** 'value' with control characters escaped and at most MAX_CHARS characters of it shown. */
export function quote(value: string, max = MAX_CHARS): string {
  const chars = Array.from(value);
  const shown = chars.slice(0, max).map(escapeChar).join('');
  const more = chars.length > max ? `…(${chars.length - max} more)` : '';
  return `'${shown}'${more}`;
}

/** value with control characters escaped, unquoted, cut at `max` characters: one line of a log. */
export function escapeLine(value: string, max: number): string {
  const chars = Array.from(value);
  const more = chars.length > max ? `…(${chars.length - max} more)` : '';
  return `${chars.slice(0, max).map(escapeChar).join('')}${more}`;
}
