// quote(): how sexton echoes input in a message.
import { describe, expect, it } from 'vitest';
import { quote } from '../../../src/config/quote';
import { messageProblems } from '../../support/argv-fuzz';

describe('quote', () => {
  it('shows plain text as it is, in quotes', () => {
    expect(quote('TERM')).toBe("'TERM'");
    expect(quote('caf\u00e9 \u{1f600}')).toBe("'caf\u00e9 \u{1f600}'");
  });

  it('escapes newlines, tabs, escape sequences, C1 controls, quotes and backslashes', () => {
    expect(quote('a\nb\r\tc')).toBe("'a\\nb\\r\\tc'");
    expect(quote('\x1b[31mred')).toBe("'\\x1b[31mred'");
    expect(quote('\x07\x7f\x9b')).toBe("'\\x07\\x7f\\x9b'");
    expect(quote("it's a\\b")).toBe("'it\\'s a\\\\b'");
  });

  it('escapes halves of surrogate pairs and U+FFFD (bytes that were not UTF-8)', () => {
    expect(quote('a\ud800b')).toBe("'a\\u{d800}b'");
    expect(quote('\udc00')).toBe("'\\u{dc00}'");
    expect(quote('caf\ufffd')).toBe("'caf\\u{fffd}'");
  });

  it('shows at most 80 characters and says how many more there were', () => {
    expect(quote('x'.repeat(100_000))).toBe(`'${'x'.repeat(80)}'…(99920 more)`);
    expect(quote('x'.repeat(80))).toBe(`'${'x'.repeat(80)}'`);
    // A pair is one character: truncation never splits it.
    expect(messageProblems(quote('\u{1f600}'.repeat(100)))).toEqual([]);
  });

  it('leaves no line separator in the line', () => {
    expect(messageProblems(quote('a\u2028b\u2029c\u0085d'))).toEqual([]);
  });
});

describe('quote and text direction', () => {
  it('escapes bidi controls, which would reorder the rest of the line', () => {
    expect(quote('a\u202eb\u2066c')).toBe("'a\\u{202e}b\\u{2066}c'");
  });
});
