/** A migration is a list of SQL statements run in one transaction, in order, once. */
export interface Migration {
  readonly name: string;
  readonly statements: readonly string[];
}
