/**
 * Reports about loading extensions and what they register at load time, replayed against real
 * `settle` child processes with extension files on disk.
 *
 * - pi#8064: `pi.registerFlag("plan", { type: "boolean", default: "false" })` (a string default on a
 *   boolean flag) made `getFlag("plan")` return the truthy string `"false"` when the flag was not
 *   given: the option was on unless the user passed it. Settle refuses the registration, so the
 *   extension fails to load with an error naming the flag and the default to write.
 * - pi#7406: a guard extension takes `bash` out of the active set; another extension registers a
 *   tool at run time (an MCP bridge from `before_agent_start`), and the refresh that follows must
 *   activate only the new tool. With a `--tools` allowlist (SDK `tools`) every refresh activated
 *   every allowed tool again, `bash` among them. Driven through the SDK harness on the faux model.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionAPI } from "../../src/extensions/types.js";
import { fauxAssistantMessage } from "../../src/llm/faux.js";
import { createHarness, type Harness } from "../../src/testing/harness.js";
import { useCliProject } from "../cli/helpers.js";
import { script } from "./helpers.js";

const cli = useCliProject("settle-pi-races-ext-loading-");

describe("pi#8064: an extension flag whose default disagrees with its type", () => {
	const planExtension = (flagOptions: string) =>
		`export default function (pi: any) {
	pi.registerFlag("plan", ${flagOptions});
	pi.on("session_start", (_e: unknown, ctx: any) => ctx.ui.notify("plan=" + JSON.stringify(pi.getFlag("plan"))));
}
`;

	it('pi#8064: a boolean flag with default "false" fails to load, saying which default to write; nothing runs with plan mode on', () => {
		const extension = join(cli.dir, "plan.ts");
		writeFileSync(extension, planExtension(`{ type: "boolean", default: "false", description: "Plan first" }`));
		const run = cli.settle(["--faux", "--no-session", "-e", extension, "-p", "hi"]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(
			`pi.registerFlag("plan") has type "boolean" but default "false" (a string): give a boolean default, e.g. default: false.`,
		);
		expect(run.stderr).not.toContain("plan=");
	});

	it("pi#8064: a string flag with a boolean default fails to load the same way", () => {
		const extension = join(cli.dir, "mode.ts");
		writeFileSync(extension, planExtension(`{ type: "string", default: true }`));
		const run = cli.settle(["--faux", "--no-session", "-e", extension, "-p", "hi"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(
			`pi.registerFlag("plan") has type "string" but default true (a boolean): give a string default, e.g. default: "".`,
		);
	});

	it("pi#8064: a boolean default of the right type reads false until --plan is given", () => {
		const extension = join(cli.dir, "plan.ts");
		writeFileSync(extension, planExtension(`{ type: "boolean", default: false }`));
		const off = cli.settle(["--faux", "--no-session", "-e", extension, "-p", "hi"]);
		expect(off).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(off.stderr).toContain("plan=false");
		const on = cli.settle(["--faux", "--no-session", "-e", extension, "--plan", "-p", "hi"]);
		expect(on).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(on.stderr).toContain("plan=true");
	});
});

describe("pi#7406: a tool registered at run time re-activates one a guard extension turned off", () => {
	let h: Harness | undefined;
	afterEach(() => h?.cleanup());

	function bridgeTool(pi: ExtensionAPI, description: string): void {
		pi.registerTool({
			name: "mcp_search",
			label: "mcp_search",
			description,
			parameters: { type: "object", properties: {} },
			execute: async () => ({ content: [{ type: "text", text: "found" }], details: {} }),
		});
	}

	/** A guard that turns `bash` off at start-up, and a bridge that registers its tool lazily, twice. */
	const extensions = [
		(pi: ExtensionAPI) =>
			pi.on("session_start", () => pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "bash"))),
		(pi: ExtensionAPI) => {
			let connects = 0;
			pi.on("before_agent_start", () => {
				connects++;
				// The second connect re-registers in place (the server announced list_changed).
				bridgeTool(pi, `search, version ${connects}`);
			});
		},
	];

	for (const [label, tools] of [
		["with a --tools allowlist", ["read", "bash", "mcp_search"]],
		["without an allowlist", undefined],
	] as const) {
		it(`pi#7406: ${label}, bash stays off in every request; the bridge's new tool is on`, async () => {
			h = await createHarness({ extensionFactories: extensions, ...(tools ? { tools: [...tools] } : {}) });
			const toolsOf = (i: number) => h!.faux.requests[i]!.tools?.map((tool) => tool.name) ?? [];
			expect(h.session.getActiveToolNames()).not.toContain("bash");

			script(h, [fauxAssistantMessage("one"), fauxAssistantMessage("two")]);
			await h.session.prompt("first");
			await h.session.prompt("second");
			expect(toolsOf(0)).toContain("mcp_search");
			expect(toolsOf(0)).not.toContain("bash");
			expect(toolsOf(1)).not.toContain("bash");
			expect(h.faux.requests[1]!.tools?.find((tool) => tool.name === "mcp_search")?.description).toBe(
				"search, version 2",
			);
			expect(h.session.getActiveToolNames()).not.toContain("bash");
		});
	}
});
