/**
 * Reports about loading extensions and what they register at load time, replayed against real
 * `settle` child processes with extension files on disk.
 *
 * - pi#8064: `pi.registerFlag("plan", { type: "boolean", default: "false" })` (a string default on a
 *   boolean flag) made `getFlag("plan")` return the truthy string `"false"` when the flag was not
 *   given: the option was on unless the user passed it. Settle refuses the registration, so the
 *   extension fails to load with an error naming the flag and the default to write.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

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
