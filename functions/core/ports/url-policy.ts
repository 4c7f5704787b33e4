/** Customer-given URLs (references, webhook) must point at public addresses (docs/security.md, "URL policy"). */
export interface OutboundUrlPolicy {
  /** Throws InvalidRequestError naming the first URL that points at a non-public address. */
  assertPublic(urls: readonly { field: string; url: string }[]): Promise<void>;
}
