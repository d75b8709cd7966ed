/** Which agent a run may go to, and the config's problems with agents (checked at activation). */
import { agentConfigProblems, agentProblem, allowedAgents } from "../../src/actions/agent-id";

const KNOWN = { ids: ["main", "ops"], defaultId: "main" };

describe("agentProblem", () => {
  it("allows the host's agents, and the default agent without agentId", () => {
    expect([agentProblem("ops", KNOWN), agentProblem(undefined, KNOWN), agentProblem("main")]).toEqual([undefined, undefined, undefined]);
  });

  it("names the agents that may be named", () => {
    expect(agentProblem("x", KNOWN)).toBe('agentId "x" is not an agent the gateway knows; use one of: main, ops');
    expect(agentProblem("ops", KNOWN, ["main"])).toBe('agentId "ops" is not in hooks.allowedAgentIds; use one of: main');
    expect(agentProblem(undefined, KNOWN, ["ops"])).toBe('agentId is required: the default agent "main" is not in hooks.allowedAgentIds; use one of: ops');
  });

  it('"*" and an absent list allow all; the list never allows an agent the host lacks', () => {
    expect(allowedAgents(KNOWN, ["*"])).toEqual(["main", "ops"]);
    expect(allowedAgents(KNOWN, undefined)).toEqual(["main", "ops"]);
    expect(allowedAgents(KNOWN, ["ops", "ghost"])).toEqual(["ops"]);
  });
});

describe("agentConfigProblems", () => {
  it("a mapping, a preset section or allowedAgentIds naming an agent the host lacks or the list leaves out; agentId on a wake mapping (dropped silently)", () => {
    const lines = agentConfigProblems(
      {
        allowedAgentIds: ["main", "opz"],
        mappings: [
          { action: "agent", agentId: "ops" },
          { action: "agent", agentId: "ghost" },
          { action: "wake", agentId: "main" },
          { action: "agent", agentId: "main" },
        ],
        github: { agentId: "ghost" },
        mail: {},
      },
      KNOWN,
    );
    expect(lines).toEqual([
      `hooks.allowedAgentIds[1] "opz" is not an agent the gateway knows (the gateway's agents: main, ops)`,
      `hooks.mappings[0].agentId "ops" is not in hooks.allowedAgentIds (use one of: main)`,
      `hooks.mappings[1].agentId "ghost" is not an agent the gateway knows (the gateway's agents: main, ops)`,
      "hooks.mappings[2].agentId applies only to agent actions (a wake goes to the main session of the default agent)",
      `hooks.github.agentId "ghost" is not an agent the gateway knows (the gateway's agents: main, ops)`,
    ]);
    expect(agentConfigProblems({ mappings: [{ action: "agent" }] }, KNOWN)).toEqual([]);
  });
});
