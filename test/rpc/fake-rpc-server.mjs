// A misbehaving RPC server for test/rpc/rpc-client-peers.test.ts: stray and malformed lines
// around its answers, a response to an id nobody sent, a line split across writes, a command it
// never answers (abort), one that crashes it (bash), a refusal (prompt) and a dialog (get_commands);
// any other command is echoed as a `received` event and answered with marker data.
import { createInterface } from "node:readline";

const write = (text) => process.stdout.write(text);
const respond = (command, extra) =>
	write(`${JSON.stringify({ id: command.id, type: "response", command: command.type, ...extra })}\n`);

createInterface({ input: process.stdin }).on("line", (line) => {
	const command = JSON.parse(line);
	switch (command.type) {
		case "get_state": {
			write('Debugger listening (not JSON)\n[1,2]\nnull\n42\n{"no":"type"}\n\n');
			write(`${JSON.stringify({ type: "response", id: "stranger", command: "get_state", success: true })}\n`);
			// LF-only framing: U+2028 inside a string is not a line break; CRLF is tolerated.
			write(`${JSON.stringify({ type: "custom_note", text: "a\u2028b" })}\r\n`);
			const response = JSON.stringify({
				id: command.id,
				type: "response",
				command: "get_state",
				success: true,
				data: { isStreaming: false, sessionId: "fake" },
			});
			write(response.slice(0, 10));
			setImmediate(() => write(`${response.slice(10)}\n`));
			return;
		}
		case "abort":
			return; // never answered
		case "bash":
			process.stderr.write("fatal: out of cheese\n");
			process.exit(3);
			return;
		case "prompt":
			respond(command, { success: false, error: "No model selected." });
			return;
		case "extension_ui_response":
			write(`${JSON.stringify({ type: "dialog_answered", answer: command })}\n`);
			return;
		case "get_commands":
			write(
				`${JSON.stringify({ type: "extension_ui_request", id: "d1", method: "confirm", title: "Sure?", message: "really" })}\n`,
			);
			respond(command, { success: true, data: { commands: [] } });
			return;
		default: {
			// Says what it received (an event), and answers every list/text field a response may carry.
			const { id, ...received } = command;
			write(`${JSON.stringify({ type: "received", command: received })}\n`);
			respond(command, {
				success: true,
				data: { of: command.type, messages: ["m"], models: ["M"], commands: ["c"], text: "t" },
			});
		}
	}
});
