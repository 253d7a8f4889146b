/**
 * pi#2388, replayed against a real `settle --rpc` child process: an extension (pi's `notify.ts`
 * example) wrote an OSC 777 notification escape to `process.stdout` on `agent_end`, with no line
 * break. In RPC mode stdout is the protocol: the bytes joined the next JSON line, the client's parser
 * dropped it, and the client never saw the run end. What the client should see: every stdout line
 * is one JSON object, `agent_end` and `agent_settled` arrive, and the extension's bytes go to stderr.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-rpc-stdout-");

describe("pi#2388: an extension's raw stdout writes corrupt the RPC stream", () => {
	it("pi#2388: settle --rpc: an OSC 777 escape written to process.stdout on agent_end (no newline) goes to stderr; every stdout line parses and agent_end / agent_settled arrive", async () => {
		const extension = join(cli.dir, "notify.ts");
		writeFileSync(
			extension,
			`export default function (pi) {
	pi.on("agent_end", () => { process.stdout.write("\\x1b]777;notify;π;Ready for input\\x07"); });
}
`,
		);
		// The helper parses every stdout line as JSON: a corrupted line fails the test there.
		const client = new RpcClient(["--faux", "--no-session", "-e", extension], {
			cwd: cli.project,
			agentDir: cli.agentDir,
		});
		const settled = client.next((line) => line.type === "agent_settled");
		expect(await client.request({ id: "p", type: "prompt", message: "hi" })).toMatchObject({ success: true });
		await settled;
		expect(await client.request({ id: "s", type: "get_state" })).toMatchObject({ data: { isStreaming: false } });
		expect(await client.end()).toBe(0);
		const types = client.lines.map((line) => line.type);
		expect(types).toContain("agent_end");
		expect(types.indexOf("agent_end")).toBeLessThan(types.indexOf("agent_settled"));
		expect(client.stderr).toContain("\x1b]777;notify;π;Ready for input\x07");
	});
});
