// The waiting cross-map calls, taken in turn per client (round robin), with heavy calls (a large body: a
// big crossmap to compile, many records) kept off the last free worker, so that a one-record call is
// never stuck behind other clients' big compiles (issue 27: four clients sending distinct 1 MB crossmaps
// held a one-record call 1.6-4.7 s behind one queue).

export interface Waiting {
  /** Who sent it: calls of one client wait behind each other, not behind other clients'. */
  client: string;
  /** Whether it may take long (see MapPool's heavy threshold). */
  heavy: boolean;
}

export class FairQueue<T extends Waiting> {
  private readonly byClient = new Map<string, T[]>();
  /** Clients with waiting calls, next in turn first. */
  private turn: string[] = [];
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(call: T): void {
    const calls = this.byClient.get(call.client);
    if (calls) calls.push(call);
    else {
      this.byClient.set(call.client, [call]);
      this.turn.push(call.client);
    }
    this.count++;
  }

  /**
   * The next call in turn that may run now: a light one always, a heavy one only if `heavyAllowed`.
   * Its client goes to the back of the turn.
   */
  take(heavyAllowed: boolean): T | undefined {
    for (let i = 0; i < this.turn.length; i++) {
      const client = this.turn[i]!;
      const calls = this.byClient.get(client)!;
      // A client's calls keep their order: its first waiting call is the one that may go.
      if (calls[0]!.heavy && !heavyAllowed) continue;
      const call = calls.shift()!;
      this.count--;
      this.turn.splice(i, 1);
      if (calls.length > 0) this.turn.push(client);
      else this.byClient.delete(client);
      return call;
    }
    return undefined;
  }

  /** Every waiting call, emptying the queue. */
  drain(): T[] {
    const all = this.turn.flatMap((client) => this.byClient.get(client) ?? []);
    this.byClient.clear();
    this.turn = [];
    this.count = 0;
    return all;
  }
}
