// Compiled with `tsc --strict --noEmit` by __test__/json-schema/from-json-schema.test.js: fromJsonSchema's
// output type (the type argument, else a JSON value) reaches the prepared call, the
// policy and the handler; its options are checked. Every @ts-expect-error line must fail
// to compile.
import {
  evaluateToolCall,
  executeToolCall,
  fromJsonSchema,
  prepareToolCall,
  prepareToolCallAsync,
  type JsonSchemaIssue,
  type JsonSchemaToolSchema,
  type SnapshotValue,
} from '../../../..';

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | void {}

interface Scale {
  service: string;
  replicas: number;
}

const scale = fromJsonSchema<Scale>(
  { type: 'object', properties: { service: { type: 'string' }, replicas: { type: 'integer' } }, required: ['service', 'replicas'] },
  { defaults: true, formats: { iban: /^[A-Z]{2}/, even: (value: string) => value.length % 2 === 0, path: true } },
);
assertType<Equal<typeof scale, JsonSchemaToolSchema<Scale>>>();

export async function typed(rawArguments: string): Promise<number> {
  const prepared = prepareToolCall({ agentName: 'ops', toolName: 'scale', rawArguments, schema: scale });
  const view: Scale = prepared.policyView();
  const decision = await evaluateToolCall({
    prepared,
    policy: (input) => {
      const replicas: number = input.parsedArguments.replicas;
      // @ts-expect-error parsedArguments is read-only
      input.parsedArguments.replicas = 1;
      return { decision: replicas > 10 ? 'require_approval' : 'allow', reason: view.service };
    },
  });
  return executeToolCall(decision, (args) => args.replicas);
}

export async function untyped(rawArguments: string): Promise<SnapshotValue> {
  const schema = fromJsonSchema({ type: 'object' }, { formats: 'ignore' });
  const prepared = await prepareToolCallAsync({ agentName: 'ops', toolName: 'any', rawArguments, schema });
  const view: SnapshotValue = prepared.policyView();
  return view;
}

export function direct(value: unknown): readonly JsonSchemaIssue[] | Scale {
  const result = scale['~standard'].validate(value);
  if (result.issues !== undefined) {
    const keys: readonly string[] = result.issues[0].path;
    return keys.length > 0 ? result.issues : [];
  }
  return result.value;
}

export function schemas(): void {
  fromJsonSchema(true);
  const given = scale.jsonSchema;
  const copy = scale['~standard'].jsonSchema.input({ target: 'draft-07' });
  void given;
  void copy;
  const dialect: 'draft-2020-12' | 'draft-2019-09' | 'draft-07' | 'draft-06' = scale.dialect;
  void dialect;
  // @ts-expect-error defaults is a boolean
  fromJsonSchema({}, { defaults: 'yes' });
  // @ts-expect-error a format is a RegExp, a function or true
  fromJsonSchema({}, { formats: { iban: 'regex' } });
  // @ts-expect-error formats is 'ignore' or an object
  fromJsonSchema({}, { formats: 'assert' });
  // @ts-expect-error a schema is an object or a boolean
  fromJsonSchema('object');
}
