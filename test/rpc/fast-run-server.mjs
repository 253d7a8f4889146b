// An RPC server whose runs end at once, for test/rpc/rpc-client-peers.test.ts (pi#8965): a prompt's
// response and the run's events, up to the idle event, go out in ONE write, as a fast local model
// makes them arrive. `--pi`: get_state without `lifecycle` (pi's server; runs end at agent_end).
// A prompt "exit" is answered the same way, then the server exits.
import { createInterface } from "node:readline";

const pi = process.argv.includes("--pi");
const line = (value) => `${JSON.stringify(value)}\n`;

createInterface({ input: process.stdin }).on("line", (text) => {
	const command = JSON.parse(text);
	if (command.type === "get_state") {
		const data = { isStreaming: false, sessionId: "fast", ...(pi ? {} : { lifecycle: "idle" }) };
		process.stdout.write(line({ id: command.id, type: "response", command: "get_state", success: true, data }));
		return;
	}
	if (command.type !== "prompt") {
		process.stdout.write(line({ id: command.id, type: "response", command: command.type, success: true }));
		return;
	}
	const chunk = [
		line({
			id: command.id,
			type: "response",
			command: "prompt",
			success: true,
			...(pi ? {} : { data: { disposition: "started" } }),
		}),
		line({ type: "agent_start" }),
		line({ type: "agent_end", messages: [] }),
		...(pi ? [] : [line({ type: "agent_settled" })]),
	].join("");
	if (command.message === "exit") process.stdout.write(chunk, () => process.exit(0));
	else process.stdout.write(chunk);
});
