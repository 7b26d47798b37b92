// Type declarations of tool-argument-snapshot, room random (lib/random.js): random ids.
// Re-exported by index.d.ts (the package root); imports nothing.

/**
 * A random RFC 9562 version 4 UUID in its lowercase 8-4-4-4-12 form (122 random bits from the
 * operating system, as `crypto.randomUUID()` makes them), without loading `node:crypto`.
 * Throws when the operating system fails to give randomness.
 */
export declare function randomUUID(): string;
