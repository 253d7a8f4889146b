/**
 * `settle -p` names the extension each `ctx.ui.notify` line on stderr comes from (`[warning]
 * deploy.ts: …`; a folder's `index.ts` with its folder), and `settle --json` puts each notification
 * and dialog in the stream as an `extension_notify` / `extension_dialog` line carrying the
 * extension's path (stderr stays empty). Real `settle` child processes, real extension files.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliProject } from "./helpers.js";

const cli = useCliProject("settle-notify-print-");

/** Two extensions: a file that notifies and asks, a folder's index.ts that notifies from a command. */
function writeExtensions(): { deploy: string; folder: string } {
	const deploy = join(cli.dir, "deploy.ts");
	writeFileSync(
		deploy,
		`export default function (pi: any) {
	pi.on("session_start", async (_event: unknown, ctx: any) => {
		ctx.ui.notify("disk almost full", "warning");
		const sure = await ctx.ui.confirm("Deploy now?", "3 files");
		ctx.ui.notify(\`answered \${sure}\`);
	});
}
`,
	);
	const folder = join(cli.dir, "audit");
	mkdirSync(folder);
	writeFileSync(
		join(folder, "index.ts"),
		`export default function (pi: any) {
	pi.registerCommand("audit", { description: "Audits.", handler: async (_args: string, ctx: any) => ctx.ui.notify("audited", "error") });
}
`,
	);
	return { deploy, folder: join(folder, "index.ts") };
}

describe("extension notifications in settle -p and settle --json", () => {
	it("-p: each notification line, and each dialog not asked, on stderr names its extension; the answer alone on stdout", () => {
		const { deploy, folder } = writeExtensions();
		const run = cli.settle(["--faux", "--no-session", "-e", deploy, "-e", folder, "-p", "/audit", "hi"]);
		expect(run).toEqual({
			code: 0,
			stdout: "hi\n",
			stderr:
				'[warning] deploy.ts: disk almost full\n[dialog] deploy.ts: confirm "Deploy now?" not asked (no UI): false; run settle -i or --rpc to answer it, or make the extension check ctx.hasUI\n' +
				"[info] deploy.ts: answered false\n[error] audit/index.ts: audited\n",
		});
	});

	it("--json: notifications and dialogs are lines of the stream with the extension's path; nothing on stderr", () => {
		const { deploy, folder } = writeExtensions();
		const run = cli.settle(["--faux", "--no-session", "-e", deploy, "-e", folder, "--json", "/audit"]);
		expect([run.code, run.stderr]).toEqual([0, ""]);
		const events = run.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string })
			.filter((event) => event.type.startsWith("extension_"));
		expect(events).toEqual([
			{ type: "extension_notify", message: "disk almost full", notifyType: "warning", extensionPath: deploy },
			{ type: "extension_dialog", kind: "confirm", title: "Deploy now?", answer: false, extensionPath: deploy },
			{ type: "extension_notify", message: "answered false", notifyType: "info", extensionPath: deploy },
			{ type: "extension_notify", message: "audited", notifyType: "error", extensionPath: folder },
		]);
	});
});
