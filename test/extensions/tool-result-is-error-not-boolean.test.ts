/**
 * A `tool_result` handler returning an `isError` that is not a boolean
 * ("yes", 1) had it applied as is: the saved tool result held `isError: "yes"` and the provider's
 * request carried it as the result's error flag (pi 0.73.1 does the same). Now the field is ignored
 * and reported to `onError` with the extension's path and what to return; the other fields apply.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Context } from "../../src/llm/types.js";
import { createPeer } from "../parity/peers.js";
import { programTools } from "./pi-differential-program.js";

describe("tool_result handler returning an isError that is not a boolean", () => {
	for (const returned of ['"yes"', "1"]) {
		it(`isError ${returned}: reported with the extension's path, ignored; the saved result and the request keep a boolean`, async () => {
			const errors: { extensionPath: string; event: string; error: string }[] = [];
			const seen: unknown[] = [];
			const dir = mkdtempSync(join(tmpdir(), "settle-is-error-"));
			const file = join(dir, "flag.ts");
			writeFileSync(
				file,
				`export default function (pi) {\n\tpi.on("tool_result", () => ({ isError: ${returned}, content: [{ type: "text", text: "rewritten" }] }));\n}\n`,
			);
			const peer = await createPeer("settle", {
				customTools: programTools(),
				extensionPaths: [file],
				onError: (error) => void errors.push({ ...error }),
			});
			try {
				peer.script([
					{ toolCalls: [{ id: "call-1", name: "echo", args: { text: "hi" } }] },
					(_request, _peer, _signal, context) => {
						seen.push(...(context as Context).messages.filter((m) => m.role === "toolResult").map((m) => m.isError));
						return { text: "done" };
					},
				]);
				await peer.prompt("go");
				const saved = peer
					.fileEntries()
					.flatMap((entry) => ((entry.message as { role?: string })?.role === "toolResult" ? [entry.message] : []));
				expect(saved).toMatchObject([{ content: [{ type: "text", text: "rewritten" }], isError: false }]);
				expect(seen).toEqual([false]);
				expect(errors).toEqual([
					{
						extensionPath: file,
						event: "tool_result",
						error: `A tool_result handler returned isError ${returned}, not a boolean; it was ignored. Return isError: true or false (or leave it out).`,
					},
				]);
			} finally {
				peer.cleanup();
				rmSync(dir, { recursive: true, force: true });
			}
		});
	}
});
