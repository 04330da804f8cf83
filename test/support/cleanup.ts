// Vitest setup file (both configs): after every test, SIGKILL what it started (processes.ts).
// A file's own afterEach runs before this one; one that must stop its processes before other
// cleanup calls killStarted() itself.
import { afterEach } from 'vitest';
import { killStarted } from './processes';

afterEach(killStarted);
