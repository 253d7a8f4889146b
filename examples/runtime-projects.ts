/**
 * The runtime across two projects: `createAgentSessionRuntime` keeps one "current session" slot
 * and rebuilds settings, AGENTS.md, skills, extensions and the tools' working directory for each
 * target's project. A replacement that fails (here: a session whose project was deleted) leaves
 * the current session exactly as it was.
 *
 *   npx tsx examples/runtime-projects.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	createAgentSessionRuntime,
	createAgentSessionRuntimeFactory,
	createFauxProvider,
	fauxAssistantMessage,
	fauxToolCall,
	getDefaultSessionDir,
	InMemoryModelRuntime,
	MissingSessionCwdError,
	SessionManager,
} from "settle";

const root = mkdtempSync(join(tmpdir(), "settle-runtime-"));
const agentDir = join(root, "agent");

/** A project with its own AGENTS.md and an extension (in .settle/extensions) that logs what it sees. */
function project(name: string): string {
	const cwd = join(root, name);
	mkdirSync(join(cwd, ".settle", "extensions"), { recursive: true });
	writeFileSync(join(cwd, "AGENTS.md"), `You work on project ${name}.`);
	writeFileSync(
		join(cwd, ".settle", "extensions", "log.ts"),
		`export default (pi) => {
	for (const type of ["session_before_switch", "session_shutdown", "session_start"]) {
		pi.on(type, (event) => console.log(\`  [${name}] \${type}\${event.reason ? \` (\${event.reason})\` : ""}\`));
	}
};
`,
	);
	return cwd;
}
const alpha = project("alpha");
const beta = project("beta");

const faux = createFauxProvider();
const modelRuntime = new InMemoryModelRuntime();
modelRuntime.registerFauxProvider(faux);
// trustProject: the projects' own extensions may run (otherwise they are listed with a diagnostic).
const factory = createAgentSessionRuntimeFactory({ modelRuntime, resourceLoaderOptions: { trustProject: true } });

// Sessions under our agentDir (SessionManager.create(cwd) alone would use ~/.settle/agent).
const sessionDir = (cwd: string) => getDefaultSessionDir(cwd, agentDir);
const runtime = await createAgentSessionRuntime(factory, {
	cwd: alpha,
	agentDir,
	sessionManager: SessionManager.create(alpha, sessionDir(alpha)),
});
runtime.setRebindSession((session) => session.bindExtensions()); // each new session's extensions get session_start
await runtime.session.bindExtensions();

/** One prompt whose reply runs `pwd`: the tools follow the project. */
async function whereAmI(): Promise<void> {
	faux.setResponses([
		fauxAssistantMessage([fauxToolCall("bash", { command: "pwd" })], { stopReason: "toolUse" }),
		(context) =>
			fauxAssistantMessage(
				`(AGENTS.md in the system prompt: project ${/You work on project (\w+)/.exec(context.systemPrompt ?? "")?.[1]})`,
			),
	]);
	await runtime.session.prompt("Where are we?");
	const pwd = runtime.session.messages.findLast((message) => message.role === "toolResult");
	const reply = runtime.session.messages.at(-1);
	const text = (message: typeof reply) =>
		message && "content" in message && Array.isArray(message.content) && message.content[0]?.type === "text"
			? message.content[0].text.trim()
			: "";
	console.log(`  bash pwd → ${text(pwd).replace(root, "<root>")} ${text(reply)}`);
}

console.log("In alpha:");
await whereAmI();

// A session of beta, written by another manager (say, yesterday).
const betaManager = SessionManager.create(beta, sessionDir(beta));
betaManager.appendMessage({ role: "user", content: "Set up beta", timestamp: Date.now() });
betaManager.appendMessage(fauxAssistantMessage("Beta is set up."));
const betaFile = betaManager.getSessionFile()!;
betaManager.close();

console.log("switchSession(beta's file):");
await runtime.switchSession(betaFile);
console.log(`  runtime.cwd → ${runtime.cwd.replace(root, "<root>")}`);
await whereAmI();

// A session whose project is gone: refused before anything is torn down.
const gamma = project("gamma");
const gammaManager = SessionManager.create(gamma, sessionDir(gamma));
gammaManager.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
gammaManager.appendMessage(fauxAssistantMessage("hello"));
const gammaFile = gammaManager.getSessionFile()!;
gammaManager.close();
rmSync(gamma, { recursive: true });

const before = runtime.session;
console.log("switchSession(gamma's file), gamma deleted:");
try {
	await runtime.switchSession(gammaFile);
} catch (error) {
	if (!(error instanceof MissingSessionCwdError)) throw error;
	console.log(`  ${error.code}: nothing torn down; same session: ${runtime.session === before}`);
}
await whereAmI();

await runtime.dispose();
rmSync(root, { recursive: true, force: true });
