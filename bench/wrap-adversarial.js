#!/usr/bin/env node
"use strict";
/**
 * Times the external-content safety wrapper (src/safety/wrap.ts, loaded from
 * source with jiti, no build needed) on adversarial texts: long runs of every
 * bracket the marker detection knows, marker look-alikes back to back, failing
 * anchors, long separator runs, and a text of distinct code points (cold fold
 * cache). Prints one row per text and size: the median of 3 wraps in ms (wall
 * clock, and CPU time of this process), and µs per 1,000 characters, so linear
 * growth shows as a flat column. The first of the 3 wraps runs cold (JIT, fold cache).
 *
 *   node bench/wrap-adversarial.js                 # 32 and 256 KiB (in UTF-16 code units)
 *   WRAP_BENCH_KIB=8,16,32 node bench/wrap-adversarial.js
 *   WRAP_BENCH_CAP_MS=5000 …                       # skip larger sizes of a text once one wrap took longer
 *   WRAP_BENCH_ONLY="prose,markers" …              # only the texts whose label contains one of these
 *
 * Exit code 0 always: this measures, the test suite asserts (test/safety/wrap-linear.test.ts).
 */
const path = require("node:path");
const { createJiti } = require("jiti");

const ROOT = path.resolve(__dirname, "..");
const jiti = createJiti(__filename);
const { wrapExternalContent } = jiti(path.join(ROOT, "src/safety/wrap.ts"));

const SIZES_KIB = (process.env.WRAP_BENCH_KIB ?? "32,256").split(",").map(Number);
const CAP_MS = Number(process.env.WRAP_BENCH_CAP_MS ?? 20000);
const ONLY = process.env.WRAP_BENCH_ONLY ? process.env.WRAP_BENCH_ONLY.split(",") : undefined;

/** `unit` repeated until the text has `units` UTF-16 code units (never splitting a code point). */
function fill(unit, units) {
  const reps = Math.ceil(units / unit.length);
  const text = unit.repeat(reps);
  let end = units;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

/** Distinct BMP code points above U+00A0 (no surrogates, no private use): every character is a fold-cache miss the first time. */
function distinctCodePoints(units) {
  let out = "";
  let cp = 0xa1;
  while (out.length < units) {
    if (cp >= 0xd800 && cp <= 0xf8ff) cp = 0xf900;
    if (cp > 0xfffd) cp = 0xa1;
    out += String.fromCharCode(cp++);
  }
  return out;
}

const TEXTS = [
  ["ASCII prose (baseline)", (n) => fill("The deploy of build 42 finished; 3 tests were skipped. ", n)],
  ["'<' run", (n) => fill("<", n)],
  ["'‹' run", (n) => fill("\u2039", n)],
  ["'«' run", (n) => fill("\u00AB", n)],
  ["'＜' run", (n) => fill("\uFF1C", n)],
  ["mixed brackets run", (n) => fill("<\u2039\u00AB\uFF1C\u3008\u27E8\u276E\u27EA\u1438\u226A", n)],
  ["'<' run then a marker", (n) => fill("<", n - 40) + "END_EXTERNAL_UNTRUSTED_CONTENT>>>"],
  ["end markers back to back", (n) => fill("<<<END_EXTERNAL_UNTRUSTED_CONTENT>>>", n)],
  ["partial markers back to back", (n) => fill("<<<END_EXTERNAL", n)],
  [
    "small-capital markers",
    (n) => fill("<<<\u1D07\u0274\u1D05_\u1D07X\u1D1B\u1D07\u0280\u0274\u1D00\u029F_\u1D1C\u0274\u1D1B\u0280\u1D1C\uA731\u1D1B\u1D07\u1D05>>>", n),
  ],
  [
    "Cherokee/Lisu markers",
    (n) =>
      fill(
        "\u1438\u1438\u1438\u13AC\uA4E0\u13A0_\uA4F0\uA4EB\u13A2\u13AC\u13D2\uA4E0\u13AA\u13DE_\uA4F4\uA4E0\u13A2\u13D2\uA4F4\u13DA\u13A2\u13AC\u13A0\u1433\u1433\u1433",
        n,
      ),
  ],
  ["failing anchors 'EXTERNAL '", (n) => fill("EXTERNAL ", n)],
  ["'<<EXTERNAL' + '_A' chain", (n) => "<<EXTERNAL" + fill("_A", n - 10)],
  ["'EXTERNAL' + separator run", (n) => "EXTERNAL" + fill(" ", n - 8)],
  ["distinct code points (cold cache)", (n) => distinctCodePoints(n)],
];

/** One wrap: wall-clock and CPU milliseconds (CPU time is what a loaded machine does not inflate). */
function timeOnce(text) {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  wrapExternalContent(text, { hook: "wake" }, { idGen: () => "0123456789abcdef" });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

const median = (values) => values.sort((a, b) => a - b)[1];

const rows = [];
for (const [label, make] of TEXTS) {
  if (ONLY && !ONLY.some((part) => label.includes(part))) continue;
  for (const kib of SIZES_KIB) {
    const text = make(kib * 1024);
    const first = timeOnce(text);
    if (first.wall > CAP_MS) {
      rows.push({ text: label, KiB: kib, "wall ms (median of 3)": `>${CAP_MS} (one run: ${first.wall.toFixed(0)})`, "CPU ms": "", "µs/1k chars": "" });
      break;
    }
    const all = [first, timeOnce(text), timeOnce(text)];
    const wall = median(all.map((t) => t.wall));
    const cpu = median(all.map((t) => t.cpu));
    rows.push({
      text: label,
      KiB: kib,
      "wall ms (median of 3)": wall.toFixed(2),
      "CPU ms": cpu.toFixed(2),
      "µs/1k chars": ((wall * 1000) / (text.length / 1000)).toFixed(1),
    });
  }
}
console.log(`wrapExternalContent on adversarial texts (node ${process.version}; KiB = 1024 UTF-16 code units)`);
console.table(rows);
