// The records a verdict keeps, as data: a write's identity and a difference in the shop's rows.
// Only the reporter turns them into sentences. Each one's JSON form is a short text (the form
// verdicts have always had in JSON output and in the golden hashes), so a record compares and
// prints the same everywhere.

/** A write as the checks see it: two writes are the same write when kind, target and arguments are equal. */
export class WriteIdentity {
  /** `kind target args`: equal exactly when the writes are the same write. */
  readonly key: string;

  constructor(
    readonly kind: string,
    readonly target: string,
    /** Canonical JSON of the arguments. */
    readonly args: string,
  ) {
    this.key = `${kind} ${target} ${args}`;
  }

  static of(write: { kind: string; target: string; args: string }): WriteIdentity {
    return new WriteIdentity(write.kind, write.target, write.args);
  }

  toJSON(): string {
    return this.key;
  }

  toString(): string {
    return this.key;
  }
}

/** One row more (+) or fewer (-) in a table of the shop than in the baseline's. */
export class ShopDifference {
  constructor(
    readonly sign: '+' | '-',
    readonly table: string,
    /** The row as the shop's snapshot holds it (JSON of its columns). */
    readonly row: string,
  ) {}

  toJSON(): string {
    return `${this.sign} ${this.table} ${this.row}`;
  }

  toString(): string {
    return this.toJSON();
  }
}
