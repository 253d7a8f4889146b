/**
 * A session through Settle's public SDK (the bundled `index.js` of the current sources, argv[2])
 * in a process of its own, so the test can lower and lift this process's file size limit
 * (RLIMIT_FSIZE, `prlimit --pid`) between prompts. Protocol: it prints JSON lines
 * `{ready, pid}` and `{done, ...}` per prompt; it reads one prompt per stdin line (`exit` ends it).
 * SIGXFSZ must be ignored by whoever starts it (`trap '' XFSZ`), so a write past the limit fails
 * with EFBIG instead of killing the process.
 */
const [indexUrl, sessionFile, project, agentDir] = process.argv.slice(2);
const settle = await import(indexUrl);
const faux = settle.createFauxProvider();
const modelRuntime = new settle.InMemoryModelRuntime();
modelRuntime.registerFauxProvider(faux);
const sessionManager = settle.SessionManager.open(sessionFile);
const { session } = await settle.createAgentSession({
	cwd: project,
	agentDir,
	modelRuntime,
	settingsManager: settle.SettingsManager.inMemory(),
	sessionManager,
});
const say = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
say({ ready: true, pid: process.pid });

/** stdin's lines, one at a time. */
async function* stdinLines() {
	let buffer = "";
	process.stdin.setEncoding("utf8");
	for await (const chunk of process.stdin) {
		buffer += chunk;
		for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
			yield buffer.slice(0, nl);
			buffer = buffer.slice(nl + 1);
		}
	}
}

for await (const line of stdinLines()) {
	if (line === "exit") break;
	const settled = [];
	const unsubscribe = session.subscribe((event) => {
		if (event.type === "agent_settled") settled.push(event);
	});
	faux.appendResponses([settle.fauxAssistantMessage(`answer to ${line.slice(0, 20)}`)]);
	let rejected;
	try {
		await session.prompt(line);
	} catch (error) {
		rejected = { code: error.code, message: error.message };
	}
	unsubscribe();
	const last = session.messages.at(-1);
	say({
		done: true,
		settled: settled.length,
		rejected,
		last: { role: last.role, stopReason: last.stopReason, errorMessage: last.errorMessage },
		// What the session holds in memory: the roles of its transcript and of its entries.
		transcript: session.messages.map((message) => message.role),
		entries: sessionManager.getEntries().length,
	});
}
session.dispose();
sessionManager.close();
say({ closed: true });
