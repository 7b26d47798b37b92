'use strict';
// The cedar group of `npm run bench` (--groups cedar): a Cedar policy set of 20 policies
// (19 permits, each on one tool with two conditions on the arguments, and one forbid)
// evaluated on a small call, beside a JavaScript policy doing the same checks and beside
// prepareToolCall of the same arguments. Each policy alone is called on a policy input
// whose canonical JSON the snapshot made; the evaluateToolCall rows run the step as a run
// loop does. Both policies must agree on every call before anything is timed.

const TOOLS = 19;
const RAW = '{"to":"alice","amount":120,"currency":"EUR"}';

function policyText() {
  let text = '';
  for (let i = 0; i < TOOLS; i++) {
    text += `@id("p${i}")\npermit(principal, action == Action::"tool${i}", resource) when { context.input.amount < ${400 + i} && context.input.currency == "EUR" };\n`;
  }
  return text + '@id("blocked")\nforbid(principal, action, resource) when { context.input has to && context.input.to == "blocked" };\n';
}

/** The same checks as policyText(), in JavaScript. */
function jsPolicy(input) {
  const args = input.parsedArguments;
  if (typeof args.to === 'string' && args.to === 'blocked') return { decision: 'deny', reason: 'forbidden' };
  const m = /^tool(\d+)$/.exec(input.toolName);
  if (m !== null && Number(m[1]) < TOOLS && args.amount < 400 + Number(m[1]) && args.currency === 'EUR') return { decision: 'allow', reason: 'permitted' };
  return { decision: 'deny', reason: 'no_permit' };
}

async function runCedarGroup({ pkg, opts, runGroup, timingTable, SINK }) {
  const cedar = pkg.createCedarPolicy({ policies: policyText() });
  const requests = [];
  for (const to of ['alice', 'blocked']) {
    for (const tool of [3, 18, 40]) requests.push({ agentName: 'bench-agent', toolName: `tool${tool}`, rawArguments: RAW.replace('alice', to) });
  }
  const inputs = requests.map((r) => {
    const prepared = pkg.prepareToolCall(r);
    const snapshot = pkg.createSnapshot({ agentName: r.agentName, toolName: r.toolName, value: JSON.parse(r.rawArguments) });
    return { agentName: r.agentName, toolName: r.toolName, argsCanonicalJson: snapshot.argsCanonicalJson, parsedArguments: prepared.policyView() };
  });
  for (const input of inputs) {
    const a = await cedar(input);
    const b = jsPolicy(input);
    if (a.decision !== b.decision || a.reason !== b.reason) throw new Error(`cedar bench: the Cedar and JavaScript policies disagree on ${input.toolName}`);
  }
  const rows = await runGroup(
    [
      { id: 'cedar-policy', label: 'Cedar policy (20 policies) alone', fn: (input) => cedar(input), arr: inputs },
      { id: 'js-policy', label: 'JavaScript policy, same checks', fn: (input) => jsPolicy(input), arr: inputs },
      {
        id: 'prepare',
        label: 'prepareToolCall (same arguments)',
        fn: (r) => {
          SINK.prepared = pkg.prepareToolCall(r);
        },
        arr: requests,
      },
      {
        id: 'evaluate-cedar',
        label: 'prepare + evaluateToolCall, Cedar',
        fn: (r) => pkg.evaluateToolCall({ prepared: pkg.prepareToolCall(r), policy: cedar }),
        arr: requests,
      },
      {
        id: 'evaluate-js',
        label: 'prepare + evaluateToolCall, JavaScript',
        fn: (r) => pkg.evaluateToolCall({ prepared: pkg.prepareToolCall(r), policy: jsPolicy }),
        arr: requests,
      },
    ],
    opts,
    Buffer.byteLength(RAW),
  );
  console.log(`Cedar (src/cedar/, cedar-policy crate) vs a JavaScript policy: 1 op = ${requests.length} calls (3 tools x 2 recipients)`);
  console.log(timingTable(rows));
  return rows;
}

module.exports = { runCedarGroup, policyText, jsPolicy };
