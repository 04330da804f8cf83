// Echoed input: one printable line, bounded, whatever the bytes.
import { expect, test } from 'vitest';
import { quote } from '../../src/quote';

test('control characters, newlines and escape sequences are escaped', () => {
  expect(quote('a\nb\tc\x1b[31m')).toBe("'a\\nb\\tc\\x1b[31m'");
  expect(quote("it's")).toBe("'it\\'s'");
});

test('bytes that were not UTF-8 (U+FFFD) and lone surrogates are visible as escapes', () => {
  expect(quote('caf\ufffd')).toBe("'caf\\u{fffd}'");
  expect(quote('x\ud800y')).toBe("'x\\u{d800}y'");
});

test('long values are cut, saying how much is left out', () => {
  const shown = quote('z'.repeat(100_000));
  expect(shown.length).toBeLessThan(120);
  expect(shown).toMatch(/…\(99920 more\)$/);
});

test('printable text, accents and emoji pass unchanged', () => {
  expect(quote('café ☕ 🚀')).toBe("'café ☕ 🚀'");
});
