import fc from "fast-check";
import { indentJson } from "../../../src/mappings/templates/indent-json";
import { compileTemplate, type TemplateContext } from "../../../src/mappings/templates/compile-template";
import { TemplateSyntaxError } from "../../../src/mappings/templates/parse-template";
import { readPayload } from "../helpers";

const push = readPayload("github-push.json");

function ctx(over: Partial<TemplateContext> = {}): TemplateContext {
  return {
    path: "github",
    now: "2025-03-14T09:30:00.000Z",
    headers: { "x-github-event": "push", "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958" },
    query: { env: "prod" },
    payload: push,
    ...over,
  };
}

const render = (tpl: string, c: TemplateContext = ctx()): string => compileTemplate(tpl).render(c);

describe("template rendering (SPEC §6.2)", () => {
  test("nested paths and indexes into the payload", () => {
    expect(render("{{ payload.repository.full_name }}")).toBe("ada-lab/garden-sensors");
    expect(render("{{payload.commits[1].author.username}}")).toBe("ada-moreau");
    expect(render("{{ commits[0].id }}")).toBe("3f1c9b2a7d4e5f60718293a4b5c6d7e8f9012345");
    expect(render('{{ payload["head_commit"]["added"][0] }}')).toBe("reports/weekly.py");
    expect(render("{{ payload.commits.1.added.0 }}")).toBe("reports/weekly.py");
  });

  test("a bare path reads the payload", () => {
    expect(render("{{ ref }} by {{ pusher.name }}")).toBe("refs/heads/main by ada-moreau");
  });

  test("headers, query, path and now", () => {
    expect(render("{{ headers.x-github-event }}/{{ headers.X-GitHub-Delivery }}")).toBe("push/72d3162e-cc78-11e3-81ab-4c9367dc0958");
    expect(render("{{ query.env }}")).toBe("prod");
    expect(render("hook {{ path }} at {{ now }}")).toBe("hook github at 2025-03-14T09:30:00.000Z");
  });

  test("missing values render as empty strings", () => {
    expect(render("[{{ payload.nope }}][{{ nope.deeper[3] }}][{{ headers.x-missing }}][{{ query.nope }}]")).toBe("[][][][]");
    expect(render("[{{ commits[99].id }}][{{ ref.length }}][{{ path.x }}][{{ now.y }}]")).toBe("[][][][]");
  });

  test("objects and arrays render as JSON; numbers, booleans and null as text", () => {
    expect(render("{{ pusher }}")).toBe('{"name":"ada-moreau","email":"ada@ada-lab.example"}');
    expect(render("{{ head_commit.added }}")).toBe('["reports/weekly.py"]');
    expect(render("{{ repository.stargazers_count }} {{ forced }} [{{ base_ref }}]")).toBe("7 false []");
  });

  test.each([
    "__proto__",
    "constructor.name",
    "prototype",
    "payload.__proto__",
    "payload.constructor",
    "commits.constructor.name",
    'payload["__proto__"]',
    "headers.constructor",
    "query.__proto__.toString",
  ])("{{%s}} never resolves", (expr) => {
    expect(render(`[{{${expr}}}]`)).toBe("[]");
  });

  // Payloads can carry these names as OWN keys (JSON.parse keeps "__proto__", "constructor" and
  // "prototype" as own properties; form bodies keep an own "__proto__"): they still never resolve.
  const hostile = JSON.parse(
    '{"__proto__":{"x":1},"constructor":{"name":"EVIL"},"prototype":"P","ok":"yes",' +
      '"nested":{"__proto__":{"x":2},"constructor":{"name":"EVIL2"},"prototype":"P2"},' +
      '"list":[{"__proto__":{"x":3},"constructor":"EVIL3","prototype":"P3"}]}',
  ) as Record<string, unknown>;
  const hostileCtx = (): TemplateContext =>
    ctx({ payload: hostile, headers: JSON.parse('{"constructor":"H","__proto__":"H2"}'), query: JSON.parse('{"prototype":"Q","constructor":"Q2"}') });

  test("the hostile payload really has own __proto__/constructor/prototype keys", () => {
    expect(Object.keys(hostile)).toEqual(["__proto__", "constructor", "prototype", "ok", "nested", "list"]);
    expect(render("{{ ok }}", hostileCtx())).toBe("yes");
  });

  test.each([
    "__proto__",
    "__proto__.x",
    "constructor",
    "constructor.name",
    "prototype",
    "payload.__proto__.x",
    "payload.constructor.name",
    "payload.prototype",
    'payload["__proto__"]',
    'payload["__proto__"]["x"]',
    'payload["constructor"]["name"]',
    'payload["prototype"]',
    'constructor["name"]',
    "nested.__proto__.x",
    "nested.constructor.name",
    "payload.nested.prototype",
    'nested["__proto__"].x',
    "list[0].__proto__.x",
    "list[0].constructor",
    'list[0]["prototype"]',
    "headers.constructor",
    "headers.__proto__",
    "query.prototype",
    "query.constructor",
    "__proto__ | json",
  ])("{{%s}} renders nothing even when the payload has that own key", (expr) => {
    expect(render(`[{{${expr}}}]`, hostileCtx())).toBe("[]");
  });

  test("a forbidden own key counts as missing for the default filter", () => {
    expect(render('{{ constructor.name | default: "none" }}/{{ prototype | default: "none" }}', hostileCtx())).toBe("none/none");
  });

  test("only own properties resolve (no inherited members)", () => {
    expect(render("[{{ toString }}][{{ hasOwnProperty }}][{{ payload.valueOf }}][{{ commits.map }}]")).toBe("[][][][]");
  });

  test("text outside expressions is kept, including single braces and newlines", () => {
    expect(render("{ a } {{ ref }}\n}}")).toBe("{ a } refs/heads/main\n}}");
  });

  test("a string literal expression renders as itself (to write literal braces)", () => {
    expect(render('{{ "{{" }} not a tag {{ "}}" }}')).toBe("{{ not a tag }}");
  });
});

