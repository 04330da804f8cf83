// os.constants (signal and errno numbers) without loading node:os: its first require costs
// ~0.2 ms of every start, and the numbers come from a binding Node has loaded already.
import type * as os from 'node:os';
import { nodeBinding } from './node-binding';

export const constants: typeof os.constants =
  nodeBinding<{ os: typeof os.constants }>('constants')?.os ?? (require('node:os') as typeof os).constants;

const errnoNames = new Map<number, string>();
for (const [name, n] of Object.entries(constants.errno)) if (!errnoNames.has(n)) errnoNames.set(n, name);

export function errnoName(errno: number): string {
  return errnoNames.get(errno) ?? `errno ${errno}`;
}
