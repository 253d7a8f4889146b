/** The doc-test machinery itself: what counts as a code block, a free name, a checked result comment. */
import { describe, expect, it } from "vitest";
import { fencedTsBlocks } from "./collect.js";
import { freeIdentifiers, withResultChecks } from "./scratch.js";

describe("fencedTsBlocks", () => {
	it("takes ts and typescript fences with their first code line, and skips other languages", () => {
		const lines = ["text", "```ts", "a();", "```", "```bash", "ls", "```", "```typescript", "b();", "c();", "```"];
		expect(fencedTsBlocks(lines)).toEqual([
			{ start: 2, code: "a();" },
			{ start: 8, code: "b();\nc();" },
		]);
	});

	it("reports an unclosed fence instead of swallowing the rest of the comment", () => {
		expect(() => fencedTsBlocks(["```ts", "a();"])).toThrow("unclosed code fence at line 1");
	});
});

describe("freeIdentifiers", () => {
	it("finds names read but not declared, and leaves out properties, imports and locals", () => {
		const { free } = freeIdentifiers(
			[
				'import { join } from "node:path";',
				"const dir = join(cwd, 'x');",
				"const { a: local } = session.state;",
				"function f(p: Options) { return p.value + local; }",
				"console.log(f({ value: 1 }), dir, { session });",
			].join("\n"),
		);
		expect([...free].sort()).toEqual(["Options", "console", "cwd", "session"]);
	});

	it("lists relative imports (the reader's own files)", () => {
		expect(freeIdentifiers('import gate from "./gate.js";\nimport { x } from "settle";').relativeImports).toEqual([
			"./gate.js",
		]);
	});
});

describe("withResultChecks", () => {
	it("turns `expr; // <literal>` into a check on the same line, with the source line", () => {
		const { code, checks } = withResultChecks('f(1); // true\nconst x = 2;\ng("a"); // { a: [1, null], b: "x" }', 40);
		expect(checks).toBe(2);
		expect(code.split("\n")).toEqual([
			"__doctestExpect((f(1)), (true), 40); // true",
			"const x = 2;",
			'__doctestExpect((g("a")), ({ a: [1, null], b: "x" }), 42); // { a: [1, null], b: "x" }',
		]);
	});

	it("checks the argument of `console.log(x); // <literal>` and still prints it", () => {
		expect(withResultChecks("console.log(n); // -1").code).toBe("console.log(__doctestExpect((n), (-1), 1)); // -1");
	});

	it("leaves prose, abbreviated literals and names alone", () => {
		const code = ["f(); // true for 529 errors", 'g(); // { a: "…" }', "h(); // ok", 'k(); // "a" (when x)'].join("\n");
		expect(withResultChecks(code)).toEqual({ code, checks: 0 });
	});
});
