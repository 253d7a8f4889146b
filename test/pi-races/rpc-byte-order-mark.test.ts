/**
 * modelcontextprotocol/kotlin-sdk#956, replayed against a real `settle --rpc` child process: Codex
 * on Windows wrote a UTF-8 byte order mark (EF BB BF) ahead of its first JSON line on the server's
 * stdin, and the server refused the line and closed the session (the TypeScript SDK dropped such a
 * line, and its request timed out: typescript-sdk PR 2790). .NET hosts writing through a UTF-8
 * `StreamWriter` and Windows PowerShell 5.1 do the same. Settle, like pi 0.73.1, answered the line
 * with a `parse` error without the command's id: the client waiting on that id never heard back.
 * What the host should see: the mark ignored (RFC 8259 lets a parser do so), the command answered
 * under its id.
 */
import { describe, expect, it } from "vitest";
import { RpcClient, useCliProject } from "../cli/helpers.js";

const cli = useCliProject("settle-pi-races-rpc-bom-");

const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);

describe("modelcontextprotocol/kotlin-sdk#956: a byte order mark ahead of the first command makes it unreadable", () => {
	it("kotlin-sdk#956: settle --rpc: a get_state behind a UTF-8 byte order mark, and a prompt behind another one (a writer opened per message), are answered under their ids; no parse error", async () => {
		const client = new RpcClient(["--faux", "--no-session"], { cwd: cli.project, agentDir: cli.agentDir });
		// A refused line is answered too (a parse error without the id): the test fails on it, not by timing out.
		const answered = (id: string) => (line: Record<string, unknown>) =>
			line.type === "response" && (line.id === id || line.command === "parse");
		const state = client.next(answered("state"));
		client.child.stdin.write(Buffer.concat([BYTE_ORDER_MARK, Buffer.from('{"id":"state","type":"get_state"}\r\n')]));
		expect(await state).toMatchObject({
			id: "state",
			command: "get_state",
			success: true,
			data: { isStreaming: false },
		});
		const settled = client.next((line) => line.type === "agent_settled");
		const prompt = client.next(answered("hello"));
		client.child.stdin.write(
			Buffer.concat([BYTE_ORDER_MARK, Buffer.from('{"id":"hello","type":"prompt","message":"héllo"}\n')]),
		);
		expect(await prompt).toMatchObject({ id: "hello", command: "prompt", success: true });
		await settled;
		expect(await client.end()).toBe(0);
		expect(client.lines.filter((line) => line.command === "parse")).toEqual([]);
		const user = client.lines.find(
			(line) => line.type === "message_end" && (line.message as { role: string }).role === "user",
		);
		expect((user!.message as { content: unknown }).content).toEqual([{ type: "text", text: "héllo" }]);
	});
});
