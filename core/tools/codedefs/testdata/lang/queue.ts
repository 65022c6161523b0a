// A small retrying job queue.
export type JobId = string;

export interface Job<T> {
  id: JobId;
  payload: T;
  attempts: number;
}

export enum JobState {
  Pending,
  Running,
  Failed,
}

export abstract class Worker<T> {
  abstract handle(job: Job<T>): Promise<void>;

  protected log(message: string): void {
    console.log(`[worker] ${message}`);
  }
}

export class Queue<T> {
  private jobs: Job<T>[] = [];

  constructor(private readonly maxAttempts = 3) {}

  enqueue(payload: T): JobId {
    const id = Math.random().toString(36).slice(2);
    this.jobs.push({ id, payload, attempts: 0 });
    return id;
  }

  async drain(worker: Worker<T>): Promise<number> {
    let done = 0;
    for (const job of this.jobs) {
      try {
        await worker.handle(job);
        done++;
      } catch {
        job.attempts++;
      }
    }
    return done;
  }
}

export function backoff(attempt: number): number {
  return Math.min(30_000, 2 ** attempt * 100);
}

export const isRetryable = (err: unknown): boolean =>
  err instanceof Error && !err.message.includes('fatal');

declare function externalHook(name: string): void;

namespace Metrics {
  export function count(name: string): void {}
}
