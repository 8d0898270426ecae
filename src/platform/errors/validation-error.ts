/** One entry of the 422 HTTPValidationError body (the FastAPI shape). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class RequestValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(`request validation failed: ${issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`);
  }
}