describe("template filters", () => {
  test("default: replaces missing, null and empty values only", () => {
    expect(render('{{ payload.nope | default: "n/a" }}')).toBe("n/a");
    expect(render('{{ base_ref | default: "none" }}')).toBe("none");
    expect(render('{{ x | default: "empty" }}', ctx({ payload: { x: "" } }))).toBe("empty");
    expect(render('{{ ref | default: "n/a" }}')).toBe("refs/heads/main");
    expect(render('{{ forced | default: "n/a" }}')).toBe("false");
  });

  test("json: JSON text (strings quoted), with optional indent; missing stays empty", () => {
    expect(render("{{ ref | json }}")).toBe('"refs/heads/main"');
    expect(render("{{ pusher | json: 2 }}")).toBe('{\n  "name": "ada-moreau",\n  "email": "ada@ada-lab.example"\n}');
    expect(render("[{{ nope | json }}]")).toBe("[]");
    expect(render('{{ nope | default: "x" | json }}')).toBe('"x"');
  });

  test("truncate: at most N characters then an ellipsis, custom suffix, never splits a character", () => {
    expect(render("{{ head_commit.message | truncate: 10 }}")).toBe("Add weekly…");
    expect(render('{{ head_commit.message | truncate: 3, "..." }}')).toBe("Add...");
    expect(render("{{ ref | truncate: 100 }}")).toBe("refs/heads/main");
    expect(render("{{ s | truncate: 2 }}", ctx({ payload: { s: "😀😀😀" } }))).toBe("😀😀…");
    expect(render("{{ pusher | truncate: 8 }}")).toBe('{"name":…');
  });

  test("lower, upper and trim", () => {
    expect(render("{{ headers.x-github-event | upper }}")).toBe("PUSH");
    expect(render("{{ s | lower }}", ctx({ payload: { s: "MiXeD" } }))).toBe("mixed");
    expect(render("[{{ s | trim }}]", ctx({ payload: { s: "  padded \n" } }))).toBe("[padded]");
    expect(render("[{{ nope | upper }}]")).toBe("[]");
  });

  test("filters chain left to right", () => {
    expect(render('{{ s | trim | upper | truncate: 3 | default: "-" }}', ctx({ payload: { s: "  hello " } }))).toBe("HEL…");
    expect(render('{{ s | trim | default: "blank" }}', ctx({ payload: { s: "   " } }))).toBe("blank");
  });
});

