// AsyncQueue is the outgoing half of the bridge stream: push messages, the transport iterates.

export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private closed = false;

  push(item: T): boolean {
    if (this.closed) return false;
    const w = this.waiting;
    if (w) {
      this.waiting = undefined;
      w({ value: item, done: false });
    } else {
      this.items.push(item);
    }
    return true;
  }

  close(): void {
    this.closed = true;
    const w = this.waiting;
    this.waiting = undefined;
    w?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
      // Connect's transports call throw() when the call fails.
      throw: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
