import { createErrorCatalogue, fillTemplate } from "../../src/host-contract/error-catalogue";

class TestError extends Error {
  constructor(
    readonly code: string,
    message: string,
    opts: { cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
  }
}

const CATALOGUE = {
  plain: { code: "plain_code", message: "Nothing to fill." },
  one: { code: "one_code", message: "Port {port} is taken." },
  two: { code: "two_code", message: "{flag} must be a number (got {got})." },
  repeated: { code: "two_code", message: "{path}/a or {path}/b" },
} as const;

const errors = createErrorCatalogue(CATALOGUE, ({ entry, message }, opts?: { cause?: unknown }) => new TestError(entry.code, message, opts));

describe("createErrorCatalogue", () => {
  it("makes an entry without placeholders from its options alone", () => {
    const e = errors.plain();
    expect(e).toBeInstanceOf(TestError);
    expect(e.code).toBe("plain_code");
    expect(e.message).toBe("Nothing to fill.");
  });

  it("fills each placeholder with its argument, numbers as written", () => {
    expect(errors.one({ port: 8080 }).message).toBe("Port 8080 is taken.");
    expect(errors.two({ flag: "--max-bytes", got: "ten" }).message).toBe("--max-bytes must be a number (got ten).");
    expect(errors.repeated({ path: "/hooks" }).message).toBe("/hooks/a or /hooks/b");
  });

  it("copies an argument that looks like a placeholder as it is (one pass, no re-expansion)", () => {
    expect(errors.two({ flag: "{got}", got: "{flag}" }).message).toBe("{got} must be a number (got {flag}).");
  });

  it("keeps the cause on the error, out of the message", () => {
    const cause = new Error("EACCES /var/secret/state");
    const e = errors.one({ port: 1 }, { cause });
    expect(e.cause).toBe(cause);
    expect(e.message).toBe("Port 1 is taken.");
    expect(e.message).not.toContain("EACCES");
    const plain = errors.plain({ cause });
    expect(plain.cause).toBe(cause);
    expect(plain.message).toBe("Nothing to fill.");
  });

  it("types each factory after its template: a missing, misnamed or extra argument does not compile", () => {
    // The directives below fail `npm run lint` (tsc) if the call compiles; at run time the
    // factory refuses a missing argument too.
    // @ts-expect-error: the template needs {port}
    expect(() => errors.one()).toThrow("error template one needs {port} (a string or number)");
    // @ts-expect-error: {got} is missing
    expect(() => errors.two({ flag: "--port" })).toThrow("error template two needs {got} (a string or number)");
    // @ts-expect-error: there is no {prot}
    expect(() => errors.one({ prot: 1 })).toThrow("error template one needs {port}");
    // @ts-expect-error: the template has no placeholder, so the first parameter is the options
    errors.plain({ port: 1 });
    // @ts-expect-error: only strings and numbers fill a template
    expect(() => errors.one({ port: { toString: () => "x" } })).toThrow("error template one needs {port}");
  });

  it("refuses a message whose placeholders the compiler cannot see (built with +)", () => {
    const joined = "Port {port}" + " is taken.";
    // @ts-expect-error: a message of type string would make every call compile
    const loose = createErrorCatalogue({ joined: { message: joined } }, ({ message }) => new Error(message));
    expect(Object.keys(loose)).toEqual(["joined"]);
  });

  it("refuses a template with a stray brace when the catalogue is created", () => {
    const build = ({ message }: { message: string }) => new Error(message);
    expect(() => createErrorCatalogue({ bad: { message: "a { b" } }, build)).toThrow('error template bad: "{" at 2 starts no {placeholder}');
    expect(() => createErrorCatalogue({ bad: { message: "{not a name}" } }, build)).toThrow('error template bad: "{" at 0 starts no {placeholder}');
    expect(() => createErrorCatalogue({ bad: { message: "a } b" } }, build)).toThrow('error template bad: "}" at 2 closes no placeholder');
  });
});

describe("fillTemplate", () => {
  it("fills a template outside a catalogue", () => {
    expect(fillTemplate("{header} must be 1 to {max} characters", { header: "idempotency-key", max: 255 })).toBe("idempotency-key must be 1 to 255 characters");
  });

  it("is linear in the size of the arguments: a 1 MiB argument full of braces is copied once", () => {
    const big = "{x}".repeat(350_000);
    expect(fillTemplate("<{x}>", { x: big })).toBe(`<${big}>`);
  });
});
