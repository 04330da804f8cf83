// Node's internal bindings, for what its public modules offer only at a price sexton's start-up
// and memory budget cannot pay (the status socket's pipe handle without `net`, zlib's CRC-32
// without `zlib`, signal numbers without `os`). process.binding is deprecated in documentation
// only, but under --pending-deprecation Node warns at its first call, and under
// --throw-deprecation throws: the init must not print either, so the call is made with
// deprecation warnings off.

/** The binding `name`, or undefined where this Node has none by that name. */
export function nodeBinding<T>(name: string): T | undefined {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    return (process as unknown as { binding(name: string): T }).binding(name);
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
}
