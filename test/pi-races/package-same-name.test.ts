/**
 * One pi package reached from two sources, replayed with real `settle` processes, the real `npm`
 * (offline, from a tarball `npm pack` made) and real settings files:
 *
 * - pi#6466: the package installed globally from npm, and its development checkout installed for
 *   the project (`pi install . --local` in the checkout): pi dedupes by source (npm name, path), so
 *   both copies loaded, their tool and flag collided, and pi would not start in the checkout.
 * - pi#4033: the same package listed twice in one settings file (its local checkout and
 *   `npm:<name>`): both loaded silently, every tool, skill and template twice.
 * - pi#8098: an extension folder under the agent's `extensions/` that an installer also added to
 *   `packages` (`pi install <that folder>`): pi compared the folder with its `index.ts`, loaded it
 *   twice, renamed its command `/viking:1` and `/viking:2`, and a bare `/viking` went to the model.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runSettle } from "../cli/helpers.js";
import { settingsOf, usePackageFolders, write, writePiPackage } from "../cli/package-fixtures.js";

const folders = usePackageFolders("settle-pi-races-package-same-name-");

function settle(args: string[], cwd = folders.project) {
	return runSettle(args, { cwd, agentDir: folders.agentDir, env: folders.env });
}

/** pi package `kit` whose extension registers what two copies collide on: a tool, a flag, a command. */
function writeKit(root: string, marker: string): void {
	writePiPackage(root, "kit", "1.0.0", marker);
	write(
		join(root, "extensions", "hello.ts"),
		`export default function (pi: any) {
	pi.registerFlag("warhammer", { type: "boolean", description: "kit's flag" });
	pi.registerTool({
		name: "kit_tool",
		label: "kit",
		description: "kit's tool",
		parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: "${marker}" }] }),
	});
	pi.registerCommand("kit", { description: "kit", handler: async (args: string, ctx: any) => ctx.ui.notify("kit ${marker} ran " + args) });
}
`,
	);
}

// The release's tarball, `npm pack`ed once for the file's tests (about 1 s): they only install it.
const packs = mkdtempSync(join(tmpdir(), "settle-pi-races-package-same-name-packs-"));
let releaseTarball: string | undefined;
afterAll(() => rmSync(packs, { recursive: true, force: true }));

/** `kit` ("release") packed and installed globally with `settle install npm:…`, as from the registry. */
function installReleaseGlobally(): string {
	if (!releaseTarball) {
		const release = join(packs, "kit-release");
		writeKit(release, "release");
		execFileSync("npm", ["pack", "--pack-destination", packs, release], {
			cwd: packs,
			env: { ...process.env, ...folders.env },
			stdio: "ignore",
		});
		releaseTarball = join(packs, "kit-1.0.0.tgz");
	}
	const source = `npm:kit@file:${releaseTarball}`;
	expect(settle(["install", source]).code).toBe(0);
	return source;
}

describe("pi#6466: a package's development checkout next to its global npm install", () => {
	it("pi#6466: in the checkout installed with settle install . -l, settle starts, /kit, the skill and the template are the checkout's, and nothing conflicts", () => {
		installReleaseGlobally();
		const checkout = join(folders.dir, "kit");
		writeKit(checkout, "dev");
		expect(settle(["install", ".", "-l"], checkout).code).toBe(0);
		expect(settingsOf(join(checkout, ".settle", "settings.json")).packages).toEqual([".."]);

		const command = settle(["--approve", "--faux", "--no-session", "-p", "/kit hi"], checkout);
		expect(command.stderr).not.toContain("conflicts");
		expect(command).toMatchObject({ code: 0, stderr: "[info] hello.ts: kit dev ran hi\n" });
		const skill = settle(["--approve", "--faux", "--no-session", "-p", "/skill:kit-skill go"], checkout);
		expect(skill.stdout).toContain("Skill body of kit dev.");
		expect(skill.stderr).toBe("");
		const template = settle(["--approve", "--faux", "--no-session", "-p", "/kit-review z"], checkout);
		expect(template.stdout).toContain("Review z with kit dev.");

		// Elsewhere the global install is the one that loads.
		expect(settle(["--faux", "--no-session", "-p", "/kit hi"]).stderr).toBe("[info] hello.ts: kit release ran hi\n");
	}, 60_000); // npm pack (once per file), an offline npm install, six settle processes
});

describe("pi#4033: one package listed twice in one settings file, from two sources", () => {
	it("pi#4033: the entry listed first loads, once; a warning names the other entry and says to remove one", () => {
		const npmSource = installReleaseGlobally();
		const checkout = join(folders.dir, "kit");
		writeKit(checkout, "dev");
		expect(settle(["install", checkout]).code).toBe(0);
		expect(settingsOf(join(folders.agentDir, "settings.json")).packages).toEqual([npmSource, "../kit"]);

		const run = settle(["--faux", "--no-session", "-p", "/kit hi"]);
		expect(run).toMatchObject({
			code: 0,
			stderr: `Warning: Package ../kit (in ${join(folders.agentDir, "settings.json")}) not loaded: it is package "kit", which ${npmSource}, listed before it, loads already. Remove one of the two entries.\n[info] hello.ts: kit release ran hi\n`,
		});
		expect(settle(["--faux", "--no-session", "-p", "/kit-review z"]).stdout).toContain("Review z with kit release.");
	}, 60_000); // npm pack (once per file), an offline npm install, four settle processes
});

describe("pi#8098: an auto-discovered extension folder also listed in packages", () => {
	it("pi#8098: after settle install of a folder under the agent's extensions/, the extension loads once and /viking runs it once, by its own name", () => {
		const folder = join(folders.agentDir, "extensions", "viking");
		mkdirSync(folder, { recursive: true });
		write(
			join(folder, "index.ts"),
			`export default function (pi: any) {
	pi.on("session_start", (_e: unknown, ctx: any) => ctx.ui.notify("viking loaded"));
	pi.registerCommand("viking", { description: "viking", handler: async (args: string, ctx: any) => ctx.ui.notify("viking ran " + args) });
}
`,
		);
		expect(settle(["install", folder]).code).toBe(0);
		expect(settingsOf(join(folders.agentDir, "settings.json")).packages).toEqual(["extensions/viking"]);

		const run = settle(["--faux", "--no-session", "-p", "/viking hi"]);
		expect(run).toMatchObject({
			code: 0,
			stdout: "",
			stderr: "[info] viking/index.ts: viking loaded\n[info] viking/index.ts: viking ran hi\n",
		});
	});
});
