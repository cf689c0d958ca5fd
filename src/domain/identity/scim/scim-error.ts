/**
 * A SCIM protocol error (RFC 7644 §3.12): its HTTP status, its `scimType` where the RFC names
 * one, and a detail a provisioning admin can act on.
 */
type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

const scimErrorSchema = 'urn:ietf:params:scim:api:messages:2.0:Error';

export class ScimError extends Error {
  override name = 'ScimError';
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
  }

  body() {
    return {
      schemas: [scimErrorSchema],
      status: String(this.status),
      ...(this.scimType && { scimType: this.scimType }),
      detail: this.message,
    };
  }
}

export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
export const invalidSyntax = (detail: string) => new ScimError(400, detail, 'invalidSyntax');
