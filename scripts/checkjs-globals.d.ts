// Declarations for `npm run typecheck` only (tsc --checkJs over the package's JavaScript;
// listed in tsconfig.json, never shipped): what the language has and TypeScript's
// libraries leave out.

// `__proto__: null` in an object literal gives the literal no prototype: it is syntax,
// not a property, and the package writes it in every descriptor and options record so
// that nothing planted on Object.prototype is read. TypeScript takes it for a property
// and refuses it as unknown; these let it stand where the package writes it.
interface PropertyDescriptor {
  __proto__?: null;
}
interface ArrayLike<T> {
  __proto__?: null;
}
interface StructuredSerializeOptions {
  __proto__?: null;
}

// Annex B's accessor look-ups (ECMA-262 B.2.2.4, B.2.2.5), captured at load by the
// primordials, are in no TypeScript library.
interface Object {
  __lookupGetter__(name: PropertyKey): (() => unknown) | undefined;
  __lookupSetter__(name: PropertyKey): ((value: unknown) => void) | undefined;
}
