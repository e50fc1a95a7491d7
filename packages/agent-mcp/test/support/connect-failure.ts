/** What `connect()` of an MCP extension (or anything with a `connect`) rejected with, or `undefined` when it connected. */
export function connectFailure(extension: { connect(): Promise<unknown> }): Promise<unknown> {
  return extension.connect().then(
    () => undefined,
    (failure: unknown) => failure,
  );
}
