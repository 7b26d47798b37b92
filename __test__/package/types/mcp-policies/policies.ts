// Typed MCP policies (issue 26, item 4), one source compiled as a .cts and a .mts copy by
// __test__/adapters/mcp/types.test.js under tsc --strict: parsedArguments is `unknown` unless the
// gate is given its tools' argument types, and then a field the tool does not have (a
// typo) fails to compile. Every @ts-expect-error line must fail.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createExecutionReceipts } from 'tool-argument-snapshot';
import { gateMcpServer, type McpPolicyInput, type McpPolicyOption } from 'tool-argument-snapshot/mcp';

type Tools = { pay: { to: string; amount: number }; balance: { account: string } };

const server = new McpServer({ name: 'payments', version: '1.0.0' });

// Typed, one policy per tool: each reads its own tool's fields.
gateMcpServer<Tools>(server, {
  agentName: 'payments',
  policy: {
    pay: (input) => {
      const amount: number = input.parsedArguments.amount;
      const to: string = input.parsedArguments.to;
      return { decision: amount > 100 || to === '' ? 'deny' : 'allow', reason: 'by_amount' };
    },
    balance: (input) => ({ decision: input.parsedArguments.account === 'main' ? 'allow' : 'deny', reason: 'by_account' }),
  },
});

// Typed: a typo in a deny rule fails to compile.
gateMcpServer<Tools>(server, {
  agentName: 'payments',
  policy: {
    // @ts-expect-error `amout` is not a field of pay's arguments
    pay: (input) => ({ decision: input.parsedArguments.amout > 100 ? 'deny' : 'allow', reason: 'typo' }),
  },
});

// Typed: another tool's field is not this tool's.
gateMcpServer<Tools>(server, {
  agentName: 'payments',
  policy: {
    // @ts-expect-error `account` is balance's field, not pay's
    pay: (input) => ({ decision: input.parsedArguments.account === 'main' ? 'deny' : 'allow', reason: 'wrong_tool' }),
  },
});

// Typed: the map names only the declared tools.
gateMcpServer<Tools>(server, {
  agentName: 'payments',
  // @ts-expect-error `refund` is not one of the tools
  policy: { refund: () => ({ decision: 'allow', reason: 'x' }) },
});

// Typed, one function for every tool: `toolName` narrows the arguments.
gateMcpServer<Tools>(server, {
  agentName: 'payments',
  receipts: createExecutionReceipts({ keepResults: true }),
  idempotencyScope: (extra) => extra.sessionId ?? null,
  policy: (input) => {
    if (input.toolName === 'pay') return { decision: input.parsedArguments.amount > 100 ? 'require_approval' : 'allow', reason: 'pay' };
    const account: string = input.parsedArguments.account;
    // @ts-expect-error before narrowing, `amount` is not a field of every tool
    void input.parsedArguments.amount;
    return { decision: account === 'main' ? 'allow' : 'deny', reason: `${input.toolCallId} ${input.idempotencyKey ?? 'no key'}` };
  },
});

// Untyped (the default): parsedArguments is unknown, never any.
gateMcpServer(server, {
  agentName: 'payments',
  // @ts-expect-error parsedArguments is unknown: a field cannot be read without narrowing
  policy: (input) => ({ decision: input.parsedArguments.amount > 100 ? 'deny' : 'allow', reason: 'untyped' }),
});
gateMcpServer(server, {
  agentName: 'payments',
  policy: {
    // @ts-expect-error the same in a policy by tool name
    pay: (input) => ({ decision: input.parsedArguments.amount > 100 ? 'deny' : 'allow', reason: 'untyped' }),
  },
});

// Untyped, narrowed by the policy itself: compiles.
function amountOf(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null || !('amount' in value)) return undefined;
  return typeof value.amount === 'number' ? value.amount : undefined;
}
gateMcpServer(server, {
  agentName: 'payments',
  receipts: false,
  policy: (input) => ({ decision: (amountOf(input.parsedArguments) ?? Infinity) <= 100 ? 'allow' : 'deny', reason: 'narrowed' }),
});

// The input types by themselves.
const untypedPolicy: McpPolicyOption = (input: McpPolicyInput) => {
  const value: unknown = input.parsedArguments;
  // @ts-expect-error unknown, not any: it is not a number
  const wrong: number = input.parsedArguments;
  void wrong;
  return { decision: value === null ? 'deny' : 'allow', reason: 'x' };
};
void untypedPolicy;
// @ts-expect-error receipts is an ExecutionReceipts object or false
gateMcpServer(server, { agentName: 'payments', receipts: true });
