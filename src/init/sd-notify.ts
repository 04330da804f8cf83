// The sd_notify protocol (what systemd and podman read from NOTIFY_SOCKET): one datagram of
// newline-separated KEY=VALUE assignments, UTF-8. Pure: bytes in, what they say out.

/** What one datagram says; keys sexton does not act on are left out. */
export interface Notification {
  ready?: boolean;
  stopping?: boolean;
  reloading?: boolean;
  status?: string;
}

/** Why a datagram was ignored: each is counted. */
export type Rejection = 'malformed' | 'oversized' | 'foreign' | 'descriptors';

/** A STATUS= kept for `sexton status` and the log: cut to this many characters. */
export const STATUS_MAX_CHARS = 200;

/** Control characters shown as '?', cut to STATUS_MAX_CHARS: it goes into log lines and answers. */
function oneLine(value: string): string {
  const shown = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return shown.length > STATUS_MAX_CHARS ? `${shown.slice(0, STATUS_MAX_CHARS)}…` : shown;
}

const KEY = /^[A-Z][A-Z0-9_]*$/;

/**
 * The assignments of one datagram, or 'malformed': not UTF-8, a NUL, empty, or a line that is
 * no KEY=VALUE (systemd's own reading). An unknown key is fine: the protocol grows.
 */
export function parseNotification(bytes: Uint8Array): Notification | 'malformed' {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'malformed';
  }
  if (text.includes('\0')) return 'malformed';
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();  // a trailing newline is allowed
  if (lines.length === 0) return 'malformed';
  const out: Notification = {};
  for (const line of lines) {
    const eq = line.indexOf('=');
    if (eq <= 0 || !KEY.test(line.slice(0, eq))) return 'malformed';
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'READY') out.ready = value === '1';
    else if (key === 'STOPPING') out.stopping = value === '1';
    else if (key === 'RELOADING') out.reloading = value === '1';
    else if (key === 'STATUS') out.status = oneLine(value);
  }
  return out;
}
