/**
 * OpenClaw's agent routing on `/agent` (SPEC §15 "First-class"): `agentId` names one of the host's agents
 * (`runtime.agents.known()`; the embedded gateway has one, `main`), `hooks.allowedAgentIds` restricts them — the
 * default agent too — and a refusal is 400 `agent_not_allowed` naming the agents that may be named. And `thinking`
 * on a host whose turns take none: accepted, and the 202 says it was not applied (was: accepted and dropped).
 * Each negative test changes one thing of a valid request.
 */
import request from "supertest";
import { bearer, createRouterApp, type RouterApp } from "../helpers/router-app";
import type { ResolvedHooksConfig } from "../../src/config/types";
import type { FakeHostOptions } from "../helpers/fake-host";

const AGENTS = { ids: ["main", "ops", "research"], defaultId: "main" };
const validAgent = (over: Record<string, unknown> = {}) => ({ message: "summarise the build", name: "CI", ...over });

describe("POST /hooks/agent with agentId", () => {
  let h: RouterApp | undefined;
  afterEach(() => h?.close());
  const app = (host: FakeHostOptions = { agents: AGENTS }, config: Partial<ResolvedHooksConfig> = {}) => (h = createRouterApp({ host, config }));
  const post = (body: unknown) =>
    request(h!.app)
      .post("/hooks/agent")
      .set(bearer())
      .send(body as object);
  const refused = (problem: string) => ({
    status: 400,
    body: { ok: false, code: "agent_not_allowed", error: `${problem}.`, details: [{ field: "agentId", message: problem }] },
  });

  it("an agent of the host → 202, the action carries it; none → the default agent (no agentId on the action)", async () => {
    app();
    expect((await post(validAgent({ agentId: "ops" }))).status).toBe(202);
    expect((await post(validAgent())).status).toBe(202);
    expect(h!.dispatcher.agents.map((a) => a.action.agentId)).toEqual(["ops", undefined]);
  });

  it("an agent the host does not know → 400 agent_not_allowed naming its agents", async () => {
    app();
    const res = await post(validAgent({ agentId: "sales" }));
    expect({ status: res.status, body: res.body }).toEqual(refused('agentId "sales" is not an agent the gateway knows; use one of: main, ops, research'));
    expect(h!.dispatcher.agents).toHaveLength(0);
  });

  it("an agent hooks.allowedAgentIds leaves out → 400 naming the allowed ones", async () => {
    app(undefined, { allowedAgentIds: ["main", "research"] });
    const res = await post(validAgent({ agentId: "ops" }));
    expect({ status: res.status, body: res.body }).toEqual(refused('agentId "ops" is not in hooks.allowedAgentIds; use one of: main, research'));
  });

  it("no agentId while hooks.allowedAgentIds leaves out the default agent → 400 (OpenClaw's rule: the default path is checked too)", async () => {
    app(undefined, { allowedAgentIds: ["ops"] });
    const res = await post(validAgent());
    expect({ status: res.status, body: res.body }).toEqual(
      refused('agentId is required: the default agent "main" is not in hooks.allowedAgentIds; use one of: ops'),
    );
    expect((await post(validAgent({ agentId: "ops" }))).status).toBe(202);
  });

  it('"*" allows every agent; [] none', async () => {
    app(undefined, { allowedAgentIds: ["*"] });
    expect((await post(validAgent({ agentId: "research" }))).status).toBe(202);
    h!.close();
    app(undefined, { allowedAgentIds: [] });
    const res = await post(validAgent({ agentId: "research" }));
    expect(res.body.error).toBe(
      'agentId "research" is not in hooks.allowedAgentIds; no agent may be named (hooks.allowedAgentIds allows none the gateway knows).',
    );
  });

  it("the embedded gateway (no agents.known()): one agent, main — agentId main is the same run, another is refused naming main", async () => {
    app({});
    expect((await post(validAgent({ agentId: "main" }))).status).toBe(202);
    const res = await post(validAgent({ agentId: "ops" }));
    expect({ status: res.status, body: res.body }).toEqual(refused('agentId "ops" is not an agent the gateway knows; use one of: main'));
  });

  it("an agentId that is no agent id → 400 invalid_payload naming the field", async () => {
    app();
    const res = await post(validAgent({ agentId: "ops/../main" }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_payload");
    expect(res.body.details).toEqual([
      { field: "agentId", message: "agentId must be an agent id: a letter or digit, then letters, digits, '_' and '-' (at most 64 characters)" },
    ]);
  });
});

describe("thinking on a host whose turns take none (OpenClaw)", () => {
  let h: RouterApp | undefined;
  afterEach(() => h?.close());
  const WHY = "the host's runtime takes none";

  it("thinking was accepted with 202 and dropped: the 202 has a warnings entry and a Warning header", async () => {
    h = createRouterApp({ host: { thinkingNotApplied: WHY } });
    const res = await request(h.app)
      .post("/hooks/agent")
      .set(bearer())
      .send(validAgent({ thinking: "high" }));
    expect(res.status).toBe(202);
    const message = `thinking (high) was not applied: ${WHY}`;
    expect(res.body.warnings).toEqual([{ field: "thinking", message }]);
    expect(res.headers.warning).toBe(`299 - "${message}"`);
    // The run is still stored with what was asked (the host decides what it applies).
    expect(h.dispatcher.agents[0]!.action.thinking).toBe("high");
  });

  it("no warning without thinking, nor on a host that applies it", async () => {
    h = createRouterApp({ host: { thinkingNotApplied: WHY } });
    const without = await request(h.app).post("/hooks/agent").set(bearer()).send(validAgent());
    expect([without.body.warnings, without.headers.warning]).toEqual([undefined, undefined]);
    h.close();
    h = createRouterApp();
    const applied = await request(h.app)
      .post("/hooks/agent")
      .set(bearer())
      .send(validAgent({ thinking: "high" }));
    expect([applied.status, applied.body.warnings, applied.headers.warning]).toEqual([202, undefined, undefined]);
  });
});
