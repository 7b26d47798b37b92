// Type declarations of tool-argument-snapshot, room json-schema (lib/json-schema/): JSON Schema tools.
// Re-exported by index.d.ts (the package root); imports only from rooms below it.

import type { SnapshotValue } from '../snapshot/index';

// ---------------------------------------------------------------------------------
// JSON Schema tools (lib/json-schema/): MCP tools, the AI SDK's jsonSchema(), OpenAI
// function tools and LangChain tools describe their input with JSON Schema.

/** A JSON Schema: an object of JSON data, or a boolean schema. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** The dialects fromJsonSchema compiles, chosen by `$schema` (none: draft 2020-12). */
export type JsonSchemaDialect = 'draft-2020-12' | 'draft-2019-09' | 'draft-07' | 'draft-06';

export interface FromJsonSchemaOptions {
  /**
   * Insert the `default` of every absent property (Ajv's `useDefaults`) into the output,
   * and so into the snapshot and its hash: `{}` and `{"limit":10}` (default 10) become the
   * same proposal. Default: false (the output is the input as sent).
   */
  defaults?: boolean;
  /**
   * Default: the formats ajv-formats knows (`email`, `date-time`, `uri`, `uuid`, ...) are
   * asserted, and a schema naming any other format does not compile. `'ignore'`: formats
   * are annotations only (ajv-formats is not needed). An object adds formats by name: a
   * RegExp, a function of the string that returns `true` to accept, or `true` (accepted
   * unchecked).
   */
  formats?: 'ignore' | { readonly [name: string]: RegExp | ((value: string) => boolean) | true };
}

/** One reason a value failed its JSON Schema. Its message and path can quote payload keys: never log them. */
export interface JsonSchemaIssue {
  readonly message: string;
  /** Keys from the root to the failing value (for `required`, to the missing property). */
  readonly path: readonly string[];
  /** The JSON Schema keyword that failed (`type`, `required`, `format`, ...). */
  readonly keyword: string;
}

/**
 * A JSON Schema as a tool schema: a Standard Schema v1 (with Standard JSON Schema's
 * `jsonSchema.input()`), validated by Ajv 8. `T` is the output type you assert the schema
 * describes (default: a JSON value).
 *
 * The validator is JavaScript that Ajv generates from the schema (`new Function`): it
 * calls the built-ins it finds when it runs, so it is outside the package's guarantee
 * that every built-in is captured at load. The package's own steps around it (the copy it
 * validates, the snapshot of its output) keep that guarantee.
 */
export interface JsonSchemaToolSchema<T = SnapshotValue> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: 'tool-argument-snapshot';
    /**
     * Never changes its argument. Without defaults, `value` is the value validated; with
     * defaults, a copy the package made (records and arrays of the value's own data) with
     * the inserted defaults.
     */
    readonly validate: (value: unknown) => { readonly value: T; readonly issues?: undefined } | { readonly issues: readonly JsonSchemaIssue[] };
    readonly types?: { readonly input: unknown; readonly output: T } | undefined;
    /** A new, mutable copy of the schema as given (no conversion between dialects). */
    readonly jsonSchema: {
      input(options?: { readonly target?: string }): JsonSchema;
      output(options?: { readonly target?: string }): JsonSchema;
    };
  };
  /** The schema as given, deeply frozen (for a framework that shows it to the model: copy it). */
  readonly jsonSchema: JsonSchema;
  readonly dialect: JsonSchemaDialect;
  readonly defaults: boolean;
}

/**
 * A tool schema of a JSON Schema, for prepareToolCall and every adapter. The schema is
 * read once as JSON data and compiled now, by Ajv 8 (optional peer dependencies `ajv` and
 * `ajv-formats`, loaded on the first call).
 * @throws {TypeError} `ERR_INVALID_ARG_VALUE` when the schema does not compile (an
 * invalid keyword, an unresolvable `$ref`, an unsupported `$schema`, an unknown format),
 * `ERR_INVALID_ARG_TYPE` for a schema that is not JSON data (a Proxy, a getter, a function).
 * @throws {Error} `MODULE_NOT_FOUND` naming `ajv` or `ajv-formats` when it is not installed.
 */
export declare function fromJsonSchema<T = SnapshotValue>(schema: JsonSchema, options?: FromJsonSchemaOptions): JsonSchemaToolSchema<T>;
