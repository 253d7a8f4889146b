/**
 * pi#7195: the user keeps extensions with their dotfiles and links them in: `~/.pi/agent/extensions`
 * a symlink to `~/dots/.../extensions`. From then on pi detected none of them; with a real folder
 * they loaded. The maintainers' replay names the layouts a dotfiles setup makes: the extensions folder
 * itself a symlink, a symlinked `.ts` file inside it, and a symlinked sub-folder with an `index.ts`.
 * Replayed with real `settle -p` child processes and extension files on disk: every layout loads.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-ext-folders-");

/** An extension that says it was loaded once the session starts. */
function writeGreeter(path: string, name: string): void {
	writeFileSync(
		path,
		`export default function (pi: any) {
	pi.on("session_start", (_event: unknown, ctx: any) => ctx.ui.notify("loaded ${name}"));
}
`,
	);
}

describe("pi#7195: extensions in a symlinked folder are not loaded", () => {
	it("pi#7195: the agent's extensions folder a symlink into dotfiles, a symlinked .ts file and a symlinked folder with index.ts in it: settle -p loads all three", () => {
		const dots = join(cli.dir, "dots", "extensions");
		mkdirSync(dots, { recursive: true });
		writeGreeter(join(dots, "linked-folder.ts"), "linked-folder");
		const shared = join(cli.dir, "shared");
		mkdirSync(join(shared, "tools-pack"), { recursive: true });
		writeGreeter(join(shared, "single.ts"), "linked-file");
		writeGreeter(join(shared, "tools-pack", "index.ts"), "linked-subfolder");
		symlinkSync(join(shared, "single.ts"), join(dots, "single.ts"));
		symlinkSync(join(shared, "tools-pack"), join(dots, "tools-pack"));
		mkdirSync(cli.agentDir, { recursive: true });
		symlinkSync(dots, join(cli.agentDir, "extensions"));

		const run = cli.settle(["--faux", "--no-session", "-p", "hi"]);
		expect(run).toMatchObject({ code: 0, stdout: "hi\n" });
		expect(run.stderr).toContain("loaded linked-folder");
		expect(run.stderr).toContain("loaded linked-file");
		expect(run.stderr).toContain("loaded linked-subfolder");
		expect(run.stderr).not.toMatch(/error/i);
	});
});
