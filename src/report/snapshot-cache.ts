// One snapshot shared by every reader (status socket, scrapes, the stats file): taken at most once
// per interval however many ask, so a flood of clients costs sexton one /proc scan a second, not
// one per client; and each text made from it (JSON, the metrics page) is made once per snapshot.

/** Milliseconds on a clock that never steps back (a wall-clock step must not freeze the cache). */
export const monotonicMs = (): number => Number(process.hrtime.bigint() / 1_000_000n);

/** Whether a snapshot taken at takenAt is too old to share at now. */
export function isStale(takenAt: number | undefined, now: number, intervalMs: number): boolean {
  return takenAt === undefined || now - takenAt >= intervalMs || now < takenAt;
}

export class SnapshotCache<T> {
  private value?: T;
  /** A failed snapshot is shared too (rethrown): a flood must not retry a failing scan per client. */
  private failure?: unknown;
  private takenAt?: number;
  /** Counts snapshots taken: what a derived text is keyed on. */
  private generation = 0;

  constructor(private readonly take: () => T, readonly intervalMs: number, private readonly now = monotonicMs) {}

  /** The shared snapshot, taken anew only once the last one is intervalMs old. */
  get(): T {
    if (isStale(this.takenAt, this.now(), this.intervalMs)) return this.fresh();
    if (this.failure !== undefined) throw this.failure;
    return this.value as T;
  }

  /** What the snapshot says has changed (the stop named what it could not kill): the next get takes a new one. */
  stale(): void {
    this.takenAt = undefined;
  }

  /** A snapshot taken now, shared from now on (the final one at exit). */
  fresh(): T {
    this.takenAt = this.now();
    this.generation++;
    try {
      this.value = this.take();
      this.failure = undefined;
    } catch (error) {
      this.value = undefined;
      this.failure = error ?? new Error('snapshot failed');
      throw error;
    }
    return this.value;
  }

  /** render(snapshot), made once per snapshot however often it is asked for. */
  derived<U>(render: (value: T) => U): () => U {
    let madeFor = -1;
    let made: U | undefined;
    return () => {
      const value = this.get();
      if (madeFor !== this.generation) {
        made = render(value);
        madeFor = this.generation;
      }
      return made as U;
    };
  }
}
