/**
 * `settle --rpc` while the read tool resizes a 12-megapixel photo (a real CLI child process from the
 * sources, the faux provider calling `read`): the server keeps answering commands — photon works
 * in the resizer's worker thread, not on the event loop.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeImage } from "../tools/image-resize-helpers.js";
import { RpcClient, useCliProject } from "./helpers.js";

const cli = useCliProject("settle-rpc-image-");

/** A 4000×3000 JPEG: resizing it takes photon 1–3 s on this machine. */
let photo: Buffer;
beforeAll(() => {
	photo = encodeImage("jpeg", 4000, 3000, 7, 40);
}, 60_000);

/** A server whose model first reads photo.jpg, then answers "done". */
function readingServer(): RpcClient {
	writeFileSync(join(cli.project, "photo.jpg"), photo);
	const script = join(cli.dir, "script.json");
	writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "read", arguments: { path: "photo.jpg" } }] }, "done"]));
	return new RpcClient(["--faux-script", script, "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
}

const toolEnd = (line: Record<string, unknown>) => line.type === "tool_execution_end";

describe("settle --rpc during a large image resize", () => {
	it("keeps answering get_state while the read tool resizes, then sends the resized image", async () => {
		const server = readingServer();
		const started = server.next((line) => line.type === "tool_execution_start");
		let toolEnded = false;
		const ended = server.next(toolEnd).then((line) => {
			toolEnded = true;
			return line as { result: { content: { type: string; text?: string }[] }; isError: boolean };
		});
		await server.request({ id: "p", type: "prompt", message: "look" });
		await started;
		const toolStarted = performance.now();
		// Ping-pong: the next get_state goes out shortly after the last one is answered, until the tool ends.
		let answers = 0;
		let longestWait = 0;
		while (!toolEnded) {
			const sent = performance.now();
			const state = await server.request({ id: `s${answers++}`, type: "get_state" });
			longestWait = Math.max(longestWait, performance.now() - sent);
			expect(state).toMatchObject({ command: "get_state", success: true });
			// Pacing (not synchronisation): a few pings per resize are enough, a busy loop would slow it.
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		const toolTook = performance.now() - toolStarted;
		// Resizing on the event loop holds one answer back for the whole resize (about the whole tool
		// call); with photon in the worker thread, answers keep coming. A share of the tool call's own
		// time, not milliseconds, so that a loaded machine stretching both cannot flip the result.
		expect(longestWait).toBeLessThan(toolTook / 2);
		expect(answers).toBeGreaterThan(3);
		const end = await ended;
		expect(end.isError).toBe(false);
		expect(end.result.content[0]?.text).toContain("[Image: original 4000x3000, displayed at 2000x1500.");
		expect(end.result.content[1]?.type).toBe("image");
		expect(await server.end()).toBe(0);
		expect(server.stderr).toBe("");
	}, 60_000);
});
