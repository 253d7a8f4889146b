/**
 * The README's SDK example is code users copy: it must run as printed (with `cwd` and `agentDir`
 * given, and "settle" meaning this package) and print what the README says it prints. That it
 * type-checks is test/doctest's job (one program for every example, this block included).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCRATCH = join(ROOT, "test", "examples", ".tmp");
const PROGRAM = join(SCRATCH, "readme-sdk.mts");

/** The first ```ts block of the README's "The SDK in one example" section. */
function readmeSdkBlock(): string {
	const readme = readFileSync(join(ROOT, "README.md"), "utf8");
	const section = readme.slice(readme.indexOf("## The SDK in one example"));
	const match = /```ts\n([\s\S]*?)```/.exec(section);
	if (!match) throw new Error("README: no ts block under 'The SDK in one example'");
	return match[1]!;
}

beforeAll(() => {
	mkdirSync(SCRATCH, { recursive: true });
	const block = readmeSdkBlock();
	// A block that declares its own cwd is complete as printed; else give it the two it uses.
	const prelude = /\bconst cwd\b/.test(block)
		? ""
		: [
				'import { mkdtempSync } from "node:fs";',
				'import { tmpdir } from "node:os";',
				'import { join } from "node:path";',
				'const cwd = mkdtempSync(join(tmpdir(), "settle-readme-"));',
				'const agentDir = join(cwd, ".agent");',
				"",
			].join("\n");
	const body = block.replace(/from "settle";/, 'from "../../../src/index.js"; // "settle", from the sources');
	writeFileSync(PROGRAM, `${prelude}${body}\nexport {};\n`);
});

afterAll(() => {
	rmSync(SCRATCH, { recursive: true, force: true });
});

describe("the README's SDK example", () => {
	it("runs: the tool call reaches the extension, the lifecycle prints, one agent_settled", () => {
		// Whatever the example writes to the default agent dir or its temp project (the README does not
		// remove it) lands in the scratch dir, not in ~/.settle or the real temp dir.
		const tmp = join(SCRATCH, "tmp");
		mkdirSync(tmp, { recursive: true });
		const result = spawnSync(process.execPath, ["--import", "tsx", PROGRAM], {
			cwd: ROOT,
			encoding: "utf8",
			timeout: 60_000,
			env: { ...process.env, SETTLE_AGENT_DIR: join(SCRATCH, "agent"), TMPDIR: tmp },
		});
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		expect(result.stdout).toContain("tool_call weather");
		expect(result.stdout).toContain("preflight → running.working");
		expect(result.stdout.match(/^agent_settled$/gm)).toHaveLength(1);
	}, 90_000); // the child's own 60 s limit reports a hang with its output; this one must not fire first
});
