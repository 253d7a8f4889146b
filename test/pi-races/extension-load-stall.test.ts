/**
 * Fusion#3579: start-up sat on "Loading extensions…" for 6 min 40 s, nothing in the log: an
 * extension's load awaited a handshake that never came. pi waits for every factory as long as it
 * takes, and so does Settle; what the user should get is the name of the extension it waits for
 * when they stop it (Ctrl+C, a supervisor's SIGTERM), or when nothing is left that could finish it.
 * Replayed with real `settle -p` child processes and extensions that wait on a socket they opened.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signalSettleWhen, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-ext-load-stall-");

/** Waits for a handshake from a server that accepts and never answers; says so on stderr first. */
const HANDSHAKE = `import { connect, createServer } from "node:net";
async function handshake(): Promise<void> {
	const server = createServer(() => {});
	await new Promise<void>((listening) => server.listen(0, "127.0.0.1", () => listening()));
	console.error("connecting to the bridge");
	await new Promise((answered) => connect((server.address() as { port: number }).port, "127.0.0.1").on("data", answered));
}
`;

const WHAT_TO_DO =
	"Make its module and factory finish (resolve or reject), or start without that extension (without its -e, or with --no-extensions).";

describe("Fusion#3579: start-up waits on an extension that never finishes loading", () => {
	for (const [phase, body, said] of [
		["factory", "export default async function (pi: any) {\n\tawait handshake();\n}\n", "its factory has not returned"],
		["module", "await handshake();\nexport default function (pi: any) {}\n", "its module is still being imported"],
	] as const) {
		it(`Fusion#3579: Ctrl+C while an extension's ${phase} waits on a handshake: settle -p names the extension and what to do, exit 130`, async () => {
			const good = join(cli.dir, "good.ts");
			writeFileSync(good, "export default function (pi: any) {}\n");
			const bridge = join(cli.dir, `bridge-${phase}.ts`);
			writeFileSync(bridge, HANDSHAKE + body);
			const run = await signalSettleWhen(["--faux", "--no-session", "-e", good, "-e", bridge, "-p", "hi"], {
				cwd: cli.project,
				agentDir: cli.agentDir,
				stream: "stderr",
				text: "connecting to the bridge",
				signal: "SIGINT",
				guardMs: 60_000,
			});
			expect(run).toMatchObject({ code: 130, stdout: "" });
			expect(run.stderr).toBe(
				`connecting to the bridge\nsettle: stopped while waiting for an extension to load:\n  ${bridge} (${said})\n${WHAT_TO_DO}\n`,
			);
		});
	}

	it("Fusion#3579: a factory awaiting a promise nothing can settle: settle -p names the extension instead of the bare stall, exit 1", () => {
		const stuck = join(cli.dir, "stuck.ts");
		writeFileSync(stuck, "export default async function (pi: any) {\n\tawait new Promise(() => {});\n}\n");
		const run = cli.settle(["--faux", "--no-session", "-e", stuck, "-p", "hi"]);
		expect(run).toMatchObject({ code: 1, stdout: "" });
		expect(run.stderr).toBe(
			`settle: the run cannot go on: it waits for a promise that never settles, in\n  ${stuck} (its factory has not returned)\n${WHAT_TO_DO.slice(0, -1)}; settle exits.\n`,
		);
	});
});