describe("template syntax errors are found at compile time", () => {
  test.each([
    ["{{ ref", "unclosed '{{'"],
    ["{{ }}", "empty expression"],
    ["{{ a..b }}", "expected a name after '.'"],
    ["{{ a[x] }}", "expected an index or a quoted key inside [ ]"],
    ['{{ "open }}', "unterminated string"],
    ["{{ ref | shout }}", 'unknown filter "shout"'],
    ["{{ ref | truncate }}", 'filter "truncate" takes 1 to 2 argument(s), got 0'],
    ['{{ ref | truncate: "ten" }}', 'argument 1 of filter "truncate" must be a number'],
    ["{{ ref | truncate: 1.5 }}", "truncate needs a non-negative integer length"],
    ["{{ ref | upper: 1 }}", 'filter "upper" takes 0 argument(s), got 1'],
    ["{{ ref + 1 }}", "unexpected \"+\" (expected '|' or '}}')"],
  ])("%s → %s", (tpl, reason) => {
    let thrown: unknown;
    try {
      compileTemplate(tpl);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(TemplateSyntaxError);
    expect((thrown as TemplateSyntaxError).reason).toContain(reason);
  });

  test("the position points at the offending expression", () => {
    expect(() => compileTemplate("ok {{ ref }} then {{ ref | nope }}")).toThrow("at character 19");
  });
});

/**
 * Regression (SPEC §9 amplification, §14 no 50 ms stalls): `json: N` indented with
 * JSON.stringify, which adds N spaces per level to every line: 240 KB of a
 * 60-deep payload became a 72 MB string in one call (175 ms holding the event
 * loop) before the byte budget refused it. The rendering now stops just past the
 * budget; within it, the text is JSON.stringify's.
 */
describe("json: N on a deep payload stops at the render budget (regression: 240 KB rendered to 72 MB first)", () => {
  const deep = JSON.parse(`${"[".repeat(60)}0${",0".repeat(120_000)}${"]".repeat(60)}`) as unknown[];
  const MIB = 1024 * 1024;

  test.each([2, 10])("json: %i", (indent) => {
    const out = compileTemplate(`{{ payload.deep | json: ${indent} }}`).render(ctx({ payload: { deep } }), MIB);
    expect(out.length).toBeGreaterThan(MIB);
    expect(out.length).toBeLessThanOrEqual(MIB + 1 + 60 * indent);
    expect(out).toBe(JSON.stringify(deep, null, indent).slice(0, out.length));
  });

  test("within the budget, and after another filter, the text is JSON.stringify's", () => {
    expect(compileTemplate("{{ pusher | json: 2 }}").render(ctx(), MIB)).toBe(JSON.stringify(push.pusher, null, 2));
    expect(compileTemplate("{{ payload.deep | json: 2 | truncate: 20 }}").render(ctx({ payload: { deep } }), 100)).toBe(
      `${JSON.stringify(deep, null, 2).slice(0, 20)}…`,
    );
  });
});

test("indentJson gives JSON.stringify's text for any JSON value and indent", () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 10 }), (v, n) => {
      expect(indentJson(JSON.stringify(v), n)).toBe(JSON.stringify(v, null, n));
    }),
    { numRuns: 500 },
  );
});
