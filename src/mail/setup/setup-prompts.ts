/**
 * Line-based prompts for `mail setup` on a terminal (node:readline). Lines are
 * queued as they arrive, so piped answers are never lost between two questions.
 */
import readline from "node:readline";
import type { Readable, Writable } from "node:stream";
import { isMailError } from "../mail-error";

export interface Prompter {
  /**
   * Asks until `parse` accepts the answer. Enter keeps `defaultValue` (shown in brackets).
   * A rejected answer prints the parser's message and asks again.
   */
  ask<T>(question: string, parse: (answer: string) => T, defaultValue?: string): Promise<T>;
  close(): void;
}

export function createPrompter(input: Readable, output: Writable): Prompter {
  const rl = readline.createInterface({ input, output, terminal: false });
  const lines: string[] = [];
  const waiters: Array<(line: string | undefined) => void> = [];
  let ended = false;
  rl.on("line", (line) => {
    const w = waiters.shift();
    if (w) w(line);
    else lines.push(line);
  });
  rl.on("close", () => {
    ended = true;
    for (const w of waiters.splice(0)) w(undefined);
  });
  const nextLine = (): Promise<string | undefined> => {
    if (lines.length > 0) return Promise.resolve(lines.shift());
    if (ended) return Promise.resolve(undefined);
    return new Promise((resolve) => waiters.push(resolve));
  };

  return {
    async ask(question, parse, defaultValue) {
      for (;;) {
        output.write(defaultValue !== undefined && defaultValue !== "" ? `${question} [${defaultValue}]: ` : `${question}: `);
        const line = await nextLine();
        if (line === undefined) throw new Error("input ended before setup was complete");
        const answer = line.trim() === "" && defaultValue !== undefined ? defaultValue : line;
        try {
          return parse(answer);
        } catch (e) {
          if (!isMailError(e)) throw e;
          output.write(`  ${e.message}\n`);
        }
      }
    },
    close() {
      rl.close();
    },
  };
}
