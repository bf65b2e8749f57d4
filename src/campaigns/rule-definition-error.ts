/** A definition the operator must fix; `field` is a JSON path such as `discount.percent`. */
export class RuleDefinitionError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}

export function fail(field: string, problem: string): never {
  throw new RuleDefinitionError(field, problem);
}
