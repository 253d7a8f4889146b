/**
 * `settle --model provider/virtual-id`: a virtual model an extension registers (pi 1.6
 * docs/virtual-models.md) selected on the command line, routed per request, restored on --continue.
 * Real child processes on the faux model.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { runSettle } from "./helpers.js";
import { Repl } from "./interactive.helpers.js";

let dir: string;
let agentDir: string;
let project: string;
let extension: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "settle-cli-virtual-"));
	agentDir = join(dir, "agent");
	project = join(dir, "project");
	mkdirSync(project);
	extension = join(dir, "router.ts");
	writeFileSync(
		extension,
		`export default function (pi: any) {
	pi.registerVirtualModel({
		provider: "router",
		id: "auto",
		name: "Auto",
		thinkingLevels: ["low", "high"],
		route(request: any, ctx: any) {
			ctx.ui.notify(\`route \${request.reason} \${request.thinkingLevel} -> faux/faux-1\`);
			return { model: ctx.modelRegistry.find("faux", "faux-1"), thinkingLevel: "high" };
		},
	});
}
`,
	);
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

function settle(args: string[]) {
	return runSettle(args, { cwd: project, agentDir, timeoutMs: 60_000 });
}

function sessionFile(): string {
	const found: string[] = [];
	const walk = (current: string) => {
		if (!existsSync(current)) return;
		for (const entry of readdirSync(current, { withFileTypes: true })) {
			if (entry.isDirectory()) walk(join(current, entry.name));
			else if (entry.name.endsWith(".jsonl")) found.push(join(current, entry.name));
		}
	};
	walk(agentDir);
	expect(found).toHaveLength(1);
	return found[0]!;
}

function lines(text: string): Record<string, unknown>[] {
	return text
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

it("--model router/auto routes each request to a physical model; --continue restores the virtual selection", () => {
	const first = settle(["--faux", "-e", extension, "--model", "router/auto", "--thinking", "low", "--json", "hi"]);
	// --json: the notification is an event in the stream, naming the extension; stderr stays empty.
	expect(first.stderr).toBe("");
	expect(first.code).toBe(0);
	expect(lines(first.stdout)).toContainEqual({
		type: "extension_notify",
		message: "route user low -> faux/faux-1",
		notifyType: "info",
		extensionPath: extension,
	});
	const ends = lines(first.stdout).filter((event) => event.type === "message_end");
	const assistant = ends.map((event) => event.message as Record<string, unknown>).find((m) => m.role === "assistant");
	// faux-1 cannot reason: the routed "high" is clamped to "off".
	expect(assistant).toMatchObject({ provider: "faux", model: "faux-1", thinkingLevel: "off", stopReason: "stop" });
	const recorded = lines(readFileSync(sessionFile(), "utf8"));
	expect(recorded.filter((entry) => entry.type === "model_change").at(-1)).toMatchObject({
		provider: "router",
		modelId: "auto",
	});

	// The virtual selection is restored from model_change, so the router runs again.
	const again = settle(["--faux", "-e", extension, "--continue", "-p", "again"]);
	expect(again.stdout).toBe("again\n");
	expect(again.stderr).toContain("[info] router.ts: route user low -> faux/faux-1");
	expect(again.code).toBe(0);

	// Without the extension the virtual model is gone: the physical model that answered last takes over.
	const fallback = settle(["--faux", "--continue", "-p", "third"]);
	expect(fallback.stdout).toBe("third\n");
	expect(fallback.stderr).not.toContain("route");
	expect(fallback.code).toBe(0);
});

it("settle -i's /session names the model the virtual selection was last routed to", async () => {
	const chat = new Repl(["--faux", "-e", extension, "--model", "router/auto", "--thinking", "low"], {
		cwd: project,
		agentDir,
	});
	await chat.idle(0);
	// Nothing answered yet: no route to show.
	expect(await chat.say("/session")).toContain("  model: router/auto, thinking low\n");
	await chat.say("hi", "hi\n");
	// faux-1 cannot reason: the routed "high" was clamped to "off" for the request.
	expect(await chat.say("/session")).toContain("  model: router/auto → faux/faux-1 (thinking off), thinking low\n");
	expect(await chat.end()).toBe(0);
}, 60_000);

it("--list-models lists the virtual model with the physical ones", () => {
	const run = settle(["--faux", "-e", extension, "--list-models"]);
	expect(run.code).toBe(0);
	// Unset limits are unknown (0), as pi prints them; the offered levels make it a thinking model.
	expect(run.stdout).toBe("faux/faux-1  128000 tokens\nrouter/auto  0 tokens  thinking\n");
});
