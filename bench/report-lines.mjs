// The "Floors per Node line" section of bench/RESULTS.md, written by bench/lines.mjs and kept
// when bench/run.mjs rewrites the rest of the file.
export const LINES_BEGIN = '<!-- floors per Node line: npm run bench:lines -->';
export const LINES_END = '<!-- end of floors per Node line -->';

/** The section in `text`, markers included, or ''. */
export function linesSection(text) {
  const begin = text.indexOf(LINES_BEGIN);
  const end = text.indexOf(LINES_END);
  return begin >= 0 && end > begin ? text.slice(begin, end + LINES_END.length) : '';
}

/** `text` with its section replaced by `section`, or with `section` appended. */
export function withLinesSection(text, section) {
  const old = linesSection(text);
  if (old) return text.replace(old, section);
  return `${text.trimEnd()}\n\n${section}\n`;
}
