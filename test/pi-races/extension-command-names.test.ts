/**
 * An extension command registered with its slash in the name (`pi.registerCommand("/deploy", …)`),
 * as hosts that key commands by their typed form expect. Replayed with a real `settle -p` child
 * process, a real extension file, on the faux model (which echoes the prompt it got).
 *
 * agent-afk#1654: commands registered as `/afk` showed, and were inserted, as `//afk`. maki#640: a
 * plugin command registered in the other form silently never matched what the user typed. In
 * Settle (and pi 0.73.1) `/deploy prod` went to the model as a chat message, without a word: the
 * command answered only `//deploy`. What the user should see: `/deploy prod` runs the command.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-command-names-");

describe("agent-afk#1654: a command registered with its slash", () => {
	it('agent-afk#1654, maki#640: `pi.registerCommand("/deploy")` runs on `/deploy prod` with `prod` as its arguments; nothing reaches the model', () => {
		const log = join(cli.dir, "deploy.log");
		writeFileSync(log, "");
		const extension = join(cli.dir, "deploy.mjs");
		writeFileSync(
			extension,
			`import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.registerCommand("/deploy", { description: "Deploys", handler: async (args) => appendFileSync(${JSON.stringify(log)}, "deploy " + args + "\\n") });
}
`,
		);
		const run = cli.settle(["--faux", "--no-session", "-e", extension, "-p", "/deploy prod"]);
		expect(run).toMatchObject({ code: 0, stdout: "", stderr: "" });
		expect(readFileSync(log, "utf8")).toBe("deploy prod\n");
	});
});
