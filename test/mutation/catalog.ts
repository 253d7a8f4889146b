/**
 * The manual mutation audit of the test suite (no Stryker): single-point mutants of the code that
 * matters most, each with the test folders that must catch it. `run.ts` applies one at a time, runs
 * those tests, and restores the file. A mutant marked `equivalent` cannot change what a user
 * observes (the reason says why); every other one must be killed. When code moves, a mutant whose
 * `find` text is gone is reported as stale: update it here rather than deleting it.
 */

/**
 * One textual change: `find` becomes `replace`. `find` must be unique in the file, or `after` names
 * a text unique in the file and the first `find` after it is the one meant. An anchor of text, not a
 * line number, so that edits elsewhere in the file don't make the mutant stale.
 */
export interface MutantEdit {
	find: string;
	replace: string;
	after?: string;
}

export interface Mutant {
	id: string;
	/** Repository-relative path of the mutated file. */
	file: string;
	/** The behavior the change breaks. */
	description: string;
	edits: MutantEdit[];
	/** Test files or folders that must fail with the mutant applied. */
	tests: string[];
	/** Why the mutant cannot change observable behavior (then it is expected to survive). */
	equivalent?: string;
}

export const MUTANTS: Mutant[] = [
	{
		id: "M01",
		file: "machines/prompt-operation.machine.ts",
		description: "backoff exponent attempt instead of attempt-1",
		edits: [
			{
				find: "2 ** Math.max(0, attempt - 1)",
				replace: "2 ** Math.max(0, attempt)",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M02",
		file: "machines/prompt-operation.machine.ts",
		description: "one retry fewer (>= maxRetries)",
		edits: [
			{
				find: "attempt > settings.maxRetries",
				replace: "attempt >= settings.maxRetries",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M03",
		file: "machines/prompt-operation.machine.ts",
		description: "requested delay equal to cap gives up",
		edits: [
			{
				find: "requested > settings.maxAgentDelayMs",
				replace: "requested >= settings.maxAgentDelayMs",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M04",
		file: "machines/prompt-operation.machine.ts",
		description: "drop previous-delay floor",
		edits: [
			{
				find: "Math.round(Math.max(0, options.floorMs ?? 0))",
				replace: "0",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M05",
		file: "machines/prompt-operation.machine.ts",
		description: "cap 0 means cap at 0 instead of no cap",
		edits: [
			{
				find: "const capped = settings.maxAgentDelayMs > 0 ?",
				replace: "const capped = settings.maxAgentDelayMs >= 0 ?",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M06",
		file: "machines/prompt-operation.machine.ts",
		description: "overflow recovery not limited to once",
		edits: [
			{
				find: " && !context.overflowRecoveryAttempted",
				replace: "",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M07",
		file: "machines/prompt-operation.machine.ts",
		description: "over-window successful answer is re-run",
		edits: [
			{
				find: 'outcome.stopReason !== "stop")',
				replace: "true)",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M08",
		file: "machines/prompt-operation.machine.ts",
		description: "abort after run goes through before-settle boundary",
		edits: [
			{
				find: 'guard: "abortRequested", target: "settling", actions: "finishCancelledRetry"',
				replace: 'guard: "abortRequested", target: "beforeSettle", actions: "finishCancelledRetry"',
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M09",
		file: "machines/prompt-operation.machine.ts",
		description: "abortRetry retries at once instead of settling",
		edits: [
			{
				find: 'ABORT_RETRY: { target: "settling"',
				replace: 'ABORT_RETRY: { target: "running"',
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M10",
		file: "machines/prompt-operation.machine.ts",
		description: "retry success announced without a retry",
		edits: [
			{
				find: "context.retryAttempt > 0,",
				replace: "context.retryAttempt >= 0,",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M11",
		file: "machines/prompt-operation.machine.ts",
		description: "retry plan attempt off by one",
		edits: [
			{
				find: "planRetry(retrySettingsOf(context), context.retryAttempt + 1,",
				replace: "planRetry(retrySettingsOf(context), context.retryAttempt + 2,",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M12",
		file: "machines/prompt-operation.machine.ts",
		description: "length stop resets overflow-once flag",
		edits: [
			{
				find: 'event.stopReason === "error" || event.stopReason === "length"',
				replace: 'event.stopReason === "error"',
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M13",
		file: "machines/prompt-operation.machine.ts",
		description: "new user message does not reset overflow flag",
		edits: [
			{
				find: 'USER_MESSAGE_START: { actions: "resetOverflowRecovery" }',
				replace: "USER_MESSAGE_START: {}",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M14",
		file: "machines/prompt-operation.machine.ts",
		description: "failed/cancelled overflow compaction re-runs",
		edits: [
			{
				find: "params.output.compacted && ",
				replace: "",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M15",
		file: "machines/prompt-operation.machine.ts",
		description: "prompt during settling dropped",
		edits: [
			{
				// The one in `settling` (the line after its SETTLE_FAILED), not the one in `preflight`.
				find: '"clearOperation"] },\n\t\t\t\tPROMPT: { actions: "deferPrompt" }',
				replace: '"clearOperation"] },\n\t\t\t\tPROMPT: {}',
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M16",
		file: "machines/prompt-operation.machine.ts",
		description: "deferred prompts taken LIFO",
		edits: [
			{
				find: "context.deferredPrompts[0]",
				replace: "context.deferredPrompts[context.deferredPrompts.length - 1]",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M17",
		file: "machines/prompt-operation.machine.ts",
		description: "failed settle re-settles",
		edits: [
			{
				find: 'SETTLE_FAILED: { target: "idle"',
				replace: 'SETTLE_FAILED: { target: "settling"',
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M18",
		file: "machines/prompt-operation.machine.ts",
		description: "postRun ignores messages queued after agent_end",
		edits: [
			{
				find: "hasQueuedMessages: ({ context }) => context.lastOutcome?.hasQueuedMessages === true",
				replace: "hasQueuedMessages: () => false",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M19",
		file: "machines/prompt-operation.machine.ts",
		description: "exhausted retry loses finalError text",
		edits: [
			{
				find: 'outcome?.errorMessage || "Unknown error"',
				replace: '"Unknown error"',
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M20",
		file: "machines/prompt-operation.machine.ts",
		description: "auto_retry_start.maxAttempts off by one",
		edits: [
			{
				find: "maxAttempts: retrySettingsOf(context).maxRetries",
				replace: "maxAttempts: retrySettingsOf(context).maxRetries + 1",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M21",
		file: "machines/prompt-operation.machine.ts",
		description: "abort during boundary ignored when boundary continues",
		edits: [
			{
				after: "BEFORE_SETTLE_DONE: [",
				find: '{ guard: "abortRequested", target: "settling" },',
				replace: "",
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M22",
		file: "machines/prompt-operation.machine.ts",
		description: "abort during preflight not remembered",
		edits: [
			{
				after: 'PROMPT: { actions: "deferPrompt" },\n\t\t\t\tABORT: [',
				find: '{\n\t\t\t\t\t\tactions: [\n\t\t\t\t\t\t\t"markAbortRequested",\n\t\t\t\t\t\t\t{ type: "signalAbort", params: { target: "preflight" } },\n\t\t\t\t\t\t\t"cancelDeferredCompactionOnAbort",',
				replace:
					'{\n\t\t\t\t\t\tactions: [\n\t\t\t\t\t\t\t{ type: "signalAbort", params: { target: "preflight" } },\n\t\t\t\t\t\t\t"cancelDeferredCompactionOnAbort",',
			},
		],
		tests: ["test/machines", "test/recovery", "test/session"],
	},
	{
		id: "M23",
		file: "machines/prompt-operation.machine.ts",
		description: "a run that added nothing re-runs for the messages still queued (microtask livelock)",
		edits: [
			{
				find: "context.lastOutcome?.hasQueuedMessages === true && context.lastOutcome.madeProgress === false",
				replace: "false",
			},
		],
		tests: ["test/machines", "test/session"],
	},
	{
		id: "M24",
		file: "machines/prompt-operation.machine.ts",
		description: "the boundary may repeat a continuation that added nothing",
		edits: [
			{
				find: 'params.output.continue && context.runCause === "boundary" && context.lastOutcome?.madeProgress === false',
				replace: "false",
			},
		],
		tests: ["test/machines", "test/session"],
	},
	{
		id: "R01",
		file: "machines/runtime.machine.ts",
		description: "shutdown failure continues the teardown instead of rolling back",
		edits: [
			{
				find: 'onError: teardownStepFailed("shuttingDown", "invalidating"),',
				replace:
					'onError: teardownStepFailed("shuttingDown", "invalidating").map((t) => ({ ...t, target: "invalidating" })),',
			},
		],
		tests: ["test/machines/runtime.test.ts", "test/machines/runtime.model.test.ts", "test/runtime"],
	},
	{
		id: "R02",
		file: "machines/runtime.machine.ts",
		description: "rollback does not rebind the old session",
		edits: [
			{
				find: "shutdownAnnounced: true",
				replace: "shutdownAnnounced: false",
			},
		],
		tests: ["test/machines/runtime.test.ts", "test/machines/runtime.model.test.ts", "test/runtime"],
	},
	{
		id: "R03",
		file: "machines/runtime.machine.ts",
		description: "DISPOSE during a replacement is lost",
		edits: [
			{
				find: "context.disposeRequested",
				replace: "false",
			},
		],
		tests: ["test/machines/runtime.test.ts", "test/machines/runtime.model.test.ts", "test/runtime"],
	},
	{
		id: "R04",
		file: "machines/runtime.machine.ts",
		description: "withSession callback never runs",
		edits: [
			{
				find: '"withSession" in context.request',
				replace: "false",
			},
		],
		tests: ["test/machines/runtime.test.ts", "test/machines/runtime.model.test.ts", "test/runtime"],
	},
	{
		id: "R05",
		file: "machines/runtime.machine.ts",
		description: "session_shutdown reason fork reported as resume",
		edits: [
			{
				find: 'kind === "fork" ? "fork" : "resume"',
				replace: '"resume"',
			},
		],
		tests: ["test/machines/runtime.test.ts", "test/machines/runtime.model.test.ts", "test/runtime"],
	},
	{
		id: "R06",
		file: "src/runtime/runtime.ts",
		description: "rollback leaks the prepared session",
		edits: [
			{
				find: "if (created) discard(created);",
				replace: "",
			},
		],
		tests: ["test/machines/runtime.test.ts", "test/machines/runtime.model.test.ts", "test/runtime"],
	},
	{
		id: "R07",
		file: "src/runtime/runtime.ts",
		description: "factory failure does not release the target",
		edits: [
			{
				find: "releaseTarget(handle);",
				replace: "",
			},
		],
		tests: ["test/machines/runtime.test.ts", "test/machines/runtime.model.test.ts", "test/runtime"],
	},
	{
		id: "R08",
		file: "src/runtime/runtime.ts",
		description: "old session file not released after switch",
		edits: [
			{
				find: "if (!sharedWithNext) session.sessionManager.close();",
				replace: "",
			},
		],
		tests: ["test/machines/runtime.test.ts", "test/machines/runtime.model.test.ts", "test/runtime"],
	},
	{
		id: "S01",
		file: "src/session/event-bridge.ts",
		description: "persist before public listeners (bridge order swapped)",
		edits: [
			{
				find: 's.events.emit(forwarded);\n\tif (message.role === "toolResult" && s.scratch.answeredAtDispose?.has(message.toolCallId)) return undefined;\n\ts.transcript.persist(message);',
				replace: "s.transcript.persist(message);\n\ts.events.emit(forwarded);",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S02",
		file: "src/session/event-bridge.ts",
		description: "replacement not put in the live transcript before listeners",
		edits: [
			{
				find: "if (messages[messages.length - 1] === event.message) messages[messages.length - 1] = replacement;",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S03",
		file: "src/session/event-bridge.ts",
		description: "length answer ends the failing request (overflow flag reset)",
		edits: [
			{
				find: ' && message.stopReason !== "length"',
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
		equivalent:
			"the machine's noteAssistantMessageEnd ignores a length stop too, and retrySucceeded needs retryAttempt > 0, in which case the event is sent anyway",
	},
	{
		id: "S04",
		file: "src/session/queues.ts",
		description: "follow-up display list never drained without steering",
		edits: [
			{
				find: "if (this.steering.length === 0 && this.followUp.length === 0) return;",
				replace: "if (this.steering.length === 0) return;",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S05",
		file: "src/session/queues.ts",
		description: "clearQueue leaves messages in the agent queue",
		edits: [
			{
				find: "this.agent.clearAllQueues();",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S06",
		file: "src/session/queues.ts",
		description: "clearQueue emits no queue_update",
		edits: [
			{
				find: "this.emitUpdate();",
				replace: "",
				after: "clear(): QueuedTexts {",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S07",
		file: "src/session/operation-actors.ts",
		description: "agent_settled twice (no handlers)",
		edits: [
			{
				find: "s.events.emit(settled);",
				replace: "s.events.emit(settled); s.events.emit(settled);",
				after: 'if (!s.runner().hasHandlers("agent_settled")) {',
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S08",
		file: "src/session/operation-actors.ts",
		description: "pending bash not flushed at settle",
		edits: [
			{
				find: "s.queues.flushPendingBash();",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S09",
		file: "src/session/operation-actors.ts",
		description:
			"continuation skipped with queued messages after an answer (settles with OPERATION_STALLED, no longer spins)",
		edits: [
			{
				find: " || s.agent.hasQueuedMessages()",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S10",
		file: "src/session/run-outcome.ts",
		description: "agent_end.willRetry ignores abort",
		edits: [
			{
				find: "if (context.abortRequested) return false;",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S11",
		file: "src/session/run-outcome.ts",
		description: "aborted response triggers threshold compaction",
		edits: [
			{
				find: "!aborted && ",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S12",
		file: "src/session/agent-session.ts",
		description: "failed attempt kept in context on retry",
		edits: [
			{
				find: "this.internals.transcript.omit([failed]);",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S13",
		file: "src/session/agent-session.ts",
		description: "abort() resolves before idle",
		edits: [
			{
				find: "await this.waitForIdle();",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S14",
		file: "src/session/agent-session.ts",
		description: "custom followUp while streaming delivered as steer",
		edits: [
			{
				find: 'options.deliverAs === "followUp"',
				replace: 'options.deliverAs === "steer"',
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S15",
		file: "src/session/event-bridge.ts",
		description: "messages a run adds are not counted: every run looks like it made no progress",
		edits: [
			{
				find: "s.scratch.runMessageCount++;",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S16",
		file: "src/session/operation-actors.ts",
		description: "progress counter not reset per run: a skipped continuation after an answer looks like progress",
		edits: [
			{
				find: "s.scratch.runMessageCount = 0;",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S17",
		file: "src/session/agent-session.ts",
		description: "a stalled operation resolves prompt() instead of rejecting with OPERATION_STALLED",
		edits: [
			{
				find: "if (event.stall) pending?.reject(this.stalledError(event.stall));",
				replace: "if (event.stall) pending?.resolve();",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "S18",
		file: "src/session/agent-session.ts",
		description: "a run that threw resolves prompt() instead of rejecting with its error",
		edits: [
			{
				find: "if (event.runFailure) pending?.reject(normalizeError(event.runFailure.error));",
				replace: "if (event.runFailure) pending?.resolve();",
			},
		],
		tests: ["test/session", "test/recovery", "test/agent"],
	},
	{
		id: "T01",
		file: "src/store/projection.ts",
		description: "kept system messages before a compaction duplicated",
		edits: [
			{
				find: ' && !(entry.type === "message" && entry.message.role === "system")',
				replace: "",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T02",
		file: "src/store/live-projection.ts",
		description: "first context_edit wins on load",
		edits: [
			{
				find: "edits.set(entry.targetId, entry);",
				replace: "if (!edits.has(entry.targetId)) edits.set(entry.targetId, entry);",
				after: "const contextEntries = compactionIndex < 0 ? path : contextEntriesOfPath(path);",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T03",
		file: "src/store/entry-index.ts",
		description: "empty label does not clear",
		edits: [
			{
				find: 'if (typeof entry.label === "string" && entry.label) {',
				replace: 'if (typeof entry.label === "string") {',
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T04",
		file: "src/store/migration.ts",
		description: "v1 migration loses the chain",
		edits: [
			{
				find: "entry.parentId = previous;",
				replace: "entry.parentId = null;",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T05",
		file: "src/store/migration.ts",
		description: "v2 hookMessage not renamed",
		edits: [
			{
				find: "if (version < 3)",
				replace: "if (version < 2)",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T06",
		file: "src/store/migration.ts",
		description: "v1 compaction first kept index off by one",
		edits: [
			{
				find: "entries[entry.firstKeptEntryIndex]",
				replace: "entries[entry.firstKeptEntryIndex + 1]",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T07",
		file: "src/store/session-file.ts",
		description: "torn tail not cut before appending",
		edits: [
			{
				find: "completeBytes: fileBytes - (tail?.length ?? 0)",
				replace: "completeBytes: fileBytes",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T08",
		file: "src/store/session-manager.ts",
		description: "torn line set aside but not cut from the file",
		edits: [
			{
				find: "truncateSync(file, contents.completeBytes);",
				replace: "",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T09",
		file: "src/store/session-manager.ts",
		description: "branch() keeps a stale live projection",
		edits: [
			{
				find: "this.live = null;",
				replace: "",
				after: "branch(branchFromId: string): void {",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T10",
		file: "src/store/ids.ts",
		description: "entry id collisions not avoided",
		edits: [
			{
				find: "if (!taken.has(id)) return id;",
				replace: "return id;",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T11",
		file: "src/store/session-manager.ts",
		description: "context_edit of an entry off the active branch allowed",
		edits: [
			{
				find: "if (!this.liveProjection().isOnPath(targetId, this.byId())) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "T12",
		file: "src/store/session-manager.ts",
		description: "string replacement stored unnormalized",
		edits: [
			{
				find: 'replacement !== null && (role === "assistant" || role === "toolResult") && typeof replacement.content === "string"',
				replace: "false",
			},
		],
		tests: ["test/store", "test/crash"],
	},
	{
		id: "C01",
		file: "src/compaction/cut-point.ts",
		description: "cut threshold boundary",
		edits: [
			{
				find: "accumulated >= keepRecentTokens",
				replace: "accumulated > keepRecentTokens",
			},
		],
		tests: [
			"test/compaction",
			"test/session/compaction.test.ts",
			"test/session/recovery-compaction.test.ts",
			"test/session/recovery.property.test.ts",
		],
	},
	{
		id: "C02",
		file: "src/compaction/cut-point.ts",
		description: "cut does not move back over non-message entries",
		edits: [
			{
				find: 'if (carriesMessage(previous) || previous.type === "compaction") break;',
				replace: "break;",
			},
		],
		tests: [
			"test/compaction",
			"test/session/compaction.test.ts",
			"test/session/recovery-compaction.test.ts",
			"test/session/recovery.property.test.ts",
		],
	},
	{
		id: "C03",
		file: "src/compaction/cut-point.ts",
		description: "tool result / system as valid cut point",
		edits: [
			{
				find: "return false;",
				replace: "return true;",
				after: 'case "compactionSummary":',
			},
		],
		tests: [
			"test/compaction",
			"test/session/compaction.test.ts",
			"test/session/recovery-compaction.test.ts",
			"test/session/recovery.property.test.ts",
		],
	},
	{
		id: "C04",
		file: "src/llm/tokens.ts",
		description: "threshold boundary >=",
		edits: [
			{
				find: "contextTokens > compactionThresholdTokens(contextWindow, settings)",
				replace: "contextTokens >= compactionThresholdTokens(contextWindow, settings)",
			},
		],
		tests: [
			"test/compaction",
			"test/session/compaction.test.ts",
			"test/session/recovery-compaction.test.ts",
			"test/session/recovery.property.test.ts",
		],
	},
	{
		id: "C05",
		file: "src/compaction/threshold.ts",
		description: "stale response can trigger threshold compaction",
		edits: [
			{
				find: "if (isStale(message)) return undefined;",
				replace: "",
			},
		],
		tests: [
			"test/compaction",
			"test/session/compaction.test.ts",
			"test/session/recovery-compaction.test.ts",
			"test/session/recovery.property.test.ts",
		],
	},
	{
		id: "C06",
		file: "src/compaction/prepare.ts",
		description: "compacting right after a compaction",
		edits: [
			{
				find: ' || last.type === "compaction"',
				replace: "",
			},
		],
		tests: [
			"test/compaction",
			"test/session/compaction.test.ts",
			"test/session/recovery-compaction.test.ts",
			"test/session/recovery.property.test.ts",
		],
	},
	{
		id: "C07",
		file: "src/compaction/threshold.ts",
		description: "same-ms response not stale",
		edits: [
			{
				find: "message.timestamp <= latestCompactionAt",
				replace: "message.timestamp < latestCompactionAt",
			},
		],
		tests: [
			"test/compaction",
			"test/session/compaction.test.ts",
			"test/session/recovery-compaction.test.ts",
			"test/session/recovery.property.test.ts",
		],
	},
	{
		id: "C08",
		file: "src/compaction/cut-point.ts",
		description: "cut anchor skips the crossing entry",
		edits: [
			{
				find: "for (let i = crossing; i >= startIndex; i--)",
				replace: "for (let i = crossing - 1; i >= startIndex; i--)",
			},
		],
		tests: [
			"test/compaction",
			"test/session/compaction.test.ts",
			"test/session/recovery-compaction.test.ts",
			"test/session/recovery.property.test.ts",
		],
	},
	{
		id: "X01",
		file: "src/llm/validation.ts",
		description: "no coercion of model arguments",
		edits: [
			{
				find: "coerceTypes: true",
				replace: "coerceTypes: false",
			},
		],
		tests: ["test/tools", "test/llm", "test/agent"],
	},
	{
		id: "X02",
		file: "src/llm/validation.ts",
		description: "argument validation ignored",
		edits: [
			{
				find: "if (validate(args)) return args;",
				replace: "validate(args); return args;",
			},
		],
		tests: ["test/tools", "test/llm", "test/agent"],
	},
	{
		id: "X03",
		file: "src/tools/truncate.ts",
		description: "head truncation drops a line that fits exactly",
		edits: [
			{
				find: "if (bytes + lineBytes > maxBytes) {",
				replace: "if (bytes + lineBytes >= maxBytes) {",
				after: "export function truncateHead(",
			},
		],
		tests: ["test/tools", "test/llm", "test/agent"],
	},
	{
		id: "X04",
		file: "src/tools/truncate.ts",
		description: "tail truncation ignores newline bytes",
		edits: [
			{
				find: "const lineBytes = utf8Length(line) + (kept.length > 0 ? 1 : 0);",
				replace: "const lineBytes = utf8Length(line);",
			},
		],
		tests: ["test/tools", "test/llm", "test/agent"],
	},
	{
		id: "X05",
		file: "src/tools/truncate.ts",
		description: "tail byte cut may start mid-character",
		edits: [
			{
				find: "while (start < buffer.length && ((buffer[start] ?? 0) & 0xc0) === 0x80) start++;",
				replace: "",
			},
		],
		tests: ["test/tools", "test/llm", "test/agent"],
	},
	{
		id: "X06",
		file: "src/tools/truncate.ts",
		description: "first line exactly maxBytes reported as exceeding",
		edits: [
			{
				find: 'if (utf8Length(lines[0] ?? "") > maxBytes) {',
				replace: 'if (utf8Length(lines[0] ?? "") >= maxBytes) {',
			},
		],
		tests: ["test/tools", "test/llm", "test/agent"],
	},
	{
		id: "P01",
		file: "src/session/prompt-pipeline.ts",
		description: "nextTurn custom messages never delivered",
		edits: [
			{
				find: "for (const message of nextTurn) messages.push(message);",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
	},
	{
		id: "P02",
		file: "src/session/prompt-pipeline.ts",
		description: "prompt during automatic compaction rejected like manual",
		edits: [
			{
				find: 'if (input.phase === "compacting" && input.compactionReason === "manual") {',
				replace: 'if (input.phase === "compacting") {',
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
	},
	{
		id: "P03",
		file: "src/session/prompt-pipeline.ts",
		description: "busy input hook not told the streamingBehavior",
		edits: [
			{
				find: "streaming && payload.streamingBehavior ? { streamingBehavior: payload.streamingBehavior } : {}",
				replace: "{}",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
	},
	{
		id: "P04",
		file: "src/session/prompt-pipeline.ts",
		description: "extension command can be queued as steer/followUp",
		edits: [
			{
				find: "if (command !== undefined) throw",
				replace: "if (false) throw",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
	},
	{
		id: "K01",
		file: "src/session/compaction-runner.ts",
		description: "compaction continue flag ignores willRetry",
		edits: [
			{
				find: "continue: attempt.retries || s.agent.hasQueuedMessages()",
				replace: "continue: s.agent.hasQueuedMessages()",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
		equivalent:
			"`continue` is read only when compactedForRetry (compacted && willRetry, not aborted after its save) is false, and this line runs only for a compaction that succeeded",
	},
	{
		id: "K02",
		file: "src/session/compaction-runner.ts",
		description: "custom messages held during compaction not flushed before the retry",
		edits: [
			{
				find: "s.queues.flushPendingCustom();",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
	},
	{
		id: "K03",
		file: "src/session/compaction-runner.ts",
		description: "abortCompaction after the summary still writes the entry",
		edits: [
			{
				after: "result = await compact(preparation, {",
				find: "if (controller.signal.aborted) throw new CompactionCancelled();",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
	},
	{
		id: "K04",
		file: "src/session/compaction-runner.ts",
		description: "overflow recovery keeps the failed turn's tool results",
		edits: [
			{
				find: "for (const result of s.scratch.turnToolResults) failed.push(result);",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
		equivalent:
			"the run's last turn never has tool results when recovery starts: error turns end with none, and a length stop with tool calls gets error results and the loop makes another model call",
	},
	{
		id: "K05",
		file: "src/session/compaction-runner.ts",
		description: "no pre-send threshold compaction",
		edits: [
			{
				find: "\tif (!threshold?.over) return undefined;\n",
				replace: "\treturn undefined;\n",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
	},
	{
		id: "K06",
		file: "src/session/event-bridge.ts",
		description: "turnIndex not reset per run",
		edits: [
			{
				find: "s.scratch.turnIndex = 0;",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
	},
	{
		id: "K07",
		file: "src/session/event-bridge.ts",
		description: "custom messages not flushed at turn_end",
		edits: [
			{
				find: "s.queues.flushPendingCustom();",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
	},
	{
		id: "K08",
		file: "src/session/boundaries.ts",
		description: "aborted boundary may ask to continue",
		edits: [
			{
				find: "if (s.scratch.boundaryAborted) return { continue: false };",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
		equivalent:
			"boundaryAborted is set only after the machine marked the abort, and BEFORE_SETTLE_DONE checks abortRequested before boundaryContinues",
	},
	{
		id: "K09",
		file: "src/session/boundaries.ts",
		description: "custom messages sent in agent_before_settle not flushed there",
		edits: [
			{
				find: "commitDrafts(s, result.entries);\n\ts.queues.flushPendingCustom();",
				replace: "commitDrafts(s, result.entries);\n",
			},
		],
		tests: ["test/session", "test/recovery", "test/extensions"],
	},
	{
		id: "B01",
		file: "src/store/branch-copy.ts",
		description: "branched session: compaction kept-pointer to a dropped label",
		edits: [
			{
				find: "(replacedLabel.get(entry.firstKeptEntryId) ?? entry.firstKeptEntryId)",
				replace: "entry.firstKeptEntryId",
			},
		],
		tests: ["test/store", "test/session/tree.test.ts", "test/runtime"],
	},
	{
		id: "B02",
		file: "src/store/branch-copy.ts",
		description: "branched session re-emits labels of entries off the path",
		edits: [
			{
				find: "if (!ids.has(targetId)) continue;",
				replace: "",
			},
		],
		tests: ["test/store", "test/session/tree.test.ts", "test/runtime"],
	},
	{
		id: "E01",
		file: "src/tools/edit-diff.ts",
		description:
			"an exact duplicate falls through to the tolerant match: the ambiguity error counts typographic variants too",
		edits: [
			{
				find: "if (exact.count > 1) throw ambiguous(path, editIndex, total, content, exact);",
				replace: "",
			},
		],
		tests: ["test/tools", "test/agent"],
	},
	{
		id: "E02",
		file: "src/tools/edit-diff.ts",
		description: "overlapping edits by one char accepted",
		edits: [
			{
				find: "if (previous.end > current.start) {",
				replace: "if (previous.end > current.start + 1) {",
			},
		],
		tests: ["test/tools", "test/agent"],
	},
	{
		id: "Q01",
		file: "src/session/agent-session.ts",
		description: "waitForIdle ignores a tree navigation a command left running",
		edits: [
			{
				find: " && snapshot.context.treeNavigation === undefined",
				replace: "",
			},
		],
		tests: ["test/session"],
	},
	{
		id: "Q02",
		file: "src/session/convert-to-llm.ts",
		description: "!! bash output sent to the model",
		edits: [
			{
				find: "if (message.excludeFromContext) return undefined;",
				replace: "",
			},
		],
		tests: ["test/session", "test/recovery"],
	},
	{
		id: "Q03",
		file: "src/compaction/summarize.ts",
		description: "second compaction does not use the update prompt",
		edits: [
			{
				find: "options.previousSummary !== undefined ? updateInstructions : firstInstructions",
				replace: "firstInstructions",
			},
		],
		tests: ["test/compaction", "test/session/recovery-compaction.test.ts", "test/session/compaction.test.ts"],
	},
	{
		id: "Q04",
		file: "src/compaction/prepare.ts",
		description: "file lists of an extension's compaction reused",
		edits: [
			{
				find: "if (previous && !previous.fromHook)",
				replace: "if (previous)",
			},
		],
		tests: ["test/compaction", "test/session/recovery-compaction.test.ts"],
	},
	{
		id: "Q05",
		file: "src/llm/errors.ts",
		description: "overflow of another model of the same provider compacts",
		edits: [
			{
				find: "message.provider === model.provider && message.model === model.id",
				replace: "message.provider === model.provider",
			},
		],
		tests: ["test/recovery", "test/session/recovery-compaction.test.ts", "test/session/recovery-regressions.test.ts"],
	},
	{
		id: "Q06",
		file: "src/store/session-manager.ts",
		description: "getTree has no labels",
		edits: [
			{
				find: "this.index.labels.get(entry.id)",
				replace: "undefined",
			},
		],
		tests: ["test/store", "test/session/tree.test.ts"],
	},
	{
		id: "W01",
		file: "src/llm/errors.ts",
		description: "a stream cut before its final event (Anthropic: no message_stop) is not retried",
		edits: [{ find: "\t/stream ended before/i,\n", replace: "" }],
		tests: ["test/llm"],
	},
	{
		id: "W02",
		file: "src/llm/errors.ts",
		description: "Anthropic's 400 'input length and max_tokens exceed context limit' is fatal, not an overflow",
		edits: [{ find: "\t/input length and `?max_tokens`? exceed context limit/i,", replace: "" }],
		tests: ["test/llm"],
	},
	{
		id: "W03",
		file: "src/llm/errors.ts",
		description: "the length-overflow check compares against model.maxTokens, not what pi-ai requested",
		edits: [
			{
				find: "options.requestedMaxTokens ?? defaultRequestedMaxTokens(model)",
				replace: "options.requestedMaxTokens ?? model.maxTokens",
			},
		],
		tests: ["test/llm"],
	},
	{
		id: "W04",
		file: "src/session/provider-stream.ts",
		description: "retry.provider.maxRetries does not reach the provider SDK",
		edits: [{ find: "request.maxRetries = provider.maxRetries;", replace: "void provider.maxRetries;" }],
		tests: ["test/llm"],
	},
	{
		id: "W05",
		file: "src/session/provider-stream.ts",
		description: "before_provider_headers results are not sent",
		edits: [{ find: "request.headers = headers;", replace: "void headers;" }],
		tests: ["test/llm"],
	},
	{
		id: "A01",
		file: "src/session/tree-navigation.ts",
		description:
			"the branch summary's AbortController is made after the branch-summary import (abortBranchSummary() meanwhile is lost)",
		edits: [
			{
				find: '\tconst controller = new AbortController();\n\tstate.controller = controller;\n\tconst { collectEntriesForBranchSummary, generateBranchSummary } = await import("../compaction/branch-summary.js");\n',
				replace:
					'\tconst { collectEntriesForBranchSummary, generateBranchSummary } = await import("../compaction/branch-summary.js");\n\tconst controller = new AbortController();\n\tstate.controller = controller;\n',
			},
		],
		tests: ["test/session/abort-at-every-await.test.ts", "test/session/tree.test.ts"],
	},
	{
		id: "A02",
		file: "src/session/compaction-runner.ts",
		description:
			"the compaction's AbortController is made after its first awaits (abortCompaction() meanwhile is lost)",
		edits: [
			{
				find: "\ts.scratch.compactionController = new AbortController();\n\tif (input.willRetry)",
				replace: "\tif (input.willRetry)",
			},
			{
				find: "s.scratch.compactionController ?? new AbortController(); // made by runCompaction",
				replace: "new AbortController();",
			},
		],
		tests: ["test/session/abort-at-every-await.test.ts", "test/session/recovery-compaction.test.ts"],
	},
	{
		id: "A03",
		file: "src/session/bash-runner.ts",
		description:
			"executeBash registers its abort after the user_bash handler (abortBash() meanwhile is lost, the command runs)",
		edits: [
			{
				find: "\t\tconst controller = new AbortController();\n\t\tthis.running.add(controller);\n\t\tconst runner",
				replace: "\t\tconst runner",
			},
			{
				find: "\t\tconst output = new OutputAccumulator(",
				replace:
					"\t\tconst controller = new AbortController();\n\t\tthis.running.add(controller);\n\t\tconst output = new OutputAccumulator(",
			},
		],
		tests: ["test/session/abort-at-every-await.test.ts", "test/session/extensions-live.test.ts"],
	},
	{
		id: "A04",
		file: "src/session/prompt-pipeline.ts",
		description:
			"the preflight's abort flag is made after the input hook (abort() meanwhile still compacts and runs before_agent_start)",
		edits: [
			{
				find: "\tconst aborted: { aborted: boolean; nextTurn?: CustomMessage[] } = { aborted: false };\n\ts.scratch.preflightAbort = aborted;\n\tconst payload",
				replace: "\tconst payload",
			},
			{
				find: "\t// Aborted meanwhile: the operation settles without a run",
				replace:
					"\tconst aborted: { aborted: boolean; nextTurn?: CustomMessage[] } = { aborted: false };\n\ts.scratch.preflightAbort = aborted;\n\t// Aborted meanwhile: the operation settles without a run",
			},
		],
		tests: ["test/session/abort-at-every-await.test.ts", "test/session/lost-abort-regressions.test.ts"],
	},
	{
		id: "A05",
		file: "machines/prompt-operation.machine.ts",
		description: "abort() never cancels a held compact() (it starts after the abort)",
		edits: [
			{
				find: "\t\t\tif (!deferred?.cancelOnAbort) return;",
				replace: "\t\t\tif (deferred) return;",
			},
		],
		tests: [
			"test/session/abort-at-every-await.test.ts",
			"test/session/lost-abort-regressions.test.ts",
			"test/session/compact-while-streaming.property.test.ts",
		],
	},
	{
		id: "A06",
		file: "src/agent/agent-loop.ts",
		description: "the model request is sent although the run was aborted while the context hook ran",
		edits: [
			{
				find: "\t\t// Aborted while a context, conversion or key hook ran: no request is sent.\n\t\tif (signal?.aborted) return this.finishAssistant(abortedMessage(undefined, model), false);\n",
				replace: "",
			},
		],
		tests: ["test/session/abort-at-every-await.test.ts", "test/session/lost-abort-regressions.test.ts"],
	},
	{
		id: "A07",
		file: "src/agent/agent-loop.ts",
		description: "a prepared tool is started although the run was aborted while a sibling's hooks ran (pi#8935)",
		edits: [
			{ find: 'if (signal.aborted) return { result: errorResult("Operation aborted"), isError: true };', replace: "" },
		],
		tests: [
			"test/session/abort-at-every-await.test.ts",
			"test/session/lost-abort-regressions.test.ts",
			"test/pi-races/abort-preflight.test.ts",
		],
	},
	{
		id: "A08",
		file: "src/session/agent-session.ts",
		description: "dispose() leaves a running preflight unaborted (its pre-send compaction is written after dispose)",
		edits: [
			{
				find: "\t\tabortPreflight(this.internals);\n\t\tabortWithIssuedReason(this.internals.scratch.compactionController);\n\t\tabortWithIssuedReason(this.internals.scratch.boundaryController);",
				replace:
					"\t\tabortWithIssuedReason(this.internals.scratch.compactionController);\n\t\tabortWithIssuedReason(this.internals.scratch.boundaryController);",
			},
		],
		tests: ["test/session/abort-at-every-await.test.ts", "test/session/lost-abort-regressions.test.ts"],
	},
	{
		id: "T13",
		file: "src/store/session-file.ts",
		description: "a UTF-8 byte order mark before the header makes the file unreadable (pi reads past it)",
		edits: [
			{
				find: "const line = lineNo === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;",
				replace: "const line = text;",
			},
		],
		tests: ["test/store"],
	},
	{
		id: "L01",
		file: "src/session/agent-session.ts",
		description: "dispose() keeps the lock, descriptor and refresh timer of a session manager the session owns",
		edits: [{ find: "if (this.ownsSessionManager) this.sessionManager.close();", replace: "" }],
		tests: ["test/lifetime"],
	},
	{
		id: "L02",
		file: "src/runtime/sdk.ts",
		description: "createAgentSession's session closes a session manager the caller passed in",
		edits: [
			{
				find: "ownsSessionManager: options.sessionManager === undefined,",
				replace: "ownsSessionManager: true,",
			},
		],
		tests: ["test/lifetime"],
	},
	{
		id: "L03",
		file: "src/inspect/subscription-set.ts",
		description: "an unsubscribed inspect handle keeps the actor (and the disposed session) reachable",
		edits: [{ find: "current = undefined;", replace: "" }],
		tests: ["test/lifetime"],
	},
	{
		id: "L04",
		file: "src/llm/request-signal.ts",
		description: "the run's signal goes to the provider SDK, which adds a listener per request and never removes it",
		edits: [
			{
				find: "started = streamFn(model, context, { ...options, signal: controller.signal });",
				replace: "started = streamFn(model, context, options);",
			},
		],
		tests: ["test/lifetime"],
	},
	{
		id: "L05",
		file: "src/llm/request-signal.ts",
		description: "a request's link to the run's signal is never removed after its stream ends",
		edits: [
			{
				find: "stream.result().then(release, release);",
				replace: "stream.result();",
			},
		],
		tests: ["test/lifetime"],
	},
	{
		id: "X07",
		file: "src/tools/image.ts",
		description: "a PNG signature without its IHDR chunk is sent to the model as an image",
		edits: [{ find: ' && ascii(12, "IHDR")) return "image/png";', replace: ') return "image/png";' }],
		tests: ["test/tools"],
	},
	{
		id: "X08",
		file: "src/tools/image.ts",
		description: "a JPEG-LS file is sent to the model as image/jpeg",
		edits: [{ find: " && bytes[3] !== 0xf7) return", replace: ") return" }],
		tests: ["test/tools"],
	},
	{
		id: "T14",
		file: "src/store/session-manager.ts",
		description:
			"a leaf's context walks through an entry whose id a later entry took over (the chain fast path ignores duplicates)",
		edits: [{ find: "return shadowed ? 0 : this.index.linearPrefix;", replace: "return this.index.linearPrefix;" }],
		tests: ["test/store"],
	},
	{
		id: "T15",
		file: "src/store/session-manager.ts",
		description: "getChildren lists an entry whose id a later entry took over (getEntry cannot reach it)",
		edits: [
			{
				find: "for (const entry of this.byId().values()) addChild(this.childrenByParent, entry);",
				replace: "for (const entry of this.index.entries) addChild(this.childrenByParent, entry);",
			},
		],
		tests: ["test/store"],
	},
	{
		id: "D01",
		file: "src/resources/filters.ts",
		description: "a filter's trailing /** matches the bare folder (picomatch's meaning, not pi's minimatch)",
		edits: [
			{
				find: 'return pattern.endsWith("/**") && pattern !== "/**" ?',
				replace: "return false ?",
			},
		],
		tests: ["test/resources"],
	},
	{
		id: "D02",
		file: "src/resources/resource-loader.ts",
		description:
			"a file's last registration decides whether it is enabled (a global entry overrides the project's filter)",
		edits: [
			{
				find: "if (!registered.has(path)) registered.set(path, { path, scope: layer.scope, source, baseDir, enabled, ...off });",
				replace: "registered.set(path, { path, scope: layer.scope, source, baseDir, enabled, ...off });",
			},
		],
		tests: ["test/resources"],
	},
	{
		id: "G01",
		file: "src/cli/args.ts",
		description: "pi's short alias -nt is an unknown option",
		edits: [{ find: '\t\t\tcase "-nt":\n', replace: "" }],
		tests: ["test/cli/pi-differential-args.property.test.ts", "test/cli/pi-differential-regressions.test.ts"],
	},
	{
		id: "G02",
		file: "src/cli/args.ts",
		description: "a lone '-' is sent to the model as the prompt",
		edits: [
			{ find: '} else if (arg.startsWith("-")) {', replace: '} else if (arg.startsWith("-") && arg.length > 1) {' },
		],
		tests: ["test/cli/pi-differential-args.property.test.ts", "test/cli/pi-differential-regressions.test.ts"],
	},
	{
		id: "G03",
		file: "src/cli/args.ts",
		description: "-p followed by a prompt starting with --- loses the prompt",
		edits: [{ find: '(!next.startsWith("-") || next.startsWith("---"))', replace: '!next.startsWith("-")' }],
		tests: ["test/cli/pi-differential-args.property.test.ts", "test/cli/pi-differential-regressions.test.ts"],
	},
	{
		id: "G04",
		file: "src/cli/args.ts",
		description: "an @file argument is sent to the model as literal text",
		edits: [{ find: "result.fileArgs.push(arg.slice(1));", replace: "result.messages.push(arg);" }],
		tests: ["test/cli/pi-differential-args.property.test.ts", "test/cli/pi-differential-regressions.test.ts"],
	},
	{
		id: "G05",
		file: "src/cli/main.ts",
		description: "an empty @file adds an empty <file> block to the prompt",
		edits: [{ find: "if (found.size === 0) continue;", replace: "" }],
		tests: ["test/cli/pi-differential-args.property.test.ts", "test/cli/pi-differential-regressions.test.ts"],
	},
	{
		id: "G06",
		file: "src/cli/print-mode.ts",
		description: "@file images are not attached to the first prompt",
		edits: [{ find: "index === 0 && options.images?.length ?", replace: "false ?" }],
		tests: ["test/cli/pi-differential-args.property.test.ts", "test/cli/pi-differential-regressions.test.ts"],
	},
	{
		id: "G07",
		file: "src/cli/args.ts",
		description: "an extension flag takes a following @file argument as its value",
		edits: [
			{
				find: 'if (next !== undefined && !next.startsWith("-") && !next.startsWith("@")) {\n\t\tresult.unknownFlags.push',
				replace: 'if (next !== undefined && !next.startsWith("-")) {\n\t\tresult.unknownFlags.push',
			},
		],
		tests: ["test/cli/pi-differential-args.property.test.ts", "test/cli/pi-differential-regressions.test.ts"],
	},
	{
		id: "D03",
		file: "src/session/operation-actors.ts",
		description: "a prompt whose command replaced the session rejects with SESSION_CLOSED",
		edits: [
			{ find: "scratch.runningPreflight = { requestId: input.request.requestId, outcome };", replace: "void outcome;" },
		],
		tests: ["test/parity/tree-regressions.test.ts", "test/runtime/runtime.test.ts"],
	},
	{
		id: "D04",
		file: "src/session/tree-navigation.ts",
		description: "an empty branch summary writes an empty branch_summary entry",
		edits: [{ find: 'if (summary && summary.text === "") summary = undefined;', replace: "" }],
		tests: ["test/parity/tree-regressions.test.ts"],
	},
	{
		id: "D05",
		file: "src/session/agent-session.ts",
		description: "resuming a file whose branch has no conversation records no model or thinking level",
		edits: [{ find: "if (!hasExistingSession) {", replace: "if (sessionManager.getEntries().length === 0) {" }],
		tests: ["test/parity/tree-regressions.test.ts"],
	},
	{
		id: "E03",
		file: "src/extensions/runner.ts",
		description:
			"a tool_result handler's content that is not an array is stored (compaction then fails) instead of reported",
		edits: [
			{
				find: "if (value.content !== undefined && !isUsableBlockList(value.content)) {",
				replace: "if (value.content === null) {",
			},
		],
		tests: ["test/extensions/tool-result-content-not-array.test.ts"],
	},
	{
		id: "Q07",
		file: "src/compaction/summarize.ts",
		description: "an empty previous summary switches the summary request to update mode",
		edits: [
			{
				find: 'summaryOptions.previousSummary === "" ? { ...summaryOptions, previousSummary: undefined } : summaryOptions',
				replace: "summaryOptions",
			},
		],
		tests: ["test/compaction"],
	},
	{
		id: "Q08",
		file: "src/compaction/summarize.ts",
		description: "a split turn after an empty previous summary writes an empty history instead of 'No prior history.'",
		edits: [
			{
				find: "(previousSummary || NO_PRIOR_HISTORY)",
				replace: "(previousSummary ?? NO_PRIOR_HISTORY)",
			},
		],
		tests: ["test/compaction"],
	},
	{
		id: "R09",
		file: "src/cli/rpc-mode.ts",
		description:
			"set_session_name without a string name answers 'Session name cannot be empty' instead of the typed field error",
		edits: [
			{
				find: 'const name = requireString(command, "name").trim();',
				replace: 'const name = typeof command.name === "string" ? command.name.trim() : "";',
			},
		],
		tests: ["test/cli/rpc-differential-regressions.test.ts"],
	},
	{
		id: "X09",
		file: "src/tools/bash.ts",
		description:
			"bash output updates carry no details object when nothing was cut (pi's hosts read details.truncation)",
		edits: [{ find: "\t\t\t: {};", replace: "\t\t\t: undefined;" }],
		tests: ["test/tools/bash.test.ts", "test/cli/rpc-differential.property.test.ts"],
	},
	{
		id: "R10",
		file: "src/resources/resource-loader.ts",
		description: "discovered resources report <config>/<kind> instead of the config folder as sourceInfo.baseDir",
		edits: [
			{
				find: 'const baseDir = source === "auto" ? layer.baseDir : undefined;',
				replace: 'const baseDir = source === "auto" ? join(layer.baseDir, kind) : undefined;',
			},
		],
		tests: ["test/resources/source-base-dir.test.ts", "test/resources/pi-differential.property.test.ts"],
	},
	{
		id: "R11",
		file: "src/resources/resource-loader.ts",
		description: "discovered extensions lose pi's auto sourceInfo (config folder as baseDir)",
		edits: [{ find: "sourceInfo: { ...toSourceInfo(found), path: found.path },", replace: "" }],
		tests: [
			"test/resources/extension-source-info.test.ts",
			"test/resources/pi-differential-extensions.property.test.ts",
		],
	},
	{
		id: "R12",
		file: "src/resources/resource-loader.ts",
		description: "an explicit extension path discovery also reaches reports cli instead of its discovered info",
		edits: [
			{
				find: "if (!extensionSourceInfos.has(file)) extensionSourceInfos.set(file, cliSourceInfo(file));",
				replace: "extensionSourceInfos.set(file, cliSourceInfo(file));",
			},
		],
		tests: [
			"test/resources/extension-source-info.test.ts",
			"test/resources/pi-differential-extensions.property.test.ts",
		],
	},
	{
		id: "R13",
		file: "src/resources/source-info.ts",
		description: "-e extension paths report source local instead of pi's cli",
		edits: [{ find: 'return { path, source: "cli",', replace: 'return { path, source: "local",' }],
		tests: ["test/resources/extension-source-info.test.ts"],
	},
	{
		id: "R14",
		file: "src/resources/source-info.ts",
		description: "pi's default sourceInfo puts agent-folder resources in the project scope",
		edits: [{ find: '["user", roots.agentDir],', replace: '["project", roots.agentDir],' }],
		tests: ["test/resources/extension-source-info.test.ts"],
	},
	{
		id: "R15",
		file: "src/extensions/loader.ts",
		description: "the loader drops the record's sourceInfo (extensions fall back to local + module folder)",
		edits: [{ find: "\t\t\trecord.sourceInfo,\n", replace: "\t\t\tundefined,\n" }],
		tests: [
			"test/resources/extension-source-info.test.ts",
			"test/resources/pi-differential-extensions.property.test.ts",
		],
	},
	{
		id: "G08",
		file: "src/cli/main.ts",
		description: "--help wins over --version (pi prints the version)",
		edits: [{ find: "\tif (args.version) {", replace: "\tif (args.version && !args.help) {" }],
		tests: ["test/cli/pi-differential-cases.test.ts"],
	},
	{
		id: "G09",
		file: "src/cli/print-mode.ts",
		description: "a missing key shows the SDK's registerProvider advice on the command line",
		edits: [
			{
				find: 'if (!(error instanceof SettleError) || error.code !== "NO_AUTH") return text;',
				replace: "return text;",
			},
		],
		tests: ["test/cli/cli.test.ts"],
	},
	{
		id: "F01",
		file: "src/tools/grep.ts",
		description: "a lone CR starts a new line (rg counts LF only)",
		edits: [{ find: 'text = text.replace(/\\r\\n/g, "\\n");', replace: 'text = text.replace(/\\r\\n?/g, "\\n");' }],
		tests: ["test/tools/search.test.ts"],
	},
	{
		id: "F02",
		file: "src/tools/grep.ts",
		description: "a NUL byte past the first read is not seen as binary",
		edits: [{ find: "bytes.indexOf(0, wide ? 0 : bytesRead) !== -1", replace: "false" }],
		tests: ["test/tools/search.test.ts"],
	},
	{
		id: "F03",
		file: "src/tools/grep.ts",
		description: "a binary file asked for by path is skipped",
		edits: [
			{
				find: "readTextFile(absolutePath, maxFileBytes, !isDirectory)",
				replace: "readTextFile(absolutePath, maxFileBytes, false)",
			},
		],
		tests: ["test/tools/search.test.ts"],
	},
	{
		id: "F04",
		file: "src/tools/grep.ts",
		description: "regexes without the unicode flag",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
		edits: [{ find: "return new RegExp(source, `${flags}u`);", replace: "return new RegExp(source, flags);" }],
		tests: ["test/tools/search.test.ts"],
	},
	{
		id: "F05",
		file: "src/tools/grep.ts",
		description: "`.` does not match line breaks inside a match",
		edits: [{ find: 'const flags = ignoreCase ? "is" : "s";', replace: 'const flags = ignoreCase ? "i" : "";' }],
		tests: ["test/tools/search.test.ts"],
	},
	{
		id: "F06",
		file: "src/tools/grep.ts",
		description: "path-globs are read from the search folder, not the cwd",
		edits: [{ find: 'if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return "";', replace: 'return "";' }],
		tests: ["test/tools/search.test.ts"],
	},
	{
		id: "F07",
		file: "src/tools/find.ts",
		description: "find src/** lists src itself",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
		edits: [{ find: 'if (anchored.endsWith("/**")) anchored = `${anchored}/*`;', replace: "" }],
		tests: ["test/tools/search.test.ts"],
	},
	{
		id: "F08",
		file: "src/tools/walk.ts",
		description: "ignore files are not ranked by kind (a deeper .gitignore beats an .ignore above it)",
		edits: [{ find: "if (layer.kind !== kind) continue;", replace: "" }],
		tests: ["test/tools/search.test.ts"],
	},
	{
		id: "F09",
		file: "src/tools/walk.ts",
		description: ".gitignore ranks above .ignore",
		edits: [
			{
				find: 'const RULE_KINDS = ["extra", "ignore", "gitignore", "exclude"] as const;',
				replace: 'const RULE_KINDS = ["extra", "gitignore", "ignore", "exclude"] as const;',
			},
		],
		tests: ["test/tools/search.test.ts"],
	},
	{
		id: "R16",
		file: "src/runtime/targets.ts",
		description: "a switch to the current, unwritten path reuses its manager (settings entries written twice)",
		edits: [{ find: "if (isCurrent && existed) {", replace: "if (isCurrent) {" }],
		tests: ["test/runtime/switch-to-unwritten-current-session.test.ts"],
	},
	{
		id: "R17",
		file: "src/runtime/targets.ts",
		description: "a switch to the current, written path keeps the moved leaf instead of the file's last entry",
		edits: [{ find: "\t\t\tcurrent.manager.branch(last.id);\n", replace: "" }],
		tests: ["test/runtime/switch-to-unwritten-current-session.test.ts"],
	},
	{
		id: "R18",
		file: "src/runtime/targets.ts",
		description: "a failed switch to the current path leaves its leaf moved",
		edits: [{ find: "else handle.manager.branch(handle.leafBefore);", replace: "else void handle.leafBefore;" }],
		tests: ["test/runtime/switch-to-unwritten-current-session.test.ts"],
	},
	{
		id: "R19",
		file: "src/runtime/targets.ts",
		description: "a failed switch removes the current session's path, written meanwhile",
		edits: [
			{
				find: "const createdFiles = existed || isCurrent ? [] : ownedFile(manager);",
				replace: "const createdFiles = existed ? [] : ownedFile(manager);",
			},
		],
		tests: ["test/runtime/switch-to-unwritten-current-session.test.ts"],
	},
	{
		id: "R20",
		file: "src/runtime/targets.ts",
		description:
			"a file the old session wrote during the switch is not taken over (the new session's first write fails)",
		edits: [
			{
				find: "if (isCurrent && !existed) handle.unwrittenCurrentPath = file;",
				replace: "if (isCurrent && existed) handle.unwrittenCurrentPath = file;",
			},
		],
		tests: ["test/runtime/switch-target-written-during-switch.test.ts"],
	},
	{
		id: "R21",
		file: "src/runtime/runtime.ts",
		description: "a taken-over file's conversation is not in the model's context",
		edits: [
			{ find: "session.agent.state.messages = context.messages;", replace: "session.agent.state.messages = [];" },
		],
		tests: ["test/runtime/switch-target-written-during-switch.test.ts"],
	},
	{
		id: "F10",
		file: "src/tools/edit-diff.ts",
		description: "a tolerant edit whose newText equals what it matched rewrites the file",
		edits: [
			{
				find: "if (result === content || (folded !== undefined && asksForNoChange(normalized, folded.text))) {",
				replace: "if (result === content) {",
			},
		],
		tests: ["test/tools/edit.test.ts"],
	},
	{
		id: "F11",
		file: "src/tools/image-resize-photon.js",
		description: "an image exactly at the byte limit counts as small enough",
		edits: [
			{
				find: "Buffer.byteLength(image.data) < maxBytes",
				replace: "Buffer.byteLength(image.data) <= maxBytes",
			},
		],
		tests: ["test/tools/image-resize.test.ts"],
	},
	{
		id: "F12",
		file: "src/tools/image-resize-photon.js",
		description: "the JPEG steps skip the configured quality",
		edits: [
			{
				find: "[...new Set([jpegQuality, 85, 70, 55, 40])]",
				replace: "[...new Set([85, 70, 55, 40])]",
			},
		],
		tests: ["test/tools/image-resize.property.test.ts"],
	},
	{
		id: "F13",
		file: "src/tools/image-resize-photon.js",
		description: "each shrink step halves the image instead of taking three quarters",
		edits: [
			{
				find: "Math.floor(width * 0.75)",
				replace: "Math.floor(width * 0.5)",
			},
		],
		tests: ["test/tools/image-resize.test.ts", "test/tools/image-resize.property.test.ts"],
	},
	{
		id: "F14",
		file: "src/tools/image-resize-photon.js",
		description: "EXIF rotation turns the wrong way",
		edits: [
			{
				find: "const to = clockwise ? x * height + (height - 1 - y) : (width - 1 - x) * height + y;",
				replace: "const to = clockwise ? (width - 1 - x) * height + y : x * height + (height - 1 - y);",
			},
		],
		tests: ["test/tools/image-resize.test.ts"],
	},
	{
		id: "F15",
		file: "src/tools/image-resize-photon.js",
		description: "a resized image is never tried as PNG",
		edits: [
			{
				find: '["image/png", () => resized.get_bytes()],',
				replace: "",
			},
		],
		tests: ["test/tools/image-resize.test.ts", "test/tools/image-resize.property.test.ts"],
	},
	{
		id: "F16",
		file: "src/tools/read.ts",
		description: "the read tool resizes nothing by default",
		edits: [
			{
				find: ': { kind: "default" };',
				replace: ': { kind: "off" };',
			},
		],
		tests: ["test/tools/read-image-resize.test.ts"],
	},
	{
		id: "F17",
		file: "src/tools/image-resize.ts",
		description: "the dimension note rounds the coordinate factor to one decimal",
		edits: [
			{
				find: ".toFixed(2);",
				replace: ".toFixed(1);",
			},
		],
		tests: ["test/tools/image-resize.property.test.ts"],
	},
	{
		id: "G10",
		file: "src/cli/trace.ts",
		description: "a trace is not saved when settle ends on a signal",
		edits: [
			{
				find: 'process.on("exit", onExit);',
				replace: "",
			},
		],
		tests: ["test/cli/trace.test.ts"],
	},
	{
		id: "G11",
		file: "src/cli/trace.ts",
		description: "a session that replaces the first is not recorded in the trace",
		edits: [
			{
				find: "attach(session);\n",
				replace: "",
			},
		],
		tests: ["test/cli/trace.test.ts", "test/cli/trace-recorder.property.test.ts"],
	},
	{
		id: "G12",
		file: "src/cli/trace.ts",
		description: "a --trace folder that is not writable is accepted",
		edits: [
			{
				find: "accessSync(folder, constants.W_OK | constants.X_OK);",
				replace: "accessSync(folder, constants.F_OK);",
			},
		],
		tests: ["test/cli/trace.test.ts"],
	},
	{
		id: "G13",
		file: "src/cli/trace-command.ts",
		description: "settle trace run.json writes run.json.html",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'return `${tracePath.replace(/\\.json$/i, "")}.html`;',
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "return `${tracePath}.html`;",
			},
		],
		tests: ["test/cli/trace.test.ts"],
	},
	{
		id: "G14",
		file: "src/cli/trace.ts",
		description: "a bounded trace's session index ignores the dropped events",
		edits: [
			{
				find: "firstEvent: Math.max(0, part.start - firstKept),",
				replace: "firstEvent: Math.max(0, part.start),",
			},
		],
		tests: ["test/cli/trace-recorder.property.test.ts"],
	},
	{
		id: "G15",
		file: "src/inspect/trace-viewer.ts",
		description: "the viewer keeps earlier sessions' states as visited",
		edits: [
			{
				find: "if (data.starts.includes(j)) visited.clear();",
				replace: "",
			},
		],
		tests: ["test/inspect/trace-viewer.test.ts"],
	},
	{
		id: "G16",
		file: "src/cli/main.ts",
		description: "@file images are resized even with the images.autoResize setting off",
		edits: [
			{
				find: "runtime.services.settingsManager.getImageAutoResize()",
				replace: "true",
			},
		],
		tests: ["test/tools/image-resize-cli.test.ts"],
	},
	{
		id: "G17",
		file: "src/cli/interactive-mode.ts",
		description: "a line typed while a run streams is queued as a follow-up instead of steering",
		edits: [
			{
				find: 'followUp ? "followUp" : "steer");',
				replace: '"followUp");',
			},
		],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "G18",
		file: "src/cli/interactive-render.ts",
		description: "tool results show five lines instead of four",
		edits: [
			{
				find: "export const TOOL_RESULT_LINES = 4;",
				replace: "export const TOOL_RESULT_LINES = 5;",
			},
		],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "G19",
		file: "src/cli/interactive-render.ts",
		description: "NO_COLOR is ignored on a terminal",
		edits: [
			{
				find: 'if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;',
				replace: "",
			},
		],
		tests: ["test/cli/interactive-pty.test.ts"],
	},
	{
		id: "G20",
		file: "src/cli/interactive-mode.ts",
		description: "Ctrl+C during a run waits for it instead of aborting it",
		edits: [
			{
				find: "void target.abort().then(() => {",
				replace: "void target.waitForIdle().then(() => {",
			},
		],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "G21",
		file: "src/cli/interactive-commands.ts",
		description: "/fork branches before the first user message instead of the last",
		edits: [
			{
				find: "const lastUser = branch.findLast(",
				replace: "const lastUser = branch.find(",
			},
		],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "G22",
		file: "src/cli/interactive-ui.ts",
		description: "a typed y does not confirm an extension's question",
		edits: [
			{
				find: "/^\\s*y(es)?\\s*$/i",
				replace: "/^\\s*yes\\s*$/i",
			},
		],
		tests: ["test/cli/interactive.test.ts", "test/cli/interactive-render.property.test.ts"],
	},
	{
		id: "G23",
		file: "src/cli/interactive-tree.ts",
		description: "/tree: the current branch gets a quarter of the lines, not half",
		edits: [
			{
				find: "const nearBudget = Math.floor(maxLines / 2);",
				replace: "const nearBudget = Math.floor(maxLines / 4);",
			},
		],
		tests: ["test/cli/interactive-tree.property.test.ts"],
	},
	{
		id: "G24",
		file: "src/cli/interactive-tree.ts",
		description: "/tree: one line over the line bound",
		edits: [
			{
				find: "if (next > maxLines) return false;",
				replace: "if (next > maxLines + 1) return false;",
			},
		],
		tests: ["test/cli/interactive-tree.property.test.ts"],
	},
	{
		id: "G25",
		file: "src/cli/interactive-tree.ts",
		description: "/tree: a bookkeeping entry at the current position is hidden",
		edits: [
			{
				find: "if (all || node.entry.id === leafId || node.label !== undefined || !isBookkeeping(node.entry)) {",
				replace: "if (all || node.label !== undefined || !isBookkeeping(node.entry)) {",
			},
		],
		tests: ["test/cli/interactive-tree.property.test.ts"],
	},
	{
		id: "G26",
		file: "src/cli/interactive-tree.ts",
		description: "/tree: the current branch is no longer listed first",
		edits: [
			{
				find: "if (index <= 0) return children;",
				replace: "return children;",
			},
		],
		tests: ["test/cli/interactive-tree.test.ts"],
	},
	{
		id: "G27",
		file: "src/cli/interactive-tree-commands.ts",
		description: "/tree <id>: 'summarize with custom prompt' does not summarize",
		edits: [
			{
				find: 'summarize = choice !== "No summary";',
				replace: 'summarize = choice === "Summarize";',
			},
		],
		tests: ["test/cli/interactive-tree.test.ts"],
	},
	{
		id: "G28",
		file: "src/cli/interactive-tree-commands.ts",
		description: "/label <id> without text rewrites the label instead of clearing it",
		edits: [
			{
				find: "manager.appendLabelChange(entry.id, undefined);",
				replace: "manager.appendLabelChange(entry.id, current);",
			},
		],
		tests: ["test/cli/interactive-tree.test.ts"],
	},
	{
		id: "G29",
		file: "src/cli/interactive-commands.ts",
		description: "/copy: OSC 52 targets the primary selection, not the clipboard",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "host.writeTerminal(`\\x1b]52;c;${encoded}\\x07`);",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "host.writeTerminal(`\\x1b]52;p;${encoded}\\x07`);",
			},
		],
		tests: ["test/cli/interactive-pty.test.ts"],
	},
	{
		id: "G30",
		file: "src/cli/interactive-tree-commands.ts",
		description: "/clone forks before the current position instead of at it",
		edits: [
			{
				find: 'const result = await runtime.fork(leafId, { position: "at" });',
				replace: 'const result = await runtime.fork(leafId, { position: "before" });',
			},
		],
		tests: ["test/cli/interactive-tree.test.ts"],
	},
	{
		id: "H01",
		file: "src/export/page.ts",
		description: "export page: session text set as HTML instead of text",
		edits: [
			{
				find: "if (text !== undefined && text !== null) node.textContent = String(text);",
				replace: "if (text !== undefined && text !== null) node.innerHTML = String(text);",
			},
		],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "H02",
		file: "src/export/render.ts",
		description: "export: embedded session data not escaped (</script> closes the data block)",
		edits: [
			{
				find: 'const json = (value: unknown) => JSON.stringify(value).replace(/</g, "\\\\u003c");',
				replace: "const json = (value: unknown) => JSON.stringify(value);",
			},
		],
		tests: ["test/export/export.test.ts"],
	},
	{
		id: "H03",
		file: "src/export/render.ts",
		description: "export: the CSP allows any inline script",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "script-src '${SCRIPT_HASH}'",
				replace: "script-src 'unsafe-inline'",
			},
		],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "H04",
		file: "src/export/page.ts",
		description: "export page: an image block's MIME type is not checked",
		edits: [
			{
				find: "!IMAGE_TYPES.test(String(block.mimeType)) ||",
				replace: "",
			},
		],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "H05",
		file: "src/export/index.ts",
		description: "export: the default name keeps .jsonl",
		edits: [
			{
				find: ': basename(file, ".jsonl")}.html`',
				replace: ": basename(file)}.html`",
			},
		],
		tests: ["test/export/export-cli.test.ts"],
	},
	{
		id: "H06",
		file: "src/export/index.ts",
		description: "export: no 'nothing to export yet' check for a session with no message, before the file is written",
		edits: [
			{
				find: "if ((file === undefined || !existsSync(file)) && !source.getEntries().some(isExportedMessage)) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/export/export.test.ts", "test/export/export-cli.test.ts"],
	},
	{
		id: "H07",
		file: "src/export/page.ts",
		description: "export page: the root\u2192entry path is shown leaf first",
		edits: [
			{
				find: "return path.reverse();",
				replace: "return path;",
			},
		],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "H08",
		file: "src/export/page.ts",
		description: "export page: a long path is rendered whole instead of its last page",
		edits: [
			{
				find: "renderPath(path, Math.max(0, path.length - PAGE_SIZE), id, scroll);",
				replace: "renderPath(path, 0, id, scroll);",
			},
		],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "H09",
		file: "src/cli/args.ts",
		description: "--export together with --mode rpc is rejected as a conflict",
		edits: [
			{
				find: " && result.export === undefined",
				replace: "",
			},
		],
		tests: ["test/export/export-cli.test.ts"],
	},
	{
		id: "H10",
		file: "src/export/render.ts",
		description: "export header: branches miscounted",
		edits: [
			{
				find: "entries.filter((entry) => !parents.has(entry.id)).length",
				replace: "entries.filter((entry) => parents.has(entry.id)).length",
			},
		],
		tests: ["test/export/export.test.ts"],
	},
	{
		id: "G31",
		file: "src/cli/interactive-commands.ts",
		description: "/export: a .jsonl path gets the HTML page instead of the branch as JSONL",
		edits: [
			{
				find: 'path?.endsWith(".jsonl") ? session.exportToJsonl(path)',
				replace: 'path?.endsWith(".jsonlx") ? session.exportToJsonl(path)',
			},
		],
		tests: ["test/cli/interactive-export.test.ts"],
	},
	{
		id: "G32",
		file: "src/cli/interactive-commands.ts",
		description: "/import does not ask before replacing the session",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'if (!(await host.ui.confirm("Import session", `Replace the current session with ${path}?`))) {',
				replace: "if (false) {",
			},
		],
		tests: ["test/cli/interactive-export.test.ts"],
	},
	{
		id: "G33",
		file: "src/cli/interactive-commands.ts",
		description: "/export: a quoted path keeps its quotes",
		edits: [
			{
				find: "if (quote === '\"' || quote === \"'\") {",
				replace: "if (false) {",
			},
		],
		tests: ["test/cli/interactive-export.test.ts"],
	},
	{
		id: "R22",
		file: "src/runtime/runtime.ts",
		description: "onSessionReplaced listeners are never called",
		edits: [
			{
				find: "\t\t\t\t\truntime.notifySessionReplaced(created);\n",
				replace: "",
			},
		],
		tests: ["test/runtime/session-replaced.test.ts"],
	},
	{
		id: "R23",
		file: "src/runtime/runtime.ts",
		description: "onSessionReplaced: any fork 'at' an entry is reported as a clone",
		edits: [
			{
				find: 'const isClone = position === "at" && entryId === this.current.session.sessionManager.getLeafId();',
				replace: 'const isClone = position === "at";',
			},
		],
		tests: ["test/runtime/session-replaced.test.ts"],
	},
	{
		id: "R24",
		file: "src/runtime/runtime.ts",
		description: "onSessionReplaced: previous is the new session",
		edits: [
			{
				find: "created.previous = this.current.session;",
				replace: "created.previous = created.result.session;",
			},
		],
		tests: ["test/runtime/session-replaced.test.ts"],
	},
	{
		id: "R25",
		file: "src/runtime/runtime.ts",
		description: "a throwing onSessionReplaced listener breaks the switch",
		edits: [
			{
				find: 'callListener("runtime.onSessionReplaced", listener, event, this.listenerOwner);',
				replace: "listener(event);",
			},
		],
		tests: ["test/runtime/session-replaced.test.ts"],
	},
	{
		id: "G34",
		file: "src/cli/trace.ts",
		description: "settle --trace does not record the runtime machine",
		edits: [
			{
				find: "\t\t\truntime.inspect(observer);\n",
				replace: "",
			},
		],
		tests: ["test/cli/trace.test.ts"],
	},
	{
		id: "G35",
		file: "src/inspect/trace-viewer.ts",
		description: "trace viewer: visited/current states mix all machines' events",
		edits: [
			{
				find: "    if (data.events[j] !== shown) continue;\n",
				replace: "",
			},
		],
		tests: ["test/cli/trace-viewer.test.ts"],
	},
	{
		id: "G36",
		file: "src/inspect/trace-viewer.ts",
		description: "trace viewer: up/down step through every machine's events, not the chosen one's",
		edits: [
			{
				find: "    if (!tabbed || data.events[j] === shown) return select(j);",
				replace: "    return select(j);",
			},
		],
		tests: ["test/cli/trace-viewer.test.ts"],
	},
	{
		id: "G37",
		file: "src/inspect/trace.ts",
		description: "a trace does not list its machines",
		edits: [
			{
				find: "\t\t\tif (machines.length > 0) trace.machines = machines;\n",
				replace: "",
			},
		],
		tests: ["test/inspect/trace.test.ts"],
	},
	{
		id: "F18",
		file: "src/tools/image-resize-thread.ts",
		description: "a pending resize does not keep the process alive",
		edits: [
			{
				find: "worker.ref(); // a pending resize",
				replace: "worker.unref(); // a pending resize",
			},
		],
		tests: ["test/tools/image-resize-thread.test.ts"],
	},
	{
		id: "F19",
		file: "src/tools/image-resize-thread.ts",
		description: "an idle resizer thread keeps the process alive",
		edits: [
			{
				find: "\t\tworker.unref();\n\t\tclearTimeout(this.#idleTimer);",
				replace: "\t\tclearTimeout(this.#idleTimer);",
			},
		],
		tests: ["test/tools/image-resize-thread.test.ts"],
	},
	{
		id: "F20",
		file: "src/tools/image-resize-thread.ts",
		description: "after an abort the next image goes to the stopping thread",
		edits: [
			{
				find: "\t\t\tif (this.#worker === job.worker) this.#worker = undefined;\n\t\t\tvoid job.worker?.terminate();",
				replace: "\t\t\tvoid job.worker?.terminate();",
			},
		],
		tests: ["test/tools/image-resize-thread.test.ts"],
	},
	{
		id: "F21",
		file: "src/tools/image-resize-thread.ts",
		description: "a crashed resizer thread leaves the image out instead of sending it as is",
		edits: [
			{
				find: 'job.resolve({ kind: "unavailable", reason });',
				replace: 'job.resolve({ kind: "failed", reason });',
			},
		],
		tests: ["test/tools/image-resize-thread.test.ts"],
	},
	{
		id: "F22",
		file: "src/tools/image-resize-thread.ts",
		description: "a photon load failure is not remembered (threads keep starting)",
		edits: [
			{
				find: "\t\t\tthis.#photonFailure = reply.photonFailure;",
				replace: "",
			},
		],
		tests: ["test/tools/image-resize-thread.test.ts"],
	},
	{
		id: "F23",
		file: "src/tools/image-resize-thread.ts",
		description: "the resizer's idle timer keeps the process alive",
		edits: [
			{
				find: "\t\tthis.#idleTimer.unref();",
				replace: "",
			},
		],
		tests: ["test/tools/image-resize-thread.test.ts"],
	},
	{
		id: "F24",
		file: "src/tools/read.ts",
		description: "the read tool's abort does not stop the resizer",
		edits: [
			{
				find: "await resizeImageDetailed({ data, mimeType }, { signal });",
				replace: "await resizeImageDetailed({ data, mimeType });",
			},
		],
		tests: ["test/tools/image-resize-thread.test.ts"],
	},
	{
		id: "F25",
		file: "scripts/build.mjs",
		description: "the resizer worker is bundled under another name than the chunk starts",
		edits: [
			{
				find: 'outfile: join(outDir, "image-resize-worker.js"),',
				replace: 'outfile: join(outDir, "resize-worker.js"),',
			},
		],
		tests: ["test/package/pack.test.ts"],
	},
	{
		id: "H11",
		file: "src/export/write-file.ts",
		description: "an export may be written over the session file it comes from",
		edits: [
			{
				find: "if (sessionFile === undefined || !sameFile(outputPath, sessionFile)) return;",
				replace: 'if (sessionFile === undefined || sessionFile !== "") return;',
			},
		],
		tests: ["test/bad-input/exports-traces-tree.test.ts"],
	},
	{
		id: "H12",
		file: "src/export/write-file.ts",
		description: "an export to a folder gets Node's bare error",
		edits: [
			{
				find: "if (isDirectory(target)) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/bad-input/exports-traces-tree.test.ts"],
	},
	{
		id: "H13",
		file: "src/export/index.ts",
		description: "settle --export does not warn about the lines it left out",
		edits: [
			{
				find: "if (!HARMLESS_DIAGNOSTICS.has(diagnostic.kind)) options.onDiagnostic(diagnostic);",
				replace: "if (false) options.onDiagnostic(diagnostic);",
			},
		],
		tests: ["test/bad-input/exports-traces-tree.test.ts"],
	},
	{
		id: "G38",
		file: "src/cli/interactive-render.ts",
		description: "C0 control characters from a session reach the terminal raw",
		edits: [
			{
				find: "if (code < 0x20) return String.fromCharCode(0x2400 + code);",
				replace: "if (code < 0x20) return character;",
			},
		],
		tests: ["test/cli/interactive-tree.property.test.ts", "test/bad-input/exports-traces-tree.test.ts"],
	},
	{
		id: "G40",
		file: "src/inspect/trace.ts",
		description: "parseTrace accepts a state event without to/details (the viewer then throws)",
		edits: [
			{
				find: 'else if (e.kind === "state" && (typeof e.to !== "string" || !isObject(e.details))) {',
				replace: "else if (false) {",
			},
		],
		tests: ["test/bad-input/exports-traces-tree.test.ts"],
	},
	{
		id: "G41",
		file: "src/cli/trace-command.ts",
		description: "settle trace -o may overwrite the trace it reads",
		edits: [
			{
				find: "if (sameFile(target, file)) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/bad-input/exports-traces-tree.test.ts"],
	},
	{
		id: "G42",
		file: "src/cli/interactive-commands.ts",
		description: "/import and /resume do not warn about the lines they left out",
		edits: [
			{
				find: "for (const text of skippedLineWarnings(host.runtime.session.sessionManager)) host.warn(text);",
				replace: "for (const text of skippedLineWarnings(host.runtime.session.sessionManager)) void text;",
			},
		],
		tests: ["test/bad-input/exports-traces-tree.test.ts"],
	},
	{
		id: "G43",
		file: "src/cli/interactive-render.ts",
		description: "settle -i prints a model's streamed text raw (escape sequences reach the terminal)",
		edits: [
			{
				find: "this.raw(streamSafe(event.delta));",
				replace: "this.raw(event.delta);",
			},
		],
		tests: ["test/cli/interactive-render.property.test.ts"],
	},
	{
		id: "G44",
		file: "src/cli/interactive-render.ts",
		description: "settle -i prints a tool's output lines raw",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "this.line(paint(`  ${clip(outputLineSafe(text), LINE_CHARS)}`));",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "this.line(paint(`  ${clip(text, LINE_CHARS)}`));",
			},
		],
		tests: ["test/cli/interactive-render.property.test.ts"],
	},
	{
		id: "G45",
		file: "src/cli/interactive-render.ts",
		description: "streamed thinking is printed raw",
		edits: [
			{
				find: "this.raw(this.style.dim(streamSafe(event.delta)));",
				replace: "this.raw(this.style.dim(event.delta));",
			},
		],
		tests: ["test/cli/interactive-render.property.test.ts"],
	},
	{
		id: "G46",
		file: "src/cli/interactive-tree.ts",
		description: "/tree: a model change is printed without the one-line excerpt (a line break splits the row)",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "return `[model: ${name(`${entry.provider}/${entry.modelId}`)}]`;",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "return `[model: ${entry.provider}/${entry.modelId}]`;",
			},
		],
		tests: ["test/cli/interactive-tree.property.test.ts"],
	},
	{
		id: "G47",
		file: "src/cli/interactive-tree.ts",
		description: "/tree: names read from the file (custom types, tool names) are not made one line",
		edits: [
			{
				find: "const name = (value: unknown) => excerpt(String(value));",
				replace: "const name = (value: unknown) => String(value);",
			},
		],
		tests: ["test/cli/interactive-tree.property.test.ts"],
	},
	{
		id: "H14",
		file: "src/export/write-file.ts",
		description: "a failed export write names Node's temp file instead of the path given",
		edits: [
			{
				find: ".split(temp).join(target);",
				replace: ";",
			},
		],
		tests: ["test/export/export.test.ts"],
	},
	{
		id: "V01",
		file: "src/inspect/example-traces.ts",
		description: "the session_before_switch handler never cancels",
		edits: [
			{
				find: "cancelled: step.cancelled === true,",
				replace: "cancelled: false,",
			},
		],
		tests: ["test/inspect/runtime-trace-example.test.ts", "test/inspect/visualizations.test.ts"],
	},
	{
		id: "V02",
		file: "src/inspect/example-traces.ts",
		description: "inspection times from the wall clock",
		edits: [
			{
				find: "const now = () => clock.now();",
				replace: "const now = () => Date.now();",
			},
		],
		tests: ["test/inspect/visualizations.test.ts"],
	},
	{
		id: "V03",
		file: "src/inspect/example-traces.ts",
		description: "first session answers at once (no retry/compaction)",
		edits: [
			{
				find: "startScriptedSession(clock, retriedThenCompacted()));",
				replace: "startScriptedSession(clock, [ANSWERED]));",
			},
		],
		tests: ["test/inspect/runtime-trace-example.test.ts", "test/inspect/visualizations.test.ts"],
	},
	{
		id: "V04",
		file: "src/inspect/example-traces.ts",
		description: "host never installs the rebound session",
		edits: [
			{
				find: "current = prepared;",
				replace: "",
			},
		],
		tests: ["test/inspect/runtime-trace-example.test.ts", "test/inspect/visualizations.test.ts"],
	},
	{
		id: "V05",
		file: "src/inspect/visualizations.ts",
		description: "tabs in the other order",
		edits: [
			{
				find: "[runtimeMachine, promptOperationMachine], {",
				replace: "[promptOperationMachine, runtimeMachine], {",
			},
		],
		tests: ["test/inspect/runtime-trace-example.test.ts"],
	},
	{
		id: "V06",
		file: "src/inspect/visualizations.ts",
		description: "runtime page renders the one-machine example",
		edits: [
			{
				find: "renderTraceHtml(await recordRuntimeExampleTrace(),",
				replace: "renderTraceHtml(await recordExampleTrace(),",
			},
		],
		tests: ["test/inspect/runtime-trace-example.test.ts"],
	},
	{
		id: "V07",
		file: "src/inspect/visualizations.ts",
		description: "index does not link the runtime page",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "`[${RUNTIME_EXAMPLE_TRACE_FILE}](${RUNTIME_EXAMPLE_TRACE_FILE}) adds",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "`${RUNTIME_EXAMPLE_TRACE_FILE} adds",
			},
		],
		tests: ["test/inspect/visualizations.test.ts"],
	},
	{
		id: "I01",
		file: "src/inspect/live-window.ts",
		description: "dropped range reported even when nothing was missed",
		edits: [
			{
				find: "if (seen + 1 < firstKept) resume.dropped",
				replace: "if (seen < firstKept) resume.dropped",
			},
		],
		tests: ["test/inspect/live-window.property.test.ts", "test/inspect/live-server.test.ts"],
	},
	{
		id: "I02",
		file: "src/inspect/live-window.ts",
		description: "resume re-sends the last seen event (duplicate)",
		edits: [
			{
				find: "const skip = Math.max(0, seen - recorder.dropped);",
				replace: "const skip = Math.max(0, seen - recorder.dropped - 1);",
			},
		],
		tests: ["test/inspect/live-window.property.test.ts", "test/inspect/live-server.test.ts"],
	},
	{
		id: "I03",
		file: "src/inspect/live-server.ts",
		description: "no Host check",
		edits: [
			{
				find: 'if (!allowedHosts.has((request.headers.host ?? "").toLowerCase())) {',
				replace: 'if (!allowedHosts.has((request.headers.host ?? "").toLowerCase()) && false) {',
			},
		],
		tests: ["test/inspect/live-server.test.ts"],
	},
	{
		id: "I04",
		file: "src/inspect/live-server.ts",
		description: "any token of the right length passes",
		edits: [
			{
				find: "return bytes.length === tokenBytes.length && loadCrypto().timingSafeEqual(bytes, tokenBytes);",
				replace: "return bytes.length === tokenBytes.length;",
			},
		],
		tests: ["test/inspect/live-server.test.ts"],
	},
	{
		id: "I05",
		file: "src/inspect/live-server.ts",
		description: "close() leaves the session subscription",
		edits: [
			{
				find: "\t\t\t\tsubscription.unsubscribe();\n",
				replace: "",
			},
		],
		tests: ["test/inspect/live-server.test.ts"],
	},
	{
		id: "I06",
		file: "src/inspect/live-page.ts",
		description: "stepping back does not stop following",
		edits: [
			{
				find: "  setFollowing(false);\n  highlight(i);",
				replace: "  highlight(i);",
			},
		],
		tests: ["test/inspect/live-page.test.ts"],
	},
	{
		id: "I07",
		file: "src/inspect/live-page.ts",
		description: "new events always jump to the newest",
		edits: [
			{
				find: "  if (following) follow();",
				replace: "  follow();",
			},
		],
		tests: ["test/inspect/live-page.test.ts"],
	},
	{
		id: "I08",
		file: "src/cli/args.ts",
		description: "port 65536 accepted",
		edits: [
			{
				find: "Number(value) <= 65_535",
				replace: "Number(value) <= 65_536",
			},
		],
		tests: ["test/cli/inspect.test.ts"],
	},
	{
		id: "N01",
		file: "src/session/agent-session.ts",
		description: "supportsThinking inverted",
		edits: [
			{
				find: "return this.model?.reasoning === true;",
				replace: "return this.model?.reasoning !== true;",
			},
		],
		tests: ["test/parity/session-api.test.ts"],
	},
	{
		id: "N02",
		file: "src/session/agent-session.ts",
		description: "cycle wraps too early",
		edits: [
			{
				find: "const next = levels[(levels.indexOf(this.thinkingLevel) + 1) % levels.length];",
				replace: "const next = levels[(levels.indexOf(this.thinkingLevel) + 1) % (levels.length - 1)];",
			},
		],
		tests: ["test/parity/session-api.test.ts"],
	},
	{
		id: "N03",
		file: "src/session/agent-session.ts",
		description: "fork list keeps text-less user messages",
		edits: [
			{
				find: "\t\t\tif (text) messages.push({ entryId: entry.id, text });",
				replace: "\t\t\tmessages.push({ entryId: entry.id, text });",
			},
		],
		tests: ["test/cli/rpc.test.ts"],
	},
	{
		id: "N04",
		file: "src/session/agent-session.ts",
		description: "replaced context = plain command context",
		edits: [
			{
				find: "\t\treturn this.runnerInstance.createReplacedSessionContext();",
				replace: "\t\treturn this.runnerInstance.createCommandContext() as ReplacedSessionContext;",
			},
		],
		tests: ["test/parity/session-api.test.ts"],
	},
	{
		id: "N05",
		file: "src/agent/agent-loop.ts",
		description: "failure before streaming has no text block",
		edits: [
			{
				find: "...(partial ?? threwBeforeStreaming(model)),",
				replace: "...(partial ?? emptyAssistantMessage(model)),",
			},
		],
		tests: ["test/agent/pi-compat.test.ts"],
	},
	{
		id: "N06",
		file: "src/session/model-registry-view.ts",
		description: "isUsingOAuth always true",
		edits: [
			{
				find: "isUsingOAuth: (model) => runtime.isUsingOAuth(model.provider),",
				replace: "isUsingOAuth: () => true,",
			},
		],
		tests: ["test/parity/extensions.test.ts"],
	},
	{
		id: "N07",
		file: "src/extensions/pi-compat.ts",
		description: "buildSessionContext not re-exported",
		edits: [
			{
				find: 'export { buildSessionContext, getLatestCompactionEntry } from "../store/projection.js";',
				replace: 'export { getLatestCompactionEntry } from "../store/projection.js";',
			},
		],
		tests: ["test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "N08",
		file: "src/extensions/pi-compat-compaction.ts",
		description: "estimateTokens counts user images",
		edits: [
			{
				find: 'return estimateMessageTokens({ ...message, content: message.content.filter((block) => block.type === "text") });',
				replace: "return estimateMessageTokens(message);",
			},
		],
		tests: ["test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "V08",
		file: "src/cli/trace-command.ts",
		description: "no mkdir of the -o folder",
		edits: [
			{
				find: "\t\tawait makeFoldersAsync(dirname(target));\n",
				replace: "",
			},
		],
		tests: ["test/cli/trace.test.ts"],
	},
	{
		id: "G48",
		file: "src/cli/interactive-mode.ts",
		description: "old ambiguous busy message",
		edits: [
			{
				find: "needs an idle session and was not run",
				replace: "waits for an idle session",
			},
		],
		tests: ["test/cli/interactive-tree.test.ts"],
	},
	{
		id: "V09",
		file: "src/inspect/trace-viewer.ts",
		description: "renderTraceHtml takes only a saved trace",
		edits: [
			{
				find: "\trecording: LifecycleTrace | TraceRecorder,",
				replace: "\trecording: LifecycleTrace,",
			},
		],
		tests: ["test/doctest/doctest.test.ts"],
	},
	{
		id: "V10",
		file: "src/inspect/trace.ts",
		description: "formatTrace takes no recorder",
		edits: [
			{
				find: "formatTrace(trace: LifecycleTrace | TraceRecorder | readonly",
				replace: "formatTrace(trace: LifecycleTrace | readonly",
			},
		],
		tests: ["test/doctest/doctest.test.ts"],
	},
	{
		id: "V11",
		file: "test/doctest/collect.ts",
		description: "machines/ TSDoc unchecked again",
		edits: [
			{
				find: 'export const SOURCE_DIRS = ["src", "machines"];',
				replace: 'export const SOURCE_DIRS = ["src"];',
			},
		],
		tests: ["test/doctest/doctest.test.ts"],
	},
	{
		id: "V12",
		file: "test/doctest/cli-lines.test.ts",
		description: "option-only skip applies to shell lines too",
		edits: [
			{
				find: "const namesOnly = line.prose && options.length === 1",
				replace: "const namesOnly = options.length === 1",
			},
		],
		tests: ["test/doctest/cli-lines.test.ts"],
	},
	{
		id: "P05",
		file: "src/session/transcript.ts",
		description: "reused turn id array skips the last id",
		edits: [
			{
				find: "for (let index = this.recentCount - 1; index >= 0; index--) {",
				replace: "for (let index = this.recentCount - 2; index >= 0; index--) {",
			},
		],
		tests: ["test/session/recovery-retry.test.ts"],
	},
	{
		id: "P06",
		file: "src/session/transcript.ts",
		description: "reused turn id array overwrites one slot",
		edits: [
			{
				find: "const index = this.recentCount++;",
				replace: "const index = this.recentCount;",
			},
		],
		tests: ["test/session/recovery-retry.test.ts"],
	},
	{
		id: "P07",
		file: "src/session/agent-session.ts",
		description: "no listener for the machine's abort_requested",
		edits: [
			{
				find: '"abort_requested",',
				replace: "",
			},
		],
		tests: ["test/session/abort.test.ts"],
	},
	{
		id: "P08",
		file: "src/session/agent-session.ts",
		description: "no listener for the machine's auto_retry_start",
		edits: [
			{
				find: '"auto_retry_start",',
				replace: "",
			},
		],
		tests: ["test/session/recovery-retry.test.ts"],
	},
	{
		id: "P09",
		file: "src/agent/agent-loop.ts",
		description: "an async prepareNextTurn is not awaited",
		edits: [
			{
				find: "const update = isPromiseLike(prepare) ? await prepare : prepare;",
				replace: "const update = isPromiseLike(prepare) ? undefined : prepare;",
			},
		],
		tests: ["test/agent/agent.test.ts"],
	},
	{
		id: "P10",
		file: "src/agent/agent-loop.ts",
		description: "steering queued during an async prepareNextTurn is dropped",
		edits: [
			{
				find: "pending = isPromiseLike(polled) ? await polled : polled;",
				replace: "pending = isPromiseLike(polled) ? [] : [];",
			},
		],
		tests: ["test/agent/agent.test.ts"],
	},
	{
		id: "I09",
		file: "src/inspect/live-page.ts",
		description: "following selects the second-newest event",
		edits: [
			{
				find: "highlight(recs.length - 1);",
				replace: "highlight(recs.length - 2);",
			},
		],
		tests: ["test/inspect/live-page.test.ts"],
	},
	{
		id: "I10",
		file: "src/cli/main.ts",
		description: "--inspect-port ignored",
		edits: [
			{
				find: "startCliInspector(runtime, args.inspectPort, out)",
				replace: "startCliInspector(runtime, undefined, out)",
			},
		],
		tests: ["test/cli/inspect.test.ts"],
	},
	{
		id: "K10",
		file: "src/session/system-prompt.ts",
		description: "appendSystemPrompt is the raw list again (empty array when nothing is appended)",
		edits: [
			{
				find: "...(appendSystemPrompt ? { appendSystemPrompt } : {}),",
				replace: "appendSystemPrompt: input.resources.getAppendSystemPrompt(),",
			},
		],
		tests: ["test/extensions/pi-examples-state.test.ts", "test/session/system-prompt.test.ts"],
	},
	{
		id: "K11",
		file: "src/session/system-prompt.ts",
		description: "appended texts not trimmed",
		edits: [
			{
				find: "\t\t.getAppendSystemPrompt()\n\t\t.map((text) => text.trim())",
				replace: "\t\t.getAppendSystemPrompt()\n\t\t.map((text) => text)",
			},
		],
		tests: ["test/session/system-prompt.test.ts"],
	},
	{
		id: "K12",
		file: "src/session/model-registry-view.ts",
		description: "getApiKeyAndHeaders fails without a configured key (pi answers ok)",
		edits: [
			{
				find: "if (apiKey !== undefined) result.apiKey = apiKey;",
				replace:
					'if (apiKey === undefined) return { ok: false, error: "No API key found" };\n\t\t\t\tresult.apiKey = apiKey;',
			},
		],
		tests: ["test/session/model-registry-view.test.ts", "test/extensions/pi-examples-state.test.ts"],
	},
	{
		id: "K13",
		file: "src/session/model-registry-view.ts",
		description: "getApiKeyAndHeaders drops the key",
		edits: [
			{
				find: "if (apiKey !== undefined) result.apiKey = apiKey;",
				replace: "",
			},
		],
		tests: ["test/session/model-registry-view.test.ts"],
	},
	{
		id: "K14",
		file: "src/session/model-registry-view.ts",
		description: "getApiKeyAndHeaders drops the model's headers",
		edits: [
			{
				find: "if (headers && Object.keys(headers).length > 0) result.headers = { ...headers };",
				replace: "if (headers && Object.keys(headers).length > 0) result.headers = {};",
			},
		],
		tests: ["test/session/model-registry-view.test.ts"],
	},
	{
		id: "Y01",
		file: "src/llm/faux.ts",
		description: "throwing factory gets estimated usage",
		edits: [
			{
				find: "const failure = failureMessage(error, api, provider, model.id);",
				replace: "const failure = withUsage(failureMessage(error, api, provider, model.id), context, streamOptions);",
			},
		],
		tests: ["test/llm/faux-pi-differential.test.ts"],
	},
	{
		id: "Y02",
		file: "src/llm/faux.ts",
		description: "timestamp before errorMessage",
		edits: [
			{
				find: "return { ...rest, timestamp };",
				replace: "return { timestamp, ...rest };",
			},
		],
		tests: ["test/llm/faux-pi-differential.test.ts"],
	},
	{
		id: "Y03",
		file: "src/session/model-registry-view.ts",
		description: "env var name not resolved",
		edits: [
			{
				find: "return resolveConfiguredValue(value);",
				replace: "return value;",
			},
		],
		tests: ["test/parity/extensions.test.ts", "test/runtime/sdk.test.ts"],
	},
	{
		id: "Y04",
		file: "src/session/model-registry-view.ts",
		description: "OAuth display names skipped",
		edits: [
			{
				find: "OAUTH_PROVIDER_DISPLAY_NAMES[provider] ??",
				replace: "",
			},
		],
		tests: ["test/parity/extensions.test.ts"],
	},
	{
		id: "Y05",
		file: "src/llm/model-runtime.ts",
		description: "runtime key marked configured",
		edits: [
			{
				find: 'return { configured: false, source: "runtime" };',
				replace: 'return { configured: true, source: "runtime" };',
			},
		],
		tests: ["test/parity/extensions.test.ts", "test/runtime/pi-ai.test.ts"],
	},
	{
		id: "Y06",
		file: "src/llm/pi-ai.ts",
		description: "stored key not configured",
		edits: [
			{
				find: 'if (source === "stored") return { configured: true, source: "stored" };',
				replace: 'if (source === "stored") return { configured: false, source: "stored" };',
			},
		],
		tests: ["test/runtime/pi-ai.test.ts"],
	},
	{
		id: "Y07",
		file: "src/testing/harness.ts",
		description: "text blocks joined without newline",
		edits: [
			{
				find: 'return texts.join("\\n");',
				replace: 'return texts.join("");',
			},
		],
		tests: ["test/testing/harness-pi-helpers.test.ts"],
	},
	{
		id: "Y08",
		file: "src/runtime/targets.ts",
		description: "fork's selectedText joined with space",
		edits: [
			{
				find: '.join("");',
				replace: '.join(" ");',
			},
		],
		tests: ["test/runtime/runtime.test.ts"],
	},
	{
		id: "Y09",
		file: "src/session/model-registry-view.ts",
		description: "keyless models accepted when oauth is absent",
		edits: [
			{
				find: "if (!config.apiKey && !config.oauth) {",
				replace: "if (!config.apiKey && config.oauth) {",
			},
		],
		tests: ["test/parity/extensions.test.ts", "test/runtime/sdk.test.ts"],
	},
	{
		id: "Y10",
		file: "src/session/model-registry-view.ts",
		description: "override ignores baseUrl",
		edits: [
			{
				find: "const moved = { ...model, baseUrl: override.baseUrl ?? model.baseUrl };",
				replace: "const moved = { ...model, baseUrl: model.baseUrl };",
			},
		],
		tests: ["test/parity/extensions.test.ts"],
	},
	{
		id: "Y11",
		file: "src/session/model-registry-view.ts",
		description: "override drops its headers",
		edits: [
			{
				find: "{ ...moved, headers: { ...model.headers, ...headers } }",
				replace: "{ ...moved, headers: { ...model.headers } }",
			},
		],
		tests: ["test/parity/extensions.test.ts"],
	},
	{
		id: "Y12",
		file: "src/session/model-registry-view.ts",
		description: "unregistering an override removes the built-in provider",
		edits: [
			{
				find: "if (snapshot) runtime.restoreProvider(snapshot);",
				replace: "if (snapshot) runtime.unregisterProvider(name);",
			},
		],
		tests: ["test/parity/extensions.test.ts"],
	},
	{
		id: "Y13",
		file: "src/llm/model-runtime.ts",
		description: "replaceModels keeps the old models",
		edits: [
			{
				find: "record.registration = { ...record.registration, models };",
				replace: "record.registration = { ...record.registration };",
			},
		],
		tests: ["test/parity/extensions.test.ts"],
	},
	{
		id: "Y14",
		file: "src/session/model-registry-view.ts",
		description: "a config with baseUrl is not treated as an override",
		edits: [
			{
				find: "} else if (config.baseUrl || config.headers) {",
				replace: "} else if (config.headers) {",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y15",
		file: "src/session/model-registry-view.ts",
		description: "drop the baseUrl-for-models check",
		edits: [
			{
				find: "if (!config.baseUrl) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/parity/extensions.test.ts", "test/runtime/sdk.test.ts"],
	},
	{
		id: "Y16",
		file: "src/session/model-registry-view.ts",
		description: "api-for-streamSimple only checked when models are given",
		edits: [
			{
				find: "if (config.streamSimple && !config.api) {",
				replace: "if (config.streamSimple && !config.api && config.models?.length) {",
			},
		],
		tests: ["test/parity/extensions.test.ts"],
	},
	{
		id: "Y17",
		file: "src/session/model-registry-view.ts",
		description: "no-op config ignores its display name",
		edits: [
			{
				find: "if (config?.name !== undefined) return config.name;",
				replace: 'if (config?.name === "") return config.name;',
			},
		],
		tests: ["test/parity/extensions.test.ts"],
	},
	{
		id: "Y18",
		file: "src/session/model-registry-view.ts",
		description: "drop the per-model api check",
		edits: [
			{
				find: "if (!model.api && !config.api) {",
				replace: "if (!model.api && !config.api && false) {",
			},
		],
		tests: ["test/parity/extensions.test.ts"],
	},
	{
		id: "Z01",
		file: "src/compaction/request.ts",
		description: "summarization: one retry too many",
		edits: [
			{
				find: "planRetry(retry.settings, attempt + 1, {",
				replace: "planRetry({ ...retry.settings, maxRetries: retry.settings.maxRetries + 1 }, attempt + 1, {",
			},
		],
		tests: ["test/session/summarization-retry.test.ts", "test/compaction/summarize.test.ts"],
	},
	{
		id: "Z02",
		file: "src/compaction/request.ts",
		description: "summarization retries ignore retry.enabled",
		edits: [
			{
				find: "retry.settings.enabled ? Math.max(0, retry.settings.maxRetries) : 0",
				replace: "Math.max(0, retry.settings.maxRetries)",
			},
			{
				find: "planRetry(retry.settings, attempt + 1, {",
				replace: "planRetry({ ...retry.settings, enabled: true }, attempt + 1, {",
			},
		],
		tests: ["test/session/summarization-retry.test.ts", "test/compaction/summarize.test.ts"],
	},
	{
		id: "Z03",
		file: "src/compaction/request.ts",
		description: "summarization_retry_finished without a retry",
		edits: [
			{
				find: "if (attempt > 0) retry.onRetryFinished",
				replace: "retry.onRetryFinished",
			},
		],
		tests: ["test/compaction/summarize.test.ts", "test/session/summarization-retry.property.test.ts"],
	},
	{
		id: "Z04",
		file: "src/session/summarization-retry.ts",
		description: "abort does not cancel the summarization backoff",
		edits: [
			{
				find: '\t\tsignal?.addEventListener("abort", onAbort, { once: true });',
				replace: "",
			},
		],
		tests: ["test/session/summarization-retry.test.ts"],
	},
	{
		id: "Z05",
		file: "src/session/summarization-retry.ts",
		description: "wrong summarization_retry_attempt_start source",
		edits: [
			{
				find: '{ type: "SUMMARIZATION_RETRY_ATTEMPT_START", ...source, ...partField(part) })',
				replace: '{ type: "SUMMARIZATION_RETRY_ATTEMPT_START", source: "branchSummary", ...partField(part) })',
			},
		],
		tests: ["test/session/summarization-retry.test.ts"],
	},
	{
		id: "Z06",
		file: "src/session/agent-session.ts",
		description: "refreshContext never defers during a run",
		edits: [
			{
				find: "if (this.agent.state.isStreaming) transcript.rebuildRequested = true;",
				replace: "if (!this.agent.state) transcript.rebuildRequested = true;",
			},
		],
		tests: ["test/session/summarization-retry.test.ts"],
	},
	{
		id: "Z07",
		file: "src/session/agent-session.ts",
		description: "deferred refreshContext not applied before the next turn",
		edits: [
			{
				find: "this.internals.transcript.rebuildIfRequested();",
				replace: "",
			},
		],
		tests: ["test/session/summarization-retry.test.ts"],
	},
	{
		id: "Z08",
		file: "src/testing/session-invariants.ts",
		description: "checker treats every summarization_retry_scheduled as a new call",
		edits: [
			{
				find: "if (event.attempt === 1) {",
				replace: "if (event.attempt >= 1) {",
			},
		],
		tests: ["test/testing/session-invariants.property.test.ts"],
	},
	{
		id: "U01",
		file: "src/session/virtual-routing.ts",
		description: "virtual model: user turn routed as continuation",
		edits: [
			{
				find: '\t\tif (role === "user") return "user";',
				replace: '\t\tif (role === "user") return "continuation";',
			},
		],
		tests: ["test/session/virtual-models.test.ts"],
	},
	{
		id: "U02",
		file: "src/llm/model-runtime.ts",
		description: "routed thinking level not clamped",
		edits: [
			{
				find: "thinkingLevel: clampThinkingLevel(target, route.thinkingLevel),",
				replace: "thinkingLevel: route.thinkingLevel,",
			},
		],
		tests: ["test/session/virtual-models.test.ts"],
	},
	{
		id: "U03",
		file: "src/llm/model-runtime.ts",
		description: "route to a model without credentials accepted",
		edits: [
			{
				find: "if (!this.hasConfiguredAuth(target.provider))",
				replace: "if (false as boolean)",
			},
		],
		tests: ["test/session/virtual-models.test.ts"],
	},
	{
		id: "U04",
		file: "src/agent/agent-loop.ts",
		description: "routed response does not record its thinking level",
		edits: [
			{
				find: "if (replacedModel) final.thinkingLevel = thinkingLevel;",
				replace: "",
			},
		],
		tests: ["test/session/virtual-models.test.ts"],
	},
	{
		id: "U05",
		file: "src/llm/virtual-models.ts",
		description: "resume ignores the virtual model_change",
		edits: [
			{
				find: "if (change && model && isVirtualModel(model)) return change;",
				replace: "",
			},
		],
		tests: ["test/session/virtual-models.test.ts"],
	},
	{
		id: "U06",
		file: "src/session/virtual-routing.ts",
		description: "unchanged router state stored again",
		edits: [
			{
				find: "if (route.state !== undefined && route.state !== state) {",
				replace: "if (route.state !== undefined) {",
			},
		],
		tests: ["test/session/virtual-models.test.ts"],
	},
	{
		id: "U07",
		file: "src/session/run-outcome.ts",
		description: "limits of the virtual model instead of the answering one",
		edits: [
			{
				find: "if (!model || !isVirtualModel(model)) return model;",
				replace: "return model;",
			},
		],
		tests: ["test/session/virtual-models.test.ts"],
	},
	{
		id: "U08",
		file: "src/llm/model-runtime.ts",
		description: "provider of only virtual models unavailable",
		edits: [
			{
				find: "if (!record) return this.virtualModels.has(provider);",
				replace: "if (!record) return false;",
			},
		],
		tests: ["test/session/virtual-models.test.ts"],
	},
	{
		id: "J01",
		file: "src/extensions/flags.ts",
		description: "string extension flag values dropped",
		edits: [
			{
				find: "target.runtime.flagValues.set(name, value);",
				replace: "void value;",
			},
		],
		tests: ["test/extensions/pi-examples-runtime.test.ts"],
	},
	{
		id: "J02",
		file: "src/runtime/runtime.ts",
		description: "newSession ignores parentSession",
		edits: [
			{
				find: "if (options.parentSession !== undefined) event.parentSession = options.parentSession;",
				replace: "",
			},
		],
		tests: ["test/extensions/pi-examples-runtime.test.ts"],
	},
	{
		id: "J03",
		file: "src/runtime/runtime.ts",
		description: "fork always 'before'",
		edits: [
			{
				find: 'const position = options.position ?? "before";',
				replace: 'const position: "before" | "at" = "before";',
			},
		],
		tests: ["test/extensions/pi-examples-runtime.test.ts"],
	},
	{
		id: "J04",
		file: "src/extensions/runner.ts",
		description: "resources_discover skillPaths ignored",
		edits: [
			{
				find: '["skillPaths", "promptPaths", "themePaths"] as const',
				replace: '["promptPaths", "themePaths"] as const',
			},
		],
		tests: ["test/extensions/pi-examples-inputs.test.ts"],
	},
	{
		id: "J05",
		file: "src/session/agent-session.ts",
		description: "idle sendCustomMessage with triggerTurn starts no turn",
		edits: [
			{
				find: "\t\tif (options.triggerTurn) {\n\t\t\tconst viaAgentStart",
				replace: "\t\tif (false) {\n\t\t\tconst viaAgentStart",
			},
		],
		tests: ["test/extensions/pi-examples-inputs.test.ts"],
	},
	{
		id: "O01",
		file: "src/llm/cache-warming.ts",
		description: "cache refresh at 95% of the TTL",
		edits: [
			{
				find: "Math.min(ttlMs * 0.9, ttlMs - 10_000)",
				replace: "Math.min(ttlMs * 0.95, ttlMs - 10_000)",
			},
		],
		tests: ["test/session/cache-warming.test.ts"],
	},
	{
		id: "O02",
		file: "src/llm/cache-warming.ts",
		description: "cache refresh not capped at one token",
		edits: [
			{
				find: "return { ...own, maxTokens: 1, disableContinuation: true, maxRetries: 0, signal };",
				replace: "return { ...own, disableContinuation: true, maxRetries: 0, signal } as CacheWarmingRequestOptions;",
			},
		],
		tests: ["test/session/cache-warming.property.test.ts", "test/session/cache-warming.test.ts"],
	},
	{
		id: "O03",
		file: "src/llm/cache-warming.ts",
		description: "idle continuation probability 1",
		edits: [
			{
				find: 'const continuationProbability = phase === "idle" ? CACHE_WARMING_IDLE_CONTINUATION_PROBABILITY : 1;',
				replace: "const continuationProbability = 1;",
			},
		],
		tests: ["test/session/cache-warming.test.ts"],
	},
	{
		id: "O04",
		file: "src/session/cache-warmer.ts",
		description: "streaming mode keeps warming after settle",
		edits: [
			{
				find: 'if (this.host.getMode() === "streaming") {\n\t\t\tthis.stop("agent run settled");',
				replace: 'if (this.host.getMode() === "off") {\n\t\t\tthis.stop("agent run settled");',
			},
		],
		tests: ["test/session/cache-warming.property.test.ts"],
	},
	{
		id: "O05",
		file: "src/session/cache-warmer.ts",
		description: "idle warming limit uses the 1 h window",
		edits: [
			{
				find: 'const deadline = run.startedAt + (run.phase === "idle" ? CACHE_WARMING_MAX_IDLE_AGE_MS : CACHE_WARMING_MAX_AGE_MS);',
				replace: "const deadline = run.startedAt + CACHE_WARMING_MAX_AGE_MS;",
			},
		],
		tests: ["test/session/cache-warming.test.ts"],
	},
	{
		id: "O06",
		file: "src/session/cache-warmer.ts",
		description: "extension override not noted on the usage entry",
		edits: [
			{
				find: 'extensionOverride ? "extension override" : undefined,',
				replace: "undefined,",
			},
		],
		tests: ["test/session/cache-warming.test.ts"],
	},
	{
		id: "O07",
		file: "src/session/cache-warmer.ts",
		description: "cache warming timer not unref'd",
		edits: [
			{
				find: "\t\t(id as { unref?: () => void } | null)?.unref?.();\n",
				replace: "\n",
			},
		],
		tests: ["test/session/cache-warming.test.ts"],
	},
	{
		id: "O08",
		file: "src/session/agent-session.ts",
		description: "dispose does not cancel cache warming",
		edits: [
			{
				find: "\t\t\tthis.cacheWarmer.cancel();\n",
				replace: "\n",
			},
		],
		tests: ["test/session/cache-warming.test.ts", "test/session/cache-warming.property.test.ts"],
	},
	{
		id: "O09",
		file: "src/session/agent-session.ts",
		description: "cache warming misses a model switch",
		edits: [
			{
				find: "if (model.provider !== requestModel.provider || model.id !== requestModel.id) return false;",
				replace: "",
			},
		],
		tests: ["test/session/cache-warming.test.ts"],
	},
	{
		id: "O10",
		file: "src/session/operation-actors.ts",
		description: "settle does not notify the cache warmer",
		edits: [
			{
				find: "\t\ts.cacheWarmer?.onAgentSettled();\n",
				replace: "\n",
			},
		],
		tests: ["test/session/cache-warming.property.test.ts"],
	},
	{
		id: "Z09",
		file: "machines/prompt-operation.machine.ts",
		description: "summary retry report not announced",
		edits: [
			{
				find: 'SUMMARIZATION_RETRY_SCHEDULED: { actions: "announceSummarizationRetryScheduled" },',
				replace: "SUMMARIZATION_RETRY_SCHEDULED: {},",
			},
		],
		tests: [
			"test/machines/prompt-operation.test.ts",
			"test/inspect/summarization-retry-trace.test.ts",
			"test/session/summarization-retry.test.ts",
		],
	},
	{
		id: "Z10",
		file: "machines/prompt-operation.machine.ts",
		description: "summary retry finished loses its final error",
		edits: [
			{
				find: "if (report.finalError !== undefined) finished.finalError = report.finalError;",
				replace: "",
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/inspect/summarization-retry-trace.test.ts"],
	},
	{
		id: "Z11",
		file: "machines/prompt-operation.machine.ts",
		description: "summary retry source inverted",
		edits: [
			{
				find: 'return report.source === "compaction"',
				replace: 'return report.source !== "compaction"',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/session/summarization-retry.test.ts"],
	},
	{
		id: "Z12",
		file: "src/session/summarization-retry.ts",
		description: "summary retry reports bypass a running machine",
		edits: [
			{
				find: 'if (s.snapshot().status === "active") {',
				replace: 'if (s.snapshot().status !== "active") {',
			},
		],
		tests: ["test/inspect/summarization-retry-trace.test.ts"],
	},
	{
		id: "Z13",
		file: "src/inspect/trace.ts",
		description: "trace text shows the attempt as the summary backoff",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "delay ${p.delayMs}ms",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "delay ${p.attempt}ms",
			},
		],
		tests: ["test/inspect/trace.test.ts", "test/inspect/trace-viewer.test.ts"],
	},
	{
		id: "Z14",
		file: "src/inspect/trace.ts",
		description: "trace text retry/retries swapped",
		edits: [
			{
				find: 'p.attempt === 1 ? "retry" : "retries"',
				replace: 'p.attempt === 1 ? "retries" : "retry"',
			},
		],
		tests: ["test/inspect/trace.test.ts"],
	},
	{
		id: "Z15",
		file: "src/session/agent-session.ts",
		description: "public summarization retry events carry machine fields",
		edits: [
			{
				find: "this.events.emit(publicSummarizationRetryEvent(event));",
				replace: "this.events.emit(event as never);",
			},
		],
		tests: ["test/session/summarization-retry.test.ts"],
	},
	{
		id: "Z16",
		file: "src/inspect/example-traces.ts",
		description: "example trace without the summary retry",
		edits: [
			{
				find: "else if (summaryBackoffMs !== undefined) {",
				replace: "else if (summaryBackoffMs === -1) {",
			},
		],
		tests: ["test/inspect/visualizations.test.ts"],
	},
	{
		id: "Y19",
		file: "src/llm/model-runtime.ts",
		description: "an api-level streamSimple is ignored",
		edits: [
			{
				find: "if (apiStream) return apiStream(model, context, options);",
				replace: "if (apiStream && false) return apiStream(model, context, options);",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y20",
		file: "src/llm/model-runtime.ts",
		description: "a config apiKey is never used as the fallback key",
		edits: [
			{
				find: "const fallback = this.fallbackKeys.get(provider);",
				replace: "const fallback = undefined;",
			},
			{
				find: "return (await resolveKey(own)) ?? (await resolveKey(this.fallbackKeys.get(provider)));",
				replace: "return await resolveKey(own);",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y21",
		file: "src/llm/model-runtime.ts",
		description: "a config apiKey does not count as credentials",
		edits: [
			{
				find: "if (record.registration.requiresAuth === false || this.fallbackKeys.has(provider)) return true;",
				replace: "if (record.registration.requiresAuth === false) return true;",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y22",
		file: "src/llm/model-runtime.ts",
		description: "a restored provider goes to the end of the list",
		edits: [
			{
				find: "entries.splice(Math.min(snapshot.index, entries.length), 0, [provider, record]);",
				replace: "entries.push([provider, record]);",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y23",
		file: "src/session/model-registry-view.ts",
		description: "unregistering a never-registered name removes the built-in provider",
		edits: [
			{
				find: "if (!state?.registered.delete(name)) return;",
				replace:
					"if (!state?.registered.delete(name)) return (runtime as InMemoryModelRuntime).unregisterProvider(name);",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y24",
		file: "src/session/model-registry-view.ts",
		description: "repeat registrations replace instead of merging",
		edits: [
			{
				find: "if (!existing) state.registered.set(name, { ...config });",
				replace: "if (existing || !existing) state.registered.set(name, { ...config });",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y25",
		file: "src/session/model-registry-view.ts",
		description: "a config key is reported as a runtime key",
		edits: [
			{
				find: 'return { configured: true, source: "models_json_key" };',
				replace: 'return { configured: false, source: "runtime" };',
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y26",
		file: "src/session/model-registry-view.ts",
		description: "remaining provider configs not re-applied after unregister",
		edits: [
			{
				find: "for (const [name, config] of state.registered) applyProviderConfig(runtime, state, name, config, true);",
				replace: "",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y27",
		file: "src/session/model-registry-view.ts",
		description: "models without streamSimple always refused",
		edits: [
			{
				find: ": modelApis(config).find((api) => !runtime.getStreamFn?.(api));",
				replace: ": modelApis(config)[0];",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y28",
		file: "src/llm/model-runtime.ts",
		description: "authHeader never applied",
		edits: [
			{
				find: "options = withBearer(options);",
				replace: "options = options;",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y29",
		file: "src/llm/model-runtime.ts",
		description: "restore brings back the snapshot's key over a runtime key",
		edits: [
			{
				find: "record.apiKey = runtimeKey ?? snapshot.apiKey;",
				replace: "record.apiKey = snapshot.apiKey;",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y30",
		file: "src/session/model-registry-view.ts",
		description: "a runtime key set before a full registration is dropped",
		edits: [
			{
				find: "\t\t\truntime.setApiKey(name, before.apiKey);",
				replace: "\t\t\tvoid 0;",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y31",
		file: "src/session/model-registry-view.ts",
		description: "override headers win over a registered model's own",
		edits: [
			{
				find: "const merged = { ...headers, ...(own ? resolveHeaders(own) : {}) };",
				replace: "const merged = { ...(own ? resolveHeaders(own) : {}), ...headers };",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "Y32",
		file: "src/session/model-registry-view.ts",
		description: "getApiKeyAndHeaders omits the bearer header",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "{ ...model.headers, Authorization: `Bearer ${apiKey}` }",
				replace: "model.headers",
			},
		],
		tests: ["test/parity/register-provider.test.ts"],
	},
	{
		id: "AA01",
		file: "src/extensions/pi-compat-compaction.ts",
		description: "pi cut picks the point after the crossing",
		edits: [
			{
				find: "cutPoints.find((point) => point >= i)",
				replace: "cutPoints.find((point) => point > i)",
			},
		],
		tests: ["test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "AA02",
		file: "src/extensions/pi-compat-compaction.ts",
		description: "custom role starts a turn (Settle's rule)",
		edits: [
			{
				find: ' && !(entry.type === "message" && entry.message.role === "custom")',
				replace: "",
			},
		],
		tests: ["test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "AA03",
		file: "src/extensions/pi-compat-resources.ts",
		description: "skills listing without pi's leading blank line",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'return listing ? `\\n\\n${listing}` : "";',
				replace: "return listing;",
			},
		],
		tests: ["test/extensions/pi-compat-exports.test.ts", "test/extensions/pi-compat-compaction.e2e.test.ts"],
	},
	{
		id: "AA04",
		file: "src/extensions/pi-compat-compaction.ts",
		description: "branch summary abort rejects instead of {aborted:true}",
		edits: [
			{
				find: 'error.code === "ABORTED") return { aborted: true };',
				replace: 'error.code === "ABORTED") throw error;',
			},
		],
		tests: ["test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "AA05",
		file: "src/extensions/pi-compat-compaction.ts",
		description: "empty model answer fails instead of empty summary",
		edits: [
			{
				find: "acceptEmptyAnswer: true,",
				replace: "acceptEmptyAnswer: false,",
			},
		],
		tests: ["test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "AA06",
		file: "src/extensions/pi-compat-compaction.ts",
		description: "error responses' usage counted",
		edits: [
			{
				find: 'stopReason !== "aborted" && stopReason !== "error" && usage',
				replace: 'stopReason !== "aborted" && usage',
			},
		],
		tests: ["test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "AA07",
		file: "src/extensions/pi-compat-compaction.ts",
		description: "branch budget sized with Settle's estimate",
		edits: [
			{
				find: "prepareSettleBranchEntries(entries, tokenBudget, estimateTokens, false)",
				replace: "prepareSettleBranchEntries(entries, tokenBudget, undefined, false)",
			},
		],
		tests: ["test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "AB01",
		file: "machines/prompt-operation.machine.ts",
		description: "isCompacting ignores the compaction inside the run",
		edits: [
			{
				find: '\t\tsnapshot.matches({ running: "compacting" }) ||\n',
				replace: "",
			},
		],
		tests: ["test/session/routed-compaction.test.ts", "test/machines/prompt-operation.test.ts"],
	},
	{
		id: "AB02",
		file: "machines/prompt-operation.machine.ts",
		description: "an ABORT after ABORT_COMPACTION is lost",
		edits: [
			{
				find: "once the compaction has ended.\n\t\t\t\t\t\t\ton: {\n\t\t\t\t\t\t\t\tABORT: { actions: abortOperation },",
				replace:
					'once the compaction has ended.\n\t\t\t\t\t\t\ton: {\n\t\t\t\t\t\t\t\tABORT: { actions: ["cancelDeferredCompactionOnAbort"] },',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts"],
	},
	{
		id: "AB03",
		file: "machines/prompt-operation.machine.ts",
		description: "announced as overflow",
		edits: [
			{
				find: 'actions: { type: "setCompaction", params: { reason: "threshold", willRetry: false } },\n\t\t\t\t\t\t},',
				replace:
					'actions: { type: "setCompaction", params: { reason: "overflow", willRetry: false } },\n\t\t\t\t\t\t},',
			},
		],
		tests: ["test/session/routed-compaction.test.ts"],
	},
	{
		id: "AB04",
		file: "src/session/agent-session.ts",
		description: "request keeps the pre-compaction context",
		edits: [
			{
				find: "const sent = compacted ? { ...requestContext, messages: this.agent.state.messages } : requestContext;",
				replace: "const sent = requestContext;",
			},
		],
		tests: ["test/session/routed-compaction.test.ts"],
	},
	{
		id: "AB05",
		file: "src/session/run-outcome.ts",
		description: "unknown window (0) checked",
		edits: [
			{
				find: "if (!settings.enabled || model.contextWindow <= 0) return false;\n\tconst estimate",
				replace: "if (!settings.enabled || model.contextWindow < 0) return false;\n\tconst estimate",
			},
		],
		tests: ["test/session/routed-compaction.test.ts"],
	},
	{
		id: "AB06",
		file: "src/session/run-outcome.ts",
		description: "usage older than the latest compaction trusted",
		edits: [
			{
				find: "(s.transcript.hasContextEdits || predatesCompaction(s, usageSource, false))",
				replace: "s.transcript.hasContextEdits",
			},
		],
		tests: ["test/session/routed-compaction.test.ts"],
	},
	{
		id: "AB07",
		file: "src/session/compaction-runner.ts",
		description: "never asks the machine to compact",
		edits: [
			{
				find: "\tif (!isRequestOverThreshold(s, model, messages)) return false;",
				replace: "\tif (!isRequestOverThreshold(s, model, messages) || model) return false;",
			},
		],
		tests: ["test/session/routed-compaction.test.ts"],
	},
	{
		id: "AB08",
		file: "src/inspect/trace.ts",
		description: "trace drops the reason inside the run",
		edits: [
			{
				find: 'if (path.includes("compacting") && details.compactionReason !== undefined) {',
				replace: 'if (top === "compacting" && details.compactionReason !== undefined) {',
			},
		],
		tests: ["test/session/routed-compaction.test.ts"],
	},
	{
		id: "AB09",
		file: "machines/prompt-operation.machine.ts",
		description: "an ABORT after ABORT_COMPACTION is lost in the operation's compaction",
		edits: [
			{
				find: "queued messages must not continue it.\n\t\t\t\t\ton: {\n\t\t\t\t\t\tABORT: { actions: abortOperation },",
				replace:
					'queued messages must not continue it.\n\t\t\t\t\ton: {\n\t\t\t\t\t\tABORT: { actions: ["cancelDeferredCompactionOnAbort"] },',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/session/lost-abort-regressions.test.ts"],
	},
	{
		id: "AC01",
		file: "src/session/session-stats.ts",
		description: "usage entries (cache-warming refreshes) not counted",
		edits: [
			{
				find: 'if (entry.type === "usage" || entry.type === "compaction" || entry.type === "branch_summary")',
				replace: 'if (entry.type === "compaction" || entry.type === "branch_summary")',
			},
		],
		tests: [
			"test/session/session-stats.test.ts",
			"test/session/session-stats.property.test.ts",
			"test/cli/session-stats.test.ts",
		],
	},
	{
		id: "AC02",
		file: "src/session/session-stats.ts",
		description: "compaction summary call not counted",
		edits: [
			{
				find: 'if (entry.type === "usage" || entry.type === "compaction" || entry.type === "branch_summary")',
				replace: 'if (entry.type === "usage" || entry.type === "branch_summary")',
			},
		],
		tests: [
			"test/session/session-stats.test.ts",
			"test/session/session-stats.property.test.ts",
			"test/cli/session-stats.test.ts",
		],
	},
	{
		id: "AC03",
		file: "src/session/session-stats.ts",
		description: "branch summary call not counted",
		edits: [
			{
				find: 'if (entry.type === "usage" || entry.type === "compaction" || entry.type === "branch_summary")',
				replace: 'if (entry.type === "usage" || entry.type === "compaction")',
			},
		],
		tests: ["test/session/session-stats.property.test.ts"],
	},
	{
		id: "AC04",
		file: "src/session/session-stats.ts",
		description: "a tool result's nested usage not counted",
		edits: [
			{
				find: "addUsage(stats, (message as ToolResultMessage).usage);",
				replace: "",
			},
		],
		tests: ["test/session/session-stats.property.test.ts"],
	},
	{
		id: "AC05",
		file: "src/session/session-stats.ts",
		description: "cache reads counted as cache writes",
		edits: [
			{
				find: "stats.tokens.cacheRead += count(usage.cacheRead);",
				replace: "stats.tokens.cacheRead += count(usage.cacheWrite);",
			},
		],
		tests: ["test/session/session-stats.test.ts", "test/session/session-stats.property.test.ts"],
	},
	{
		id: "AC06",
		file: "src/session/agent-session.ts",
		description: "getSessionStats passes no entries (side costs invisible again)",
		edits: [
			{
				find: "\t\t\tentries: this.sessionManager.getEntries(),\n",
				replace: "",
			},
		],
		tests: [
			"test/session/session-stats.test.ts",
			"test/session/session-stats.property.test.ts",
			"test/cli/session-stats.test.ts",
		],
	},
	{
		id: "AC07",
		file: "src/session/agent-session.ts",
		description: "messages counted over the whole file (pi 1.6) instead of the context",
		edits: [
			{
				find: "return computeSessionStats(this.agent.state.messages, {",
				replace:
					'return computeSessionStats(this.sessionManager.getEntries().flatMap((e) => (e.type === "message" ? [e.message] : [])), {',
			},
		],
		tests: [
			"test/session/session-stats.test.ts",
			"test/session/session-stats.property.test.ts",
			"test/cli/session-stats.test.ts",
		],
	},
	{
		id: "AC08",
		file: "src/cli/interactive-commands.ts",
		description: "/session prints a message count other than RPC's totalMessages",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "`  messages: ${stats.totalMessages} in context",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "`  messages: ${conversationLength(host.runtime)} in context",
			},
		],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "AD01",
		file: "src/listener-errors.ts",
		description: "every failure reported, not once per listener",
		edits: [
			{
				find: "\tif (seen.has(listener)) return false;\n",
				replace: "",
			},
		],
		tests: ["test/runtime/listener-errors.test.ts"],
	},
	{
		id: "AD02",
		file: "src/listener-errors.ts",
		description: "a rejecting listener is silent again",
		edits: [
			{
				find: "result.catch((error: unknown) => reportListenerError(source, listener, error, owner));",
				replace: "result.catch(() => {});",
			},
		],
		tests: ["test/runtime/listener-errors.test.ts"],
	},
	{
		id: "AD03",
		file: "src/runtime/runtime.ts",
		description: "dispose() resolves before inspection streams end (page says 'inspector closed')",
		edits: [
			{
				find: "\t\t\t\tqueueMicrotask(() => {\n\t\t\t\t\tthis.inspections.closeAll();\n\t\t\t\t\tresolveDisposed();\n\t\t\t\t});",
				replace: "\t\t\t\tresolveDisposed();\n\t\t\t\tqueueMicrotask(() => this.inspections.closeAll());",
			},
		],
		tests: ["test/inspect/live-server.test.ts", "test/cli/inspect.test.ts"],
	},
	{
		id: "AD04",
		file: "src/cli/session-lookup.ts",
		description: "pi's rule: first of several matches",
		edits: [
			{
				find: "if (matches.length === 1) return matches[0]!;",
				replace: "if (matches.length >= 1) return matches[0]!;",
			},
		],
		tests: ["test/cli/session-arg.test.ts", "test/cli/session-prefix-pi.test.ts"],
	},
	{
		id: "AD05",
		file: "src/cli/session-lookup.ts",
		description: "other projects not searched",
		edits: [
			{
				find: "const link = lookup.linkFolder?.cwd;\n\treturn all.filter(",
				replace: "const link = lookup.linkFolder?.cwd;\n\treturn [].filter(",
			},
		],
		tests: ["test/cli/session-arg.test.ts", "test/cli/interactive.test.ts"],
	},
	{
		id: "AD06",
		file: "src/inspect/live-server.ts",
		description: "slow page dropped without being told why",
		edits: [
			{
				find: "response.end(`event: slow",
				replace: "response.end(); void (`event: slow",
			},
		],
		tests: ["test/inspect/live-slow-reader.test.ts"],
	},
	{
		id: "AD07",
		file: "src/inspect/live-page.ts",
		description: "runtime/session end texts swapped",
		edits: [
			{
				find: 'end.target === "runtime"',
				replace: 'end.target === "session"',
			},
		],
		tests: ["test/cli/inspect.test.ts", "test/inspect/live-page.test.ts"],
	},
	{
		id: "AD08",
		file: "src/inspect/live-page.ts",
		description: "lost connection not said",
		edits: [
			{
				find: 'statusText.textContent = "connection lost: reconnecting\u2026"',
				replace: 'statusText.textContent = "reconnecting\u2026"',
			},
		],
		tests: ["test/cli/inspect.test.ts"],
	},
	{
		id: "AE01",
		file: "src/inspect/live-page.ts",
		description: "the reconnect overwrites the slow status",
		edits: [
			{
				find: "if (slowClose) slowClose = false;",
				replace: "if (false) slowClose = false;",
			},
		],
		tests: ["test/inspect/live-page-slow.test.ts"],
	},
	{
		id: "AE02",
		file: "src/inspect/live-page.ts",
		description: "the page ignores the slow message",
		edits: [
			{
				find: 'source.addEventListener("slow", (e) => {',
				replace: 'source.addEventListener("slowness", (e) => {',
			},
		],
		tests: ["test/inspect/live-page-slow.test.ts"],
	},
	{
		id: "AE03",
		file: "src/inspect/live-page.ts",
		description: "a repeated drop does not say how many times",
		edits: [
			{
				find: "const times = slowDrops > 1 ?",
				replace: "const times = slowDrops > 2 ?",
			},
		],
		tests: ["test/inspect/live-page-slow.test.ts"],
	},
	{
		id: "AE04",
		file: "src/inspect/live-page.ts",
		description: "the drop marker names the wrong resume id",
		edits: [
			{
				find: '" unsent); resuming after event " + lastId',
				replace: '" unsent); resuming after event " + (lastId + 1)',
			},
		],
		tests: ["test/inspect/live-page-slow.test.ts"],
	},
	{
		id: "AE05",
		file: "src/inspect/live-page.ts",
		description: "the limit is shown in thousands, not KiB",
		edits: [
			{
				find: 'return bytes >= 1024 ? Math.round(bytes / 1024) + " KiB"',
				replace: 'return bytes >= 1024 ? Math.round(bytes / 1000) + " KiB"',
			},
		],
		tests: ["test/inspect/live-page-slow.test.ts"],
	},
	{
		id: "AE06",
		file: "src/inspect/subscription-set.ts",
		description: "a failing inspection onEnd is silent again",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "if (onEnd) callListener(`${this.source} onEnd`, onEnd, undefined, this.owner);",
				replace: "if (onEnd) try { onEnd(); } catch {}",
			},
		],
		tests: ["test/inspect/inspection-listener-errors.test.ts"],
	},
	{
		id: "AE07",
		file: "src/inspect/lifecycle-inspector.ts",
		description: "a failing inspection observer is silent again",
		edits: [
			{
				find: "callListener(this.source, this.observer, full, this.owner);",
				replace: "try { this.observer(full); } catch {}",
			},
		],
		tests: ["test/inspect/inspection-listener-errors.test.ts"],
	},
	{
		id: "AE08",
		file: "src/runtime/runtime.ts",
		description: "inspectSessions' onEnd failure is reported under runtime.inspect's name",
		edits: [
			{
				find: 'callListener("runtime.inspectSessions onEnd", onEnd, undefined, this.listenerOwner)',
				replace: 'callListener("runtime.inspect onEnd", onEnd, undefined, this.listenerOwner)',
			},
		],
		tests: ["test/inspect/inspection-listener-errors.test.ts"],
	},
	{
		id: "AF01",
		file: "src/agent/tool-result-check.ts",
		description: "content that is not an array passes as a tool result",
		edits: [
			{
				find: "if (!Array.isArray(content)) return `a result whose content is",
				replace: "if (false) return `a result whose content is",
			},
		],
		tests: ["test/agent/tool-result-check.test.ts"],
	},
	{
		id: "AF02",
		file: "src/agent/tool-result-check.ts",
		description: "a text block without text passes",
		edits: [
			{
				find: 'return typeof text === "string" ? undefined',
				replace: "return true ? undefined",
			},
		],
		tests: ["test/agent/tool-result-check.test.ts"],
	},
	{
		id: "AF03",
		file: "src/agent/tool-result-check.ts",
		description: "an image block needs only data or mimeType",
		edits: [
			{
				find: 'if (typeof data === "string" && typeof mimeType === "string") return undefined;',
				replace: 'if (typeof data === "string" || typeof mimeType === "string") return undefined;',
			},
		],
		tests: ["test/agent/tool-result-check.test.ts"],
	},
	{
		id: "AF04",
		file: "src/agent/agent-loop.ts",
		description: "the loop records a malformed tool result as a success",
		edits: [
			{
				find: "if (!checked.ok) {",
				replace: "if (false && !checked.ok) {",
			},
		],
		tests: ["test/agent/tool-result-check.test.ts"],
	},
	{
		id: "AF05",
		file: "src/store/lock.ts",
		description: "the in-process lock hint is given for another process's lock",
		edits: [
			{
				find: "const ownManager = inThisProcess",
				replace: "const ownManager = !inThisProcess",
			},
		],
		tests: ["test/store/lock-reopen-hint.test.ts"],
	},
	{
		id: "AF06",
		file: "src/runtime/runtime.ts",
		description: "a replaced session says the runtime was disposed",
		edits: [
			{
				find: 'input.reason === "quit" ? SESSION_RUNTIME_DISPOSED',
				replace: 'input.reason !== "quit" ? SESSION_RUNTIME_DISPOSED',
			},
		],
		tests: ["test/runtime/replaced-session-message.test.ts"],
	},
	{
		id: "AF07",
		file: "src/session/agent-session.ts",
		description: "a replaced session gives the generic disposed message",
		edits: [
			{
				find: "closedMessages.get(this) ?? SESSION_DISPOSED",
				replace: "SESSION_DISPOSED",
			},
		],
		tests: ["test/runtime/replaced-session-message.test.ts"],
	},
	{
		id: "AF08",
		file: "src/llm/model-runtime.ts",
		description: "the NO_AUTH hint names the session runtime again",
		edits: [
			{
				find: "a faux provider: `modelRuntime.registerFauxProvider(faux)`",
				replace: "a faux provider: `runtime.registerFauxProvider(faux)`",
				after: "const PROVIDER_HELP_IN_CODE =",
			},
		],
		tests: ["test/runtime/provider-hint.test.ts"],
	},
	{
		id: "AF09",
		file: "src/llm/pi-ai.ts",
		description: "the pi-ai install hint drops the peer version",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "${PI_AI_PACKAGE}@${PI_AI_PEER_VERSION}",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "${PI_AI_PACKAGE}",
			},
		],
		tests: ["test/runtime/pi-ai-install-hint.test.ts"],
	},
	{
		id: "AF10",
		file: "src/settings/trust.ts",
		description: "the untrusted-project warning no longer names --approve",
		edits: [
			{
				find: '"To trust it: run settle with --approve; in the SDK,',
				replace: '"To trust it: in the SDK,',
			},
		],
		tests: ["test/cli/cli.test.ts", "test/resources/extensions.test.ts"],
	},
	{
		id: "AG01",
		file: "src/inspect/live-server.ts",
		description: "a slow-reader limit of 0 is accepted",
		edits: [
			{
				find: "!Number.isSafeInteger(limit) || limit <= 0",
				replace: "!Number.isSafeInteger(limit) || limit < 0",
			},
		],
		tests: ["test/inspect/live-slow-reader.test.ts"],
	},
	{
		id: "AG02",
		file: "src/inspect/live-server.ts",
		description: "a non-integer or NaN slow-reader limit is accepted",
		edits: [
			{
				find: "!Number.isSafeInteger(limit) || limit <= 0",
				replace: "limit <= 0",
			},
		],
		tests: ["test/inspect/live-slow-reader.test.ts"],
	},
	{
		id: "AG03",
		file: "src/inspect/live-server.ts",
		description: "the default slow-reader limit is 4 MiB",
		edits: [
			{
				find: "const DEFAULT_SLOW_READER_LIMIT_BYTES = 8 * 1024 * 1024;",
				replace: "const DEFAULT_SLOW_READER_LIMIT_BYTES = 4 * 1024 * 1024;",
			},
		],
		tests: ["test/inspect/live-slow-reader.test.ts"],
	},
	{
		id: "AG04",
		file: "src/inspect/live-server.ts",
		description: "a page is dropped at half the limit",
		edits: [
			{
				find: "if (unsent <= limit) return;",
				replace: "if (unsent <= limit / 2) return;",
			},
		],
		tests: ["test/inspect/live-slow-reader.test.ts"],
	},
	{
		id: "AG05",
		file: "src/inspect/live-server.ts",
		description: "the server reports the default limit, not the one in effect",
		edits: [
			{
				find: "slowReaderLimitBytes: limit,",
				replace: "slowReaderLimitBytes: DEFAULT_SLOW_READER_LIMIT_BYTES,",
			},
		],
		tests: ["test/inspect/live-slow-reader.test.ts"],
	},
	{
		id: "AG06",
		file: "src/inspect/live-server.ts",
		description: "the slow message names the default limit",
		edits: [
			{
				find: "JSON.stringify({ unsentBytes: unsent, limit })",
				replace: "JSON.stringify({ unsentBytes: unsent, limit: DEFAULT_SLOW_READER_LIMIT_BYTES })",
			},
		],
		tests: ["test/inspect/live-slow-reader.test.ts"],
	},
	{
		id: "AH01",
		file: "src/compaction/summarize.ts",
		description: "a split turn's history request retries without saying which part",
		edits: [
			{
				find: '...retryOfPart(options.retry, "history"),',
				replace: "",
			},
		],
		tests: ["test/session/recovery-compaction.test.ts"],
	},
	{
		id: "AH02",
		file: "src/compaction/summarize.ts",
		description: "the turn-prefix request's retries are named history",
		edits: [
			{
				find: '...retryOfPart(options.retry, "turnPrefix"),',
				replace: '...retryOfPart(options.retry, "history"),',
			},
		],
		tests: ["test/session/recovery-compaction.test.ts"],
	},
	{
		id: "AH03",
		file: "machines/prompt-operation.machine.ts",
		description: "the machine drops the part of summarization retry reports",
		edits: [
			{
				find: "return report.part !== undefined ? { part: report.part } : {};",
				replace: "return {};",
			},
		],
		tests: ["test/session/recovery-compaction.test.ts"],
	},
	{
		id: "AH04",
		file: "src/testing/session-invariants.ts",
		description: "the invariant checker lets one part's attempts skip a number",
		edits: [
			{
				find: "} else if (event.attempt !== call.attempt + 1) {",
				replace: "} else if (event.attempt < call.attempt) {",
			},
		],
		tests: ["test/testing/session-invariants.property.test.ts"],
	},
	{
		id: "AH05",
		file: "src/testing/session-invariants.ts",
		description: "the invariant checker ends the untagged call whichever part finished",
		edits: [
			{
				find: 'the backoff does.\n\t\t\t\tconst key = event.part ?? "";',
				replace: 'the backoff does.\n\t\t\t\tconst key = "";',
			},
		],
		tests: ["test/testing/session-invariants.property.test.ts"],
	},
	{
		id: "AI01",
		file: "src/runtime/sdk.ts",
		description: "createAgentSession ignores a model given by name",
		edits: [
			{
				find: "? findModel(modelRuntime, options.model, settingsManager.getDefaultProvider())",
				replace: "? undefined",
			},
		],
		tests: ["test/runtime/sdk.test.ts"],
	},
	{
		id: "AI02",
		file: "src/cli/rpc-mode.ts",
		description: "RPC fork answers with the SDK's hinted text instead of pi's",
		edits: [
			{
				find: 'return failure(id, "fork", INVALID_FORK_ENTRY_MESSAGE)',
				replace: 'return failure(id, "fork", error)',
			},
		],
		tests: ["test/cli/rpc-fork-entry.test.ts"],
	},
	{
		id: "AI03",
		file: "src/runtime/errors.ts",
		description: "the fork error gives no hint",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'super("INVALID_ARGUMENT", `${INVALID_FORK_ENTRY_MESSAGE}: ${hint}`, {',
				replace: 'super("INVALID_ARGUMENT", INVALID_FORK_ENTRY_MESSAGE, {',
			},
		],
		tests: ["test/runtime/runtime.test.ts"],
	},
	{
		id: "AI04",
		file: "src/runtime/targets.ts",
		description: "a non-user fork entry is reported as unknown",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'entry.type === "message" ? `${entry.message.role} message` : `${entry.type} entry`,',
				replace: "undefined,",
			},
		],
		tests: ["test/runtime/runtime.test.ts"],
	},
	{
		id: "AI05",
		file: "examples/quickstart.ts",
		description: "an example imports the sources again",
		edits: [
			{
				find: '} from "settle";',
				replace: '} from "../src/index.js";',
			},
		],
		tests: ["test/examples/public-imports.test.ts"],
	},
	{
		id: "AI06",
		file: "tsconfig.json",
		description: "settle/testing resolves to dist in the repo",
		edits: [
			{
				find: '"settle/testing": ["./src/testing/index.ts"]',
				replace: '"settle/testing": ["./dist/testing.js"]',
			},
		],
		tests: ["test/examples/public-imports.test.ts"],
	},
	{
		id: "AJ01",
		file: "src/inspect/lifecycle-inspector.ts",
		description: "a throwing details option is silent",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "reportListenerError(`${this.source} details`, this.details, error, this.owner);",
				replace: "",
			},
		],
		tests: ["test/inspect/inspection-listener-errors.test.ts"],
	},
	{
		id: "AJ02",
		file: "src/inspect/lifecycle-inspector.ts",
		description: "a throwing details option loses the state change",
		edits: [
			{
				find: "details: this.detailsOf(snapshot.context),",
				replace: "details: this.details(this.machine, snapshot.context),",
			},
		],
		tests: ["test/inspect/inspection-listener-errors.test.ts"],
	},
	{
		id: "AK01",
		file: "src/tools/types.ts",
		description: "1.x schemas untyped again",
		edits: [
			{
				find: "\t\t? TypeBox1Static<S>",
				replace: "\t\t? Record<string, any>",
			},
		],
		tests: ["test/tools/typebox1-static.test.ts"],
	},
	{
		id: "AK02",
		file: "src/schema/typebox1-static.ts",
		description: "optional properties of 1.x schemas typed as required",
		edits: [
			{
				find: 'type IsOptional<S> = S extends { "~optional": true } ? true : false;',
				replace: 'type IsOptional<S> = S extends { "~optional": true } ? false : false;',
			},
		],
		tests: ["test/tools/typebox1-static.test.ts"],
	},
	{
		id: "AK03",
		file: "src/runtime/targets.ts",
		description: "a missing switch target silently becomes a new session",
		edits: [
			{
				find: "\tif (!existed && !createIfMissing) throw missingSessionFile(file, file === current.manager.getSessionFile());\n",
				replace: "",
			},
		],
		tests: ["test/runtime/switch-missing-file.test.ts"],
	},
	{
		id: "AK04",
		file: "src/runtime/runtime.ts",
		description: "extensions' ctx.switchSession loses pi's new-session-at-path",
		edits: [
			{
				find: "this.switchSession(path, { ...options, createIfMissing: true })",
				replace: "this.switchSession(path, { ...options })",
			},
		],
		tests: ["test/runtime/switch-missing-file.test.ts"],
	},
	{
		id: "AK05",
		file: "src/store/session-manager.ts",
		description: "SessionManager.open ignores createIfMissing: false",
		edits: [
			{
				find: "if ((readOnly || options?.createIfMissing === false) && !existsSync(file)) {",
				replace: "if (readOnly && !existsSync(file)) {",
			},
		],
		tests: ["test/runtime/switch-missing-file.test.ts"],
	},
	{
		id: "AK06",
		file: "src/session/session-stats.ts",
		description: "byModel ignores the provider's responseModel",
		edits: [
			{
				find: "assistant.responseModel ?? assistant.model",
				replace: "assistant.model",
			},
		],
		tests: ["test/session/session-stats-by-model.test.ts", "test/session/session-stats-by-model.property.test.ts"],
	},
	{
		id: "AK07",
		file: "src/session/session-stats.ts",
		description: "byModel leaves out tool-result usage",
		edits: [
			{
				find: "\t\t\taddToGroup(UNATTRIBUTED_USAGE_KEY, (message as ToolResultMessage).usage);\n",
				replace: "",
			},
		],
		tests: ["test/session/session-stats-by-model.property.test.ts"],
	},
	{
		id: "AK08",
		file: "src/cli/rpc-mode.ts",
		description: "RPC get_session_stats grows pi 1.6's byModel",
		edits: [
			{
				find: "const { byModel: _byModel, ...stats } = session.getSessionStats();",
				replace: "const stats = session.getSessionStats();",
			},
		],
		tests: ["test/cli/session-stats.test.ts"],
	},
	{
		id: "AL01",
		file: "src/cli/main.ts",
		description: "a missing prompt hides an unknown option",
		edits: [
			{
				find: "const checkFlagsFirst = args.unknownFlags.length > 0;",
				replace: "const checkFlagsFirst = false;",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "AL02",
		file: "src/cli/host.ts",
		description: "the trust note on every unknown flag, trusted project or not",
		edits: [
			{
				find: "if (untrusted.paths.length > 0 && errors.some(maybeExtensionFlag))",
				replace: "if (errors.some(maybeExtensionFlag))",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "AL04",
		file: "src/store/folders.ts",
		description: "a file in the way of the session folder passes the startup check",
		edits: [
			{
				find: "if (!isDirectory(current)) return",
				replace: "if (isDirectory(current) && !current) return",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "AL05",
		file: "src/cli/faux-script.ts",
		description: "unknown faux-script step keys accepted",
		edits: [
			{
				find: "if (unknownKey !== undefined) throw fail(",
				replace: "if (unknownKey === null) throw fail(",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "AL06",
		file: "src/cli/main.ts",
		description: "--help without the project's extension flags",
		edits: [
			{
				find: "out.stdout(helpText(await projectExtensionFlags(args)));",
				replace: "out.stdout(helpText());",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "AL07",
		file: "src/cli/print-mode.ts",
		description: "the -p retry notice on the wrong event",
		edits: [
			{
				find: 'if (event.type === "auto_retry_start") {',
				replace: 'if (event.type === "auto_retry_end") {',
			},
		],
		tests: ["test/cli/cli-guidance.test.ts", "test/cli/trace.test.ts"],
	},
	{
		id: "AL08",
		file: "src/cli/rpc-mode.ts",
		description: "RPC keeps the SDK's no-model advice",
		edits: [
			{
				find: "error: errorMessage(rpcErrorForCli(error, runtime.services.agentDir)),",
				replace: "error: errorMessage(error),",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "AM01",
		file: "src/testing/session-invariants.ts",
		description: "a promised retry that an abort cancels is a violation",
		edits: [
			{
				find: 'event.type !== "auto_retry_start" && !cancelledByAbort',
				replace: 'event.type !== "auto_retry_start"',
			},
		],
		tests: ["test/testing/session-invariants-abort.test.ts"],
	},
	{
		id: "AM02",
		file: "src/testing/session-invariants.ts",
		description: "an open retry sequence may settle without being cancelled",
		edits: [
			{
				find: "(!promisedInSequence || retryCancelled)",
				replace: "true",
			},
		],
		tests: ["test/testing/session-invariants-abort.test.ts"],
	},
	{
		id: "AM03",
		file: "src/session/agent-session.ts",
		description: "a disposed session still reports streaming",
		edits: [
			{
				find: "return !this.disposed && isStreaming(this.snapshot);",
				replace: "return isStreaming(this.snapshot);",
			},
		],
		tests: ["test/session/disposed-flags.test.ts", "test/runtime/session-replaced.test.ts"],
	},
	{
		id: "AM04",
		file: "src/session/agent-session.ts",
		description: "dispose leaves the Agent's queues to the detached run",
		edits: [
			{
				find: "\t\tthis.agent.clearAllQueues();\n\t\tthis.queues.restoreUndelivered();",
				replace: "\t\tthis.queues.restoreUndelivered();",
			},
		],
		tests: ["test/session/dispose-queued.test.ts"],
	},
	{
		id: "AM05",
		file: "src/session/agent-session.ts",
		description: "a disposed session's messages follow the detached run",
		edits: [
			{
				find: "return this.messagesAtDispose ?? this.agent.state.messages;",
				replace: "return this.agent.state.messages;",
			},
		],
		tests: ["test/session/dispose-queued.test.ts"],
	},
	{
		id: "AM06",
		file: "src/session/queues.ts",
		description: "a queued message whose delivery began is not remembered",
		edits: [
			{
				find: "\t\tthis.delivering = { list, index, entry };\n",
				replace: "",
			},
		],
		tests: ["test/session/dispose-queued.test.ts"],
	},
	{
		id: "AM07",
		file: "src/session/event-bridge.ts",
		description: "a delivered user message goes back on the queue at dispose",
		edits: [
			{
				find: '\tif (message.role === "user") s.queues.onUserMessageEnd();\n',
				replace: "",
			},
		],
		tests: ["test/session/dispose-queued.test.ts"],
	},
	{
		id: "AN01",
		file: "src/cli/main.ts",
		description: "no stall detection when a handler never settles",
		edits: [
			{
				find: 'process.on("beforeExit", onStall);',
				replace: "",
			},
		],
		tests: ["test/cli/stuck-extension.test.ts"],
	},
	{
		id: "AN02",
		file: "src/cli/termination.ts",
		description: "the shutdown grace 20 times longer",
		edits: [
			{
				after: "const end = (code: number) => {",
				find: "}, SHUTDOWN_GRACE_MS);",
				replace: "}, SHUTDOWN_GRACE_MS * 20);",
			},
		],
		tests: ["test/cli/stuck-extension.test.ts"],
	},
	{
		id: "AN03",
		file: "src/extensions/runner.ts",
		description: "finished handlers stay pending",
		edits: [
			{
				find: "this.inFlight.delete(record);",
				replace: "",
			},
		],
		tests: ["test/extensions/pending-handlers.test.ts"],
	},
	{
		id: "AN04",
		file: "src/extensions/runner.ts",
		description: "a pending command tracked without its name",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "await this.track(command.sourceInfo.path, `command:${invocation.name}`, () =>",
				replace: 'await this.track(command.sourceInfo.path, "command", () =>',
			},
		],
		tests: ["test/extensions/pending-handlers.test.ts"],
	},
	{
		id: "AN05",
		file: "src/extensions/runner.ts",
		description: "a non-string systemPrompt from before_agent_start accepted",
		edits: [
			{
				find: 'if (value.systemPrompt !== undefined && typeof value.systemPrompt !== "string") {',
				replace: 'if (value.systemPrompt !== undefined && typeof value.systemPrompt === "symbol") {',
			},
		],
		tests: ["test/extensions/pending-handlers.test.ts"],
	},
	{
		id: "AN06",
		file: "src/cli/print-mode.ts",
		description: "a command's error without its extension file",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "if (file) where = `${where} of ${file}`;",
				replace: "",
			},
		],
		tests: ["test/cli/stuck-extension.test.ts"],
	},
	{
		id: "AO01",
		file: "machines/prompt-operation.machine.ts",
		description: "abortRetry before agent_end announced a retry cancels it",
		edits: [
			{
				find: 'context.retryAnnouncement === "announced",',
				replace: 'context.retryAnnouncement !== "cancelled",',
			},
		],
		tests: [
			"test/session/retry-cancel-announced.test.ts",
			"test/machines/prompt-operation.test.ts",
			"test/session/retry-cancel.property.test.ts",
		],
	},
	{
		id: "AO02",
		file: "machines/prompt-operation.machine.ts",
		description: "every announced retry is cancelled",
		edits: [
			{
				find: 'guard: "announcedRetryCancelled",',
				replace: 'guard: "retryAnnounced",',
			},
		],
		tests: [
			"test/session/retry-cancel-announced.test.ts",
			"test/machines/prompt-operation.test.ts",
			"test/session/retry-cancel.property.test.ts",
		],
	},
	{
		id: "AO03",
		file: "src/session/event-bridge.ts",
		description: "the retry announcement sent for willRetry:false",
		edits: [
			{
				find: 'if (retrying) s.send({ type: "RETRY_ANNOUNCED" });',
				replace: 'if (!retrying) s.send({ type: "RETRY_ANNOUNCED" });',
			},
		],
		tests: [
			"test/session/retry-cancel-announced.test.ts",
			"test/machines/prompt-operation.test.ts",
			"test/session/retry-cancel.property.test.ts",
		],
	},
	{
		id: "AO04",
		file: "machines/prompt-operation.machine.ts",
		description: "the retry announcement not recorded",
		edits: [
			{
				find: 'RETRY_ANNOUNCED: { actions: "noteRetryAnnounced" },',
				replace: "RETRY_ANNOUNCED: {},",
			},
		],
		tests: [
			"test/session/retry-cancel-announced.test.ts",
			"test/machines/prompt-operation.test.ts",
			"test/session/retry-cancel.property.test.ts",
		],
	},
	{
		id: "AO05",
		file: "machines/prompt-operation.machine.ts",
		description: "a retry cancelled before its backoff emits no auto_retry_end",
		edits: [
			{
				find: 'actions: ["announceRetryCancelled", "resetRetry"],',
				replace: 'actions: ["resetRetry"],',
			},
		],
		tests: [
			"test/session/retry-cancel-announced.test.ts",
			"test/machines/prompt-operation.test.ts",
			"test/session/retry-cancel.property.test.ts",
		],
	},
	{
		id: "AO06",
		file: "machines/prompt-operation.machine.ts",
		description: "the announcement not forgotten when a later run starts",
		edits: [
			{
				after: "const { announcedRetry: _last, ...operation } = context.operation;",
				find: 'retryAnnouncement: "none" as RetryAnnouncement,',
				replace: "retryAnnouncement: context.retryAnnouncement,",
			},
		],
		tests: [
			"test/session/retry-cancel-announced.test.ts",
			"test/machines/prompt-operation.test.ts",
			"test/session/retry-cancel.property.test.ts",
		],
	},
	{
		id: "AP01",
		file: "src/cli/main.ts",
		description: "--list-models without any credentials fails",
		edits: [
			{
				find: "\t\t\treturn EXIT_OK;\n\t\t}\n\t\tconst width",
				replace: "\t\t\treturn EXIT_FAILURE;\n\t\t}\n\t\tconst width",
			},
		],
		tests: ["test/cli/list-models.test.ts"],
	},
	{
		id: "AQ01",
		file: "src/runtime/runtime.ts",
		description: "session not marked when a replacement starts",
		edits: [
			{
				find: "setReplacingMessage(this.current.session, SESSION_BEING_REPLACED);",
				replace: "void SESSION_BEING_REPLACED;",
			},
		],
		tests: ["test/runtime/replacing-session-input.test.ts"],
	},
	{
		id: "AQ02",
		file: "src/runtime/runtime.ts",
		description: "a cancelled replacement leaves the old session refusing input",
		edits: [
			{
				find: "setReplacingMessage(this.current.session, undefined);\n\t\t\t\t\tthis.settle(event.requestId, { cancelled: true });",
				replace: "this.settle(event.requestId, { cancelled: true });",
			},
		],
		tests: ["test/runtime/replacing-session-input.test.ts"],
	},
	{
		id: "AQ03",
		file: "src/session/agent-session.ts",
		description: "extension sends refused like host input",
		edits: [
			{
				find: "this.submitUserMessage(\n\t\t\t\t\t\tcontent,",
				replace: "this.sendUserMessage(\n\t\t\t\t\t\tcontent,",
			},
		],
		tests: ["test/runtime/replacing-session-input.test.ts"],
	},
	{
		id: "AQ04",
		file: "src/cli/current-session.ts",
		description: "RPC/chat input not retried after the replacement",
		edits: [
			{
				find: "if (!isReplacementRefusal(error) || runtime.isDisposed) throw error;",
				replace: "throw error;",
			},
		],
		tests: ["test/cli/rpc-replacing-session.test.ts"],
	},
	{
		id: "AQ05",
		file: "src/session/agent-session.ts",
		description: "a command that replaced the session never reports handled",
		edits: [
			{
				find: 'pending.preflightResult?.("handled");',
				replace: "",
			},
		],
		tests: ["test/cli/rpc-replacing-session.test.ts"],
	},
	{
		id: "AQ06",
		file: "src/llm/provider-env.ts",
		description: "anthropic precedence swapped",
		edits: [
			{
				find: 'anthropic: ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"],',
				replace: 'anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"],',
			},
		],
		tests: ["test/llm/provider-env.test.ts"],
	},

	{
		id: "AQ07",
		file: "src/store/folders.ts",
		description: "a folder that cannot be made is not probed",
		edits: [
			{
				find: "return missing === undefined ? undefined : unmakeableFolder(missing);",
				replace: "return undefined;",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "AR01",
		file: "src/inspect/lifecycle-inspector.ts",
		description: "a stopped actor's pending timers are not reported cancelled",
		edits: [
			{
				find: "for (const timer of this.timers.values()) {",
				replace: "for (const timer of new Map<string, { delay: string; state: string }>().values()) {",
			},
		],
		tests: ["test/inspect/lifecycle-inspector.test.ts"],
	},
	{
		id: "AR02",
		file: "src/inspect/lifecycle-inspector.ts",
		description: "the root actor's stop is never reported",
		edits: [
			{
				find: "if (this.stopped) return;",
				replace: "if (!this.stopped) return;",
			},
		],
		tests: ["test/runtime/session-replaced.test.ts", "test/inspect/runtime-trace-example.test.ts"],
	},
	{
		id: "AR03",
		file: "src/runtime/runtime.ts",
		description: "runtime inspection timed on Date.now, not the sessions' clock",
		edits: [
			{
				find: "const now = rest.now ?? (() => (inspectionClockOf(this.session) ?? Date.now)());",
				replace: "const now = rest.now ?? Date.now;",
			},
		],
		tests: ["test/runtime/session-replaced.test.ts"],
	},
	{
		id: "AR04",
		file: "src/inspect/trace.ts",
		description: "auto_retry_start printed as JSON again",
		edits: [
			{
				find: 'case "auto_retry_start":',
				replace: 'case "auto_retry_begin":',
			},
		],
		tests: ["test/inspect/trace.test.ts"],
	},
	{
		id: "AR05",
		file: "src/session/compaction-runner.ts",
		description: "pre-send compaction not told to the machine",
		edits: [
			{
				find: '\ts.send({ type: "PRE_SEND_COMPACTION_START", ...due });\n',
				replace: "",
			},
		],
		tests: ["test/session/recovery-compaction.test.ts"],
	},
	{
		id: "AR06",
		file: "machines/prompt-operation.machine.ts",
		description: "isCompacting ignores the pre-send compaction",
		edits: [
			{
				find: "snapshot.context.preflightCompactions.preSend !== undefined ||",
				replace: "",
			},
		],
		tests: ["test/session/recovery-compaction.test.ts"],
	},
	{
		id: "AR07",
		file: "src/inspect/trace.ts",
		description: "parseTrace accepts sessions without firstEvent",
		edits: [
			{
				find: 'typeof session.firstEvent === "number"',
				replace: "true",
			},
		],
		tests: ["test/inspect/trace.test.ts"],
	},
	{
		id: "AR08",
		file: "src/session/compaction-runner.ts",
		description: "isCompacting stays true after the pre-send compaction",
		edits: [
			{
				after: "async function compactBeforeSend(",
				find: '\t\ts.send(output ? { type: "PRE_SEND_COMPACTION_END", output } : { type: "PRE_SEND_COMPACTION_END" });\n',
				replace: "",
			},
		],
		tests: ["test/session/recovery-compaction.test.ts"],
	},
	{
		id: "AS01",
		file: "src/llm/faux.ts",
		description: "chunk sizes from Math.random again",
		edits: [
			{
				find: "const tokens = minTokens + Math.floor(nextRandom() * (maxTokens - minTokens + 1));",
				replace: "const tokens = minTokens + Math.floor(Math.random() * (maxTokens - minTokens + 1));",
			},
		],
		tests: ["test/llm/faux.test.ts", "test/testing/scheduled-responses.property.test.ts"],
	},
	{
		id: "AS02",
		file: "src/testing/arbitraries.ts",
		description: "steps lose their one-line printer",
		edits: [
			{
				find: "Object.defineProperty(step, fc.toStringMethod, { value: () => describeStep(step), enumerable: false });",
				replace: "",
			},
		],
		tests: ["test/testing/arbitraries-print.test.ts"],
	},
	{
		id: "AS03",
		file: "src/testing/harness-invariants.ts",
		description: "extension errors not reported",
		edits: [
			{
				find: "for (const error of harness.extensionErrors) {",
				replace: "for (const error of [] as typeof harness.extensionErrors) {",
			},
		],
		tests: ["test/testing/harness-violations.test.ts"],
	},
	{
		id: "AS04",
		file: "src/testing/harness.ts",
		description: "fired timers stay counted",
		edits: [
			{
				find: "\t\t\tpending.delete(id);\n\t\t\tfn(...args);",
				replace: "\t\t\tfn(...args);",
			},
		],
		tests: ["test/testing/harness-violations.test.ts"],
	},
	{
		id: "AS05",
		file: "src/testing/harness-invariants.ts",
		description: "reopen check skipped",
		edits: [
			{
				find: "if (file !== undefined && existsSync(file)) violations.push(...reopenViolations(file, session.messages));",
				replace: "",
			},
		],
		tests: ["test/testing/harness-violations.test.ts"],
	},
	{
		id: "AS06",
		file: "src/testing/harness.ts",
		description: "hang message forgets running tools",
		edits: [
			{
				find: "running.set(event.toolCallId, event.toolName);",
				replace: "void running;",
			},
		],
		tests: ["test/testing/harness-hang.test.ts"],
	},
	{
		id: "AS07",
		file: "src/testing/session-invariants.ts",
		description: "any message_end pairs with an idle custom start",
		edits: [
			{
				find: 'if (next?.type === "message_end" && next.message === event.message) {',
				replace: 'if (next?.type === "message_end") {',
			},
		],
		tests: ["test/testing/session-invariants-idle-custom.test.ts"],
	},
	{
		id: "AS08",
		file: "src/session/agent-session.ts",
		description: "waitForIdle resolves outside idle (before a compaction compact() asked for has run)",
		edits: [
			{
				find: '(snapshot.value === "idle" && snapshot.context.treeNavigation === undefined)',
				replace: "snapshot.context.treeNavigation === undefined",
			},
		],
		tests: ["test/session/wait-for-idle-compact.test.ts"],
	},
	{
		id: "AT01",
		file: "src/llm/model-runtime.ts",
		description: "SDK NO_AUTH names no variable",
		edits: [
			{
				find: "const vars = apiKeyEnvVars(provider);",
				replace: "const vars = undefined as readonly string[] | undefined;",
			},
		],
		tests: ["test/runtime/provider-hint.test.ts"],
	},
	{
		id: "AT02",
		file: "src/llm/model-runtime.ts",
		description: "only the first of several variables named",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'Set ${vars.join(" or ")} in the environment',
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "Set ${vars[0]} in the environment",
			},
		],
		tests: ["test/runtime/provider-hint.test.ts"],
	},
	{
		id: "AT03",
		file: "src/store/folders.ts",
		description: "recursive mkdir per level (hangs under /proc)",
		edits: [
			{
				find: "mkdirSync(level);",
				replace: "mkdirSync(level, { recursive: true });",
			},
		],
		tests: ["test/store/session-folder-proc.test.ts"],
	},
	{
		id: "AT04",
		file: "src/store/folders.ts",
		description: "mkdir errors swallowed",
		edits: [
			{
				find: 'if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !isDirectory(level)) throw error;',
				replace: "",
			},
		],
		tests: ["test/store/session-folder-proc.test.ts"],
	},
	{
		id: "AT05",
		file: "src/store/folders.ts",
		description: "an existing file accepted as the folder",
		edits: [
			{
				find: "if (missing.length === 0 && !isDirectory(dir)) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/store/session-folder-proc.test.ts"],
	},
	{
		id: "AT06",
		file: "src/cli/current-session.ts",
		description: "input refused during a replacement is not retried (chat)",
		edits: [
			{
				find: "return runtime.waitForReplacement().then(attempt);",
				replace: "throw error;",
			},
		],
		tests: ["test/cli/interactive-replacing-session.test.ts"],
	},
	{
		id: "AU01",
		file: "src/testing/queue-invariants.ts",
		description: "steering additions never seen",
		edits: [
			{
				find: "for (const text of added(steering, event.steering)) {",
				replace: "for (const text of added(event.steering, event.steering)) {",
			},
		],
		tests: ["test/testing/queue-accounting.test.ts"],
	},
	{
		id: "AU02",
		file: "src/testing/queue-invariants.ts",
		description: "listed texts not counted",
		edits: [
			{
				find: "if (entry) entry.listed++;",
				replace: "if (entry) entry.listed += 0;",
			},
		],
		tests: ["test/testing/queue-accounting.test.ts"],
	},
	{
		id: "AU03",
		file: "src/testing/queue-invariants.ts",
		description: "cleared texts not counted",
		edits: [
			{
				find: "if (entry) entry.cleared++;",
				replace: "if (entry) entry.cleared += 0;",
			},
		],
		tests: ["test/testing/queue-accounting.test.ts"],
	},
	{
		id: "AU04",
		file: "src/testing/queue-invariants.ts",
		description: "double delivery accepted",
		edits: [
			{
				find: "if (found === entry.queued) continue;",
				replace: "if (found >= entry.queued) continue;",
			},
		],
		tests: ["test/testing/queue-accounting.test.ts"],
	},
	{
		id: "AU05",
		file: "src/testing/queue-invariants.ts",
		description: "wrong diagnosis for delivered+listed",
		edits: [
			{
				find: "delivered > 0 && entry.listed > 0",
				replace: "delivered > 1 && entry.listed > 0",
			},
		],
		tests: ["test/testing/queue-accounting.test.ts"],
	},
	{
		id: "AU06",
		file: "src/testing/harness.ts",
		description: "clearQueue results not recorded",
		edits: [
			{
				find: "cleared.push({ steering: texts.steering.slice(), followUp: texts.followUp.slice() });",
				replace: "",
			},
		],
		tests: ["test/testing/queue-accounting.test.ts"],
	},
	{
		id: "AU07",
		file: "src/testing/harness-invariants.ts",
		description: "queue check not folded in",
		edits: [
			{
				find: "violations.push(...queueViolations(harness));",
				replace: "",
			},
		],
		tests: ["test/testing/queue-accounting.test.ts"],
	},
	{
		id: "AU08",
		file: "src/testing/actions.ts",
		description: "occurrences never counted",
		edits: [
			{
				find: "occurrences.set(event.type, occurrence + 1);",
				replace: "occurrences.set(event.type, occurrence);",
			},
		],
		tests: ["test/testing/session-actions.property.test.ts"],
	},
	{
		id: "AU09",
		file: "src/testing/actions.ts",
		description: "running tools not tracked",
		edits: [
			{
				find: 'if (event.type === "tool_execution_start") running.add(event.toolCallId);',
				replace: 'if (event.type === "tool_execution_start") running.size;',
			},
		],
		tests: ["test/testing/session-actions.property.test.ts"],
	},
	{
		id: "AU10",
		file: "src/testing/actions.ts",
		description: "backoff never flagged",
		edits: [
			{
				find: 'else if (event.type === "auto_retry_start") inRetryBackoff = true;',
				replace: "",
			},
		],
		tests: ["test/testing/session-actions.property.test.ts"],
	},
	{
		id: "AV01",
		file: "src/session/queues.ts",
		description: "clearQueue returns (and unlists) a text the run has already taken",
		edits: [
			{
				find: "(pending.has(entry.message) ? cleared : kept).push(entry);",
				replace: "cleared.push(entry);",
			},
		],
		tests: ["test/testing/queue-accounting.test.ts", "test/testing/session-actions.property.test.ts"],
	},
	{
		id: "AW01",
		file: "machines/prompt-operation.machine.ts",
		description: "queue changes not echoed",
		edits: [
			{
				find: 'QUEUE_CHANGED: { actions: "announceQueueChange" },',
				replace: "QUEUE_CHANGED: {},",
			},
		],
		tests: ["test/inspect/queue-trace.test.ts", "test/machines/prompt-operation.test.ts"],
	},
	{
		id: "AW02",
		file: "machines/prompt-operation.machine.ts",
		description: "echo drops the text",
		edits: [
			{
				find: "if (report.text !== undefined) change.text = report.text;",
				replace: "",
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/inspect/queue-trace.test.ts"],
	},
	{
		id: "AW03",
		file: "src/session/queues.ts",
		description: "a delivered follow-up reported as steering",
		edits: [
			{
				find: 'this.changed("delivered", list === this.steering ? "steering" : "followUp", entry.text);',
				replace: 'this.changed("delivered", "steering", entry.text);',
			},
		],
		tests: ["test/inspect/queue-trace.test.ts"],
	},
	{
		id: "AW04",
		file: "src/session/queues.ts",
		description: "clearing empty queues reports a change",
		edits: [
			{
				find: 'if (dropped > 0) this.changed("cleared");',
				replace: 'this.changed("cleared");',
			},
		],
		tests: ["test/inspect/queue-trace.test.ts"],
	},
	{
		id: "AW05",
		file: "src/session/queues.ts",
		description: "restore on dispose not reported",
		edits: [
			{
				find: 'this.changed("restored", delivering.list === this.steering ? "steering" : "followUp", delivering.entry.text);',
				replace: "",
			},
		],
		tests: ["test/inspect/queue-trace.test.ts"],
	},
	{
		id: "AW06",
		file: "src/session/queues.ts",
		description: "a text cut before collapsing does not say it was cut",
		edits: [
			{
				find: "const cut = line.length > QUEUE_TEXT_MAX || text.length > QUEUE_TEXT_MAX * 4;",
				replace: "const cut = line.length > QUEUE_TEXT_MAX;",
			},
		],
		tests: ["test/inspect/queue-trace.test.ts"],
	},
	{
		id: "AW07",
		file: "src/inspect/trace.ts",
		description: "queued change worded like the others",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "? `${which}${quoted}`",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "? `${p.change} ${which}${quoted}`",
			},
		],
		tests: ["test/inspect/queue-trace.test.ts", "test/inspect/trace-viewer.test.ts"],
	},
	{
		id: "AW08",
		file: "src/inspect/example-traces.ts",
		description: "example steer never delivered by the retried run",
		edits: [
			{
				find: 'if (steer === "queued" && input.cause === "retry") {',
				replace: 'if (steer === "queued" && input.cause === "compaction") {',
			},
		],
		tests: ["test/inspect/trace-viewer.test.ts"],
	},
	{
		id: "AX01",
		file: "src/store/folders.ts",
		description: "async folder maker goes back to Node's recursive mkdir (spins under /proc)",
		edits: [
			{
				find: "\t\t\tawait mkdir(level);",
				replace: "\t\t\tawait mkdir(level, { recursive: true });",
			},
		],
		tests: ["test/bad-input/folders-under-proc.test.ts"],
	},
	{
		id: "AX02",
		file: "src/store/folders.ts",
		description: "mode ignored: the credentials folder is not private",
		edits: [
			{
				find: "\t\t\tif (options.mode !== undefined) chmodSync(level, options.mode);",
				replace: "",
			},
		],
		tests: ["test/bad-input/folders-under-proc.test.ts"],
	},
	{
		id: "AX03",
		file: "src/tools/write.ts",
		description: "write tool reports a folder it cannot make as File not found",
		edits: [
			{
				find: 'if (code === "ENOENT") {',
				replace: 'if (code === "ENOENT_") {',
			},
		],
		tests: ["test/bad-input/folders-under-proc.test.ts"],
	},
	{
		id: "AX04",
		file: "src/session/agent-session.ts",
		description: "input accepted while the runtime disposes",
		edits: [
			{
				find: 'if (closing !== undefined) return new SettleError("SESSION_CLOSED", closing);',
				replace: "",
			},
		],
		tests: ["test/runtime/disposing-session-input.test.ts"],
	},
	{
		id: "AX05",
		file: "src/runtime/runtime.ts",
		description: "session installed by a replacement during dispose not marked closing",
		edits: [
			{
				find: 'if (input.reason === "quit") setClosingMessage(',
				replace: 'if (input.reason === "fork") setClosingMessage(',
			},
		],
		tests: ["test/runtime/disposing-session-input.test.ts"],
	},
	{
		id: "AX06",
		file: "src/cli/termination.ts",
		description: "tool calls ignoring abort not named",
		edits: [
			{
				find: "return describeRunningTools(runtime) + describePendingHandlers(runtime) + extensionsLoadingNow();",
				replace: "return describePendingHandlers(runtime) + extensionsLoadingNow();",
			},
		],
		tests: ["test/cli/stuck-extension.test.ts"],
	},
	{
		id: "AX07",
		file: "src/cli/interactive-mode.ts",
		description: "Ctrl+C after an ignored abort cannot end settle -i",
		edits: [
			{
				find: "if (busy() && abortStalled) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/cli/stuck-extension.test.ts", "test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "AX08",
		file: "src/inspect/lifecycle-inspector.ts",
		description: "built-in details key not the one the types name",
		edits: [
			{
				find: 'put("runCause", operation ? c.runCause : undefined);',
				replace: 'put("cause", operation ? c.runCause : undefined);',
			},
		],
		tests: ["test/inspect/inspection-details-types.test.ts"],
	},
	{
		id: "AY01",
		file: "src/rpc/client.ts",
		description: "exit does not reject pending calls",
		edits: [
			{
				find: "this.rejectPending(error);",
				replace: "void error;",
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "AY02",
		file: "src/rpc/client.ts",
		description: "success:false resolves",
		edits: [
			{
				find: "if (response.success) pending.resolve(response.data);",
				replace: "if (true) pending.resolve(response.data);",
			},
		],
		tests: ["test/rpc"],
	},
	{
		id: "AY03",
		file: "src/rpc/client.ts",
		description: "Settle runs end at agent_end",
		edits: [
			{
				find: 'state.lifecycle !== undefined ? "agent_settled" : "agent_end"',
				replace: '"agent_end"',
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "AY04",
		file: "src/rpc/client.ts",
		description: "unanswered dialogs are confirmed, not cancelled",
		edits: [
			{
				find: "...(answer ?? { cancelled: true })",
				replace: "...(answer ?? { confirmed: true })",
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "AY05",
		file: "src/rpc/client.ts",
		description: "iterator ends quietly on a crash",
		edits: [
			{
				find: "if (!stopped) failure = error;",
				replace: "if (false) failure = error;",
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "AY06",
		file: "src/rpc/client.ts",
		description: "stop() closes stdin instead of SIGTERM",
		edits: [
			{
				find: 'child.kill("SIGTERM");',
				replace: "child.stdin.end();",
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "AY07",
		file: "src/rpc/client.ts",
		description: "errors lose the stderr tail",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'return tail ? ` Its stderr ends with:\\n${tail}` : "";',
				replace: 'return "";',
			},
		],
		tests: ["test/rpc"],
	},
	{
		id: "AY08",
		file: "src/rpc/client.ts",
		description: "getLastAssistantText returns the wrapper",
		edits: [
			{
				find: '({ type: "get_last_assistant_text" })).text;',
				replace: '({ type: "get_last_assistant_text" })) as unknown as string;',
			},
		],
		tests: ["test/rpc/rpc-client-peers.test.ts"],
	},
	{
		id: "AZ01",
		file: "src/store/branch-copy.ts",
		description: "re-emitted labels start a new root",
		edits: [
			{
				find: "let labelParent: string | null = kept.length > 0 ? kept[kept.length - 1]!.id : null;",
				replace: "let labelParent: string | null = null;",
			},
		],
		tests: ["test/store/branch-copy.property.test.ts", "test/runtime/fork-copies-branch.test.ts"],
	},
	{
		id: "AZ02",
		file: "src/runtime/targets.ts",
		description: "forked file's header loses parentSession",
		edits: [
			{
				find: "{ ...branchHeader(source.getCwd()), parentSession: sourceFile }",
				replace: "branchHeader(source.getCwd())",
			},
		],
		tests: ["test/runtime/fork-copies-branch.test.ts"],
	},
	{
		id: "AZ03",
		file: "src/runtime/targets.ts",
		description: "in-memory fork copies the whole session",
		edits: [
			{
				find: "\t\t...source.getBranchedEntries(leafId),\n",
				replace: "\t\t...source.getEntries(),\n",
			},
		],
		tests: ["test/runtime/fork-copies-branch.test.ts"],
	},
	{
		id: "AZ04",
		file: "src/store/discovery.ts",
		description: "files without a readable header line skipped",
		edits: [
			{
				find: "const info = header && !wantedHeader!(header) ? null",
				replace: "const info = !header || !wantedHeader!(header) ? null",
			},
		],
		tests: ["test/cli/session-lookup.property.test.ts"],
	},
	{
		id: "AZ05",
		file: "src/cli/session-lookup.ts",
		description: "header filter matches whole ids only",
		edits: [
			{
				find: "\t\t(header) => header.id.startsWith(prefix),\n\t\tfalse,\n\t);\n\tconst link",
				replace: "\t\t(header) => header.id === prefix,\n\t\tfalse,\n\t);\n\tconst link",
			},
		],
		tests: ["test/cli/session-lookup.property.test.ts"],
	},
	{
		id: "AZ06",
		file: "src/cli/session-lookup.ts",
		description: "--session <id prefix> matches another cwd's session in the session dir",
		edits: [
			{
				find: '(info) => info.id.startsWith(prefix) && info.cwd !== "" && resolve(info.cwd) === cwd,',
				replace: '(info) => info.id.startsWith(prefix) && info.cwd !== "",',
			},
		],
		tests: ["test/cli/session-lookup.property.test.ts"],
	},
	{
		id: "BA01",
		file: "src/runtime/services.ts",
		description: "models.json not applied",
		edits: [
			{
				find: "applyModelsJson(modelRuntime, agentDir, diagnostics);",
				replace: "",
			},
		],
		tests: ["test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "BA02",
		file: "src/runtime/models-json.ts",
		description: "built-in provider's custom models registered as a provider of their own (skipped)",
		edits: [
			{
				find: "if (builtIn.has(name)) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/cli/pi-migration.test.ts"],
	},
	{
		id: "BA03",
		file: "src/llm/pi-ai.ts",
		description: "stored/env key no longer beats the config apiKey",
		edits: [
			{
				find: "if (registration.apiKey !== undefined || registration.requiresAuth === false) {",
				replace: "if (true) {",
			},
		],
		tests: ["test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "BA04",
		file: "src/session/model-registry-view.ts",
		description: "compat dropped",
		edits: [
			{
				find: "...(model.compat || config.compat ? { compat: mergeCompat(config.compat, model.compat) } : {}),",
				replace: "",
			},
		],
		tests: ["test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "BA05",
		file: "src/cli/pi-folder.ts",
		description: "hint despite SETTLE_AGENT_DIR",
		edits: [
			{
				find: "if (input.agentDirGiven || env[AGENT_DIR_ENV]?.trim()) return undefined;",
				replace: "if (input.agentDirGiven) return undefined;",
			},
		],
		tests: ["test/cli/pi-migration.test.ts"],
	},
	{
		id: "BA06",
		file: "src/cli/pi-folder.ts",
		description: "hint on every run",
		edits: [
			{
				find: "|| existsSync(input.agentDir) ||",
				replace: "||",
			},
		],
		tests: ["test/cli/pi-migration.test.ts"],
	},
	{
		id: "BA07",
		file: "src/runtime/sdk.ts",
		description: "authStorage + modelRuntime accepted",
		edits: [
			{
				find: "if (options.modelRuntime && options.authStorage) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "BA08",
		file: "src/cli/interactive-render.ts",
		description: "hideThinkingBlock ignored",
		edits: [
			{
				find: "if (!this.thinkingHidden) this.raw(",
				replace: "this.raw(",
			},
		],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "BB01",
		file: "src/session/model-registry-view.ts",
		description: "getError() silent about a models.json that was not read",
		edits: [
			{
				find: "getError: () => modelsFileErrors.get(runtime),",
				replace: "getError: () => undefined,",
			},
		],
		tests: ["test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "BB02",
		file: "src/runtime/models-json.ts",
		description: "a models.json whose providers are not an object leaves getError() silent",
		edits: [
			{
				find: "\t\t\twarn(message);\n\t\t\tsetModelsFileError(modelRuntime, message);\n\t\t}",
				replace: "\t\t\twarn(message);\n\t\t}",
			},
		],
		tests: ["test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "BB03",
		file: "src/cli/host.ts",
		description: "--agent-dir keeps a quoted ~ literally",
		edits: [
			{
				find: "resolve(args.agentDir !== undefined ? expandHome(args.agentDir) : getDefaultAgentDir())",
				replace: "resolve(args.agentDir !== undefined ? args.agentDir : getDefaultAgentDir())",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "BC01",
		file: "src/listener-errors.ts",
		description: "a shared listener reported once per process again",
		edits: [
			{
				find: "if (!firstFailure(owner ?? UNOWNED, listener)) return;",
				replace: "if (!firstFailure(UNOWNED, listener)) return;",
			},
		],
		tests: ["test/runtime/many-sessions.property.test.ts"],
	},
	{
		id: "BC02",
		file: "src/listener-errors.ts",
		description: "warning details lose sessionId/cwd",
		edits: [
			{
				find: "details: { source, ...details }",
				replace: "details: { source }",
			},
		],
		tests: ["test/runtime/many-sessions.property.test.ts", "test/runtime/listener-errors.test.ts"],
	},
	{
		id: "BC03",
		file: "src/session/public-events.ts",
		description: "subscribe failures name no session",
		edits: [
			{
				find: 'callListener("session.subscribe", listeners[index]!, event, this.owner);',
				replace: 'callListener("session.subscribe", listeners[index]!, event);',
			},
		],
		tests: ["test/runtime/many-sessions.property.test.ts", "test/runtime/listener-errors.test.ts"],
	},
	{
		id: "BC04",
		file: "src/session/public-events.ts",
		description: "a kept unsubscribe retains the disposed session",
		edits: [
			{
				find: "\t\tthis.owner = undefined;\n",
				replace: "",
			},
		],
		tests: ["test/lifetime/session-dispose.test.ts"],
	},
	{
		id: "BC05",
		file: "src/session/agent-session.ts",
		description: "inspect onEnd failures name no session",
		edits: [
			{
				find: 'new InspectionSubscriptionSet("session.inspect", this.listenerOwner)',
				replace: 'new InspectionSubscriptionSet("session.inspect")',
			},
		],
		tests: ["test/inspect/inspection-listener-errors.test.ts"],
	},
	{
		id: "BC06",
		file: "src/inspect/lifecycle-inspector.ts",
		description: "observer failures name no session",
		edits: [
			{
				find: "callListener(this.source, this.observer, full, this.owner);",
				replace: "callListener(this.source, this.observer, full);",
			},
		],
		tests: ["test/inspect/inspection-listener-errors.test.ts"],
	},
	{
		id: "BC07",
		file: "src/runtime/runtime.ts",
		description: "onSessionReplaced failures name no session",
		edits: [
			{
				find: 'callListener("runtime.onSessionReplaced", listener, event, this.listenerOwner);',
				replace: 'callListener("runtime.onSessionReplaced", listener, event);',
			},
		],
		tests: ["test/runtime/listener-errors.test.ts"],
	},
	{
		id: "BD01",
		file: "src/inspect/live-server.ts",
		description: "a lookalike prefix counts as under the base path",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "path.startsWith(`${basePath}/`)",
				replace: "path.startsWith(basePath)",
			},
		],
		tests: ["test/inspect/live-mount.test.ts"],
	},
	{
		id: "BD02",
		file: "src/inspect/live-server.ts",
		description: "a closed handler still answers",
		edits: [
			{
				find: "if (closed || !mine(path)) return false;",
				replace: "if (!mine(path)) return false;",
			},
		],
		tests: ["test/inspect/live-mount.test.ts"],
	},
	{
		id: "BD03",
		file: "src/inspect/live-server.ts",
		description: "allowedHosts compared case-sensitively",
		edits: [
			{
				find: "new Set([...hosts].map((host) => host.toLowerCase()))",
				replace: "new Set(hosts)",
			},
		],
		tests: ["test/inspect/live-mount.test.ts"],
	},
	{
		id: "BD04",
		file: "src/inspect/live-server.ts",
		description: "the redirect ignores the base path",
		edits: [
			{
				find: "location: pagePath,",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "location: `/${token}/`,",
			},
		],
		tests: ["test/inspect/live-mount.test.ts"],
	},
	{
		id: "BD05",
		file: "src/inspect/live-server.ts",
		description: "dot segments accepted in basePath",
		edits: [
			{
				find: ' || basePath.split("/").some((segment) => segment === "." || segment === "..")',
				replace: "",
			},
		],
		tests: ["test/inspect/live-mount.test.ts"],
	},
	{
		id: "BD06",
		file: "src/inspect/live-server.ts",
		description: "serveInspector loses its Host check",
		edits: [
			{
				find: '{ api: "serveInspector", allowedHosts }',
				replace: '{ api: "serveInspector", allowedHosts: ANY_HOST }',
			},
		],
		tests: ["test/inspect/live-server.test.ts"],
	},
	{
		id: "BD07",
		file: "src/inspect/live-server.ts",
		description: "handler close() leaves streams open",
		edits: [
			{
				find: '\t\t\t\tfor (const response of clients) response.end(endFrame("closed"));\n',
				replace: "",
			},
		],
		tests: ["test/inspect/live-mount.test.ts"],
	},
	{
		id: "BE01",
		file: "src/rpc/client.ts",
		description: "RPC client: a handled prompt resolves waiters even while a run is going on",
		edits: [
			{
				find: "if (this.runActive) return; // the run going on ends with the idle event the waiters want",
				replace: "// mutated",
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "BE02",
		file: "src/rpc/client.ts",
		description: "RPC client: a handled prompt never resolves waiters",
		edits: [
			{
				find: "for (const hook of [...this.handledHooks]) hook();",
				replace: "// mutated",
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "BE03",
		file: "src/cli/rpc-mode.ts",
		description: "settle --rpc: runFollows never sent after a command that sends a user message",
		edits: [
			{
				find: "return { disposition, runFollows: true };",
				replace: "return { disposition };",
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "BE04",
		file: "src/runtime/models-json.ts",
		description: "models.json refresh keeps the providers it applied before",
		edits: [
			{
				find: "\t\tclearModelsFileProviders(modelRuntime);\n",
				replace: "",
			},
		],
		tests: ["test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "BE05",
		file: "src/runtime/models-json.ts",
		description: "models.json refresh does not clear getError() once the file reads again",
		edits: [
			{
				find: "setModelsFileError(modelRuntime, undefined);",
				replace: "// mutated",
			},
		],
		tests: ["test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "BE06",
		file: "src/cli/unknown-options.ts",
		description: "unknown options refused early even when extensions may load",
		edits: [
			{
				find: "if (sources.may) return { errors: [] };",
				replace: "if (false) return { errors: [] };",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "BE07",
		file: "src/cli/unknown-options.ts",
		description: "an extensions/ folder does not count as extensions that may load",
		edits: [
			{
				find: 'if (existsSync(join(dir, "extensions"))) return { may: true',
				replace: "if (false) return { may: true",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "BE08",
		file: "src/cli/main.ts",
		description: "the pi-folder hint is not remembered (repeats every run)",
		edits: [
			{
				find: "if (host.piHint) piFolderHintShown(runtime.services.agentDir);",
				replace: "// mutated",
			},
		],
		tests: ["test/cli/pi-migration.test.ts"],
	},
	{
		id: "BE09",
		file: "src/listener-errors.ts",
		description: "setListenerErrorHandler does not install the route",
		edits: [
			{
				find: "handler = route;",
				replace: "handler = undefined;",
			},
		],
		tests: ["test/runtime/listener-errors.test.ts"],
	},
	{
		id: "BF01",
		file: "src/session/operation-actors.ts",
		description: "a prompt-operation machine provided per session again",
		edits: [
			{
				find: "const actor = createActor(sessionOperationMachine, options);",
				replace: "const actor = createActor(sessionOperationMachine.provide({}), options);",
			},
		],
		tests: ["test/lifetime/shared-machine.test.ts"],
	},
	{
		id: "BF02",
		file: "src/session/operation-actors.ts",
		description: "the session is not registered for its actor system",
		edits: [
			{
				find: "sessionsBySystem.set(actor.system, s);",
				replace: "sessionsBySystem.set({}, s);",
			},
		],
		tests: ["test/session/compaction.test.ts"],
	},
	{
		id: "BF03",
		file: "src/store/discovery.ts",
		description: "session info decodes the whole block, not up to the last newline",
		edits: [
			{
				find: "const cut = bytesRead === 0 ? end : buffer.subarray(0, end).lastIndexOf(10) + 1;",
				replace: "const cut = end;",
			},
		],
		tests: ["test/store/session-info.property.test.ts"],
	},
	{
		id: "BF04",
		file: "src/store/discovery.ts",
		description: "session info does not carry an unfinished line over to the next block",
		edits: [
			{
				find: "buffer.copyWithin(0, cut, end);",
				replace: "buffer.copyWithin(0, cut, cut);",
			},
		],
		tests: ["test/store/session-info.property.test.ts"],
	},
	{
		id: "BF05",
		file: "src/store/discovery.ts",
		description: "session info buffer never grows for a line longer than the block",
		edits: [
			{
				find: "if (kept === buffer.length) {",
				replace: "if (kept > buffer.length) {",
			},
		],
		tests: ["test/store/session-info.property.test.ts"],
	},
	{
		id: "BF06",
		file: "src/store/discovery.ts",
		description: "a header-less file keeps being read as a session",
		edits: [
			{
				find: 'for (const line of text.split("\\n")) if (!scanLine(scan, line)) return null;',
				replace: 'for (const line of text.split("\\n")) if (!scanLine(scan, line)) break;',
			},
		],
		tests: ["test/store/session-info.property.test.ts"],
	},
	{
		id: "BF07",
		file: "src/session/cache-warmer.ts",
		description: "cache warmer's leaf walk stops at the leaf",
		edits: [
			{
				find: "\t\tid = entry.parentId;",
				replace: "\t\tid = null;",
			},
		],
		tests: ["test/session/cache-warmer-leaf-walk.property.test.ts"],
	},
	{
		id: "BF08",
		file: "src/session/agent-session.ts",
		description: "the session gives the cache warmer no leaf (it reads the whole branch)",
		edits: [
			{
				find: "\t\tgetLeafId: () => sessionManager.getLeafId(),\n",
				replace: "",
			},
		],
		tests: ["test/session/cache-warmer-leaf-walk.property.test.ts"],
	},
	{
		id: "BG01",
		file: "src/runtime/runtime.ts",
		description: "a runtime machine provided per runtime again",
		edits: [
			{
				find: "createActor(AgentSessionRuntime.machine, {",
				replace:
					"createActor(runtimeMachine.provide({ actors: AgentSessionRuntime.machine.implementations.actors }), {",
			},
		],
		tests: ["test/lifetime/shared-runtime-machine.test.ts"],
	},
	{
		id: "BG02",
		file: "src/runtime/runtime.ts",
		description: "the runtime is not registered for its actor system",
		edits: [
			{
				find: "runtimesBySystem.set(this.actor.system, this);",
				replace: "",
			},
		],
		tests: ["test/lifetime/shared-runtime-machine.test.ts", "test/runtime/runtime.test.ts"],
	},
	{
		id: "BG03",
		file: "src/runtime/runtime.ts",
		description: "the invalidate step ignores the host's beforeInvalidate callback",
		edits: [
			{
				find: "runtimeOf(system).beforeInvalidate?.();",
				replace: "void system;",
			},
		],
		tests: ["test/runtime/runtime.test.ts", "test/runtime/session-replaced.test.ts"],
	},
	{
		id: "BG04",
		file: "src/runtime/runtime.ts",
		description: "a rollback does not rebind the old session",
		edits: [
			{
				find: 'if (reload === "installed" || (input.shutdownAnnounced && reload === "none")) await runtime.rebind?.(session);',
				replace: "",
			},
		],
		tests: ["test/runtime/runtime-graph.test.ts"],
	},
	{
		id: "BG05",
		file: "src/runtime/runtime.ts",
		description: "a quit teardown does not refuse input at once",
		edits: [
			{
				find: 'if (input.reason === "quit") setClosingMessage(runtime.current.session, SESSION_RUNTIME_DISPOSING);',
				replace: "",
			},
		],
		tests: ["test/runtime/disposing-session-input.test.ts"],
	},
	{
		id: "BG06",
		file: "src/runtime/runtime.ts",
		description: "a rolled-back replacement keeps its discarded session as the one in flight",
		edits: [
			{
				find: "\t\t\t\tconst created = input.created?.handle as Created | undefined;\n\t\t\t\truntime.inFlight = undefined;\n",
				replace: "\t\t\t\tconst created = input.created?.handle as Created | undefined;\n",
			},
		],
		tests: ["test/lifetime/runtime-cycles.test.ts"],
	},
	{
		id: "BH01",
		file: "src/agent/agent-loop.ts",
		description:
			"the stream loop races every event against one abort promise for the whole response (events kept alive)",
		edits: [
			{
				find: "\t\treturn new Promise((resolve, reject) => {\n\t\t\tthis.wakeOnAbort = resolve;\n\t\t\tnext.then(resolve, reject);\n\t\t});",
				replace:
					"\t\t// @ts-ignore\n\t\tthis.abortPromise ??= new Promise((resolve) => { this.wakeOnAbort = resolve; });\n\t\t// @ts-ignore\n\t\treturn Promise.race([next, this.abortPromise]);",
			},
		],
		tests: ["test/lifetime/stream-events.test.ts"],
	},
	{
		id: "BH02",
		file: "src/cli/termination.ts",
		description: "settle --json never waits for a slow reader",
		edits: [
			{
				find: "|| !stdout.writableNeedDrain) return undefined;",
				replace: "|| stdout.writableNeedDrain !== undefined) return undefined;",
			},
		],
		tests: ["test/cli/ci-pipelines.test.ts"],
	},
	{
		id: "BH03",
		file: "src/cli/print-mode.ts",
		description: "backpressure wait hooked to the public events instead of the agent's",
		edits: [
			{
				find: "return session.agent.subscribe(() => room());",
				replace: "return session.subscribe(() => room());",
			},
		],
		tests: ["test/cli/ci-pipelines.test.ts"],
	},
	{
		id: "BH04",
		file: "src/cli/host.ts",
		description: "an unusable session file exits 1 instead of 3",
		edits: [
			{
				find: "fileProblem ? EXIT_SESSION_FILE : EXIT_FAILURE",
				replace: "fileProblem ? EXIT_FAILURE : EXIT_FAILURE",
			},
		],
		tests: ["test/cli/ci-pipelines.test.ts", "test/bad-input/cli.test.ts"],
	},
	{
		id: "BH05",
		file: "src/cli/main.ts",
		description: "an extension's console.log reaches stdout in --json/-p/--rpc",
		edits: [
			{
				find: "const restoreStdout = keepsStdout ? keepStdoutForSettle() : undefined;",
				replace: "const restoreStdout = keepsStdout ? undefined : undefined;",
			},
		],
		tests: ["test/cli/ci-pipelines.test.ts"],
	},
	{
		id: "BH06",
		file: "src/settings/paths.ts",
		description: "the home folder is required even for a path without ~",
		edits: [
			{
				find: '\tif (!trimmed.startsWith("~")) return trimmed;\n\tconst base = home ?? requireHome(trimmed);',
				replace: '\tconst base = home ?? requireHome(trimmed);\n\tif (!trimmed.startsWith("~")) return trimmed;',
			},
		],
		tests: ["test/cli/ci-pipelines.test.ts"],
	},
	{
		id: "BH07",
		file: "src/store/writer.ts",
		description: "a session file that cannot be written is INTERNAL, not IO",
		edits: [
			{
				find: '\t\t\t\t"IO",\n\t\t\t\t`Cannot write session file',
				replace: '\t\t\t\t"INTERNAL",\n\t\t\t\t`Cannot write session file',
			},
		],
		tests: ["test/cli/ci-pipelines.test.ts"],
	},
	{
		id: "BH08",
		file: "src/cli/print-mode.ts",
		description: "a session file in use exits 1 instead of 5",
		edits: [
			{
				find: 'if (error?.code === "SESSION_LOCKED") return EXIT_SESSION_LOCKED;',
				replace: 'if (error?.code === "SESSION_LOCKED") return EXIT_FAILURE;',
			},
		],
		tests: ["test/cli/ci-pipelines.test.ts"],
	},
	{
		id: "BI01",
		file: "src/inspect/lifecycle-inspector.ts",
		description: "a taken transition's guard is not recorded",
		edits: [
			{
				find: "if (guard !== undefined) taken.guard = guard;",
				replace: "",
			},
		],
		tests: ["test/inspect/lifecycle-inspector.test.ts", "test/inspect/debugging-a-bad-run.test.ts"],
	},
	{
		id: "BI02",
		file: "src/inspect/lifecycle-inspector.ts",
		description: "a taken transition's rank is off by one",
		edits: [
			{
				find: "if (index >= 0) taken.priority = index + 1;",
				replace: "if (index >= 0) taken.priority = index;",
			},
		],
		tests: ["test/inspect/lifecycle-inspector.test.ts", "test/inspect/debugging-a-bad-run.test.ts"],
	},
	{
		id: "BI03",
		file: "src/inspect/trace.ts",
		description: "RUN_DONE's trace line drops the error",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'if (typeof o.errorMessage === "string") text += `: ${o.errorMessage}`;',
				replace: "",
			},
		],
		tests: ["test/inspect/trace.test.ts", "test/inspect/debugging-a-bad-run.test.ts"],
	},
	{
		id: "BI04",
		file: "src/inspect/trace-viewer.ts",
		description: "the offline viewer marks no edge taken",
		edits: [
			{
				find: "    taken = data.transitions[j];",
				replace: "    taken = null;",
			},
		],
		tests: ["test/inspect/debugging-a-bad-run.test.ts"],
	},
	{
		id: "BI05",
		file: "src/inspect/live-page.ts",
		description: "the live page marks no edge taken",
		edits: [
			{
				find: "  state.taken = rec.transition;",
				replace: "  state.taken = null;",
			},
		],
		tests: ["test/inspect/live-page.test.ts"],
	},
	{
		id: "BI06",
		file: "src/inspect/queue-history.ts",
		description: "a delivery is paired with the wrong queued message",
		edits: [
			{
				find: "const message = inQueue.find((m) => m.text === change.text) ?? inQueue[0];",
				replace: "const message = inQueue[inQueue.length - 1];",
			},
		],
		tests: ["test/inspect/debugging-a-bad-run.test.ts"],
	},
	{
		id: "BI07",
		file: "src/session/compaction-runner.ts",
		description: "a compaction with nothing to compact does not say why",
		edits: [
			{
				find: 'if (!preparation) return { ...notCompacted(), skipped: "nothing_to_compact" };',
				replace: "if (!preparation) return notCompacted();",
			},
		],
		tests: ["test/inspect/debugging-a-bad-run.test.ts"],
	},
	{
		id: "BI08",
		file: "src/inspect/trace-viewer.ts",
		description: "\u2191/\u2193 ignore the viewer's filter",
		edits: [
			{
				find: "    if (matching && !matched.has(j)) continue;",
				replace: "",
			},
		],
		tests: ["test/inspect/debugging-a-bad-run.test.ts"],
	},
	{
		id: "BJ01",
		file: "src/cli/print-mode.ts",
		description: "an unanswered prompt only fails when the last answer failed",
		edits: [
			{
				find: "if (unanswered !== undefined && !failed) {",
				replace: "if (unanswered !== undefined && failed) {",
			},
		],
		tests: ["test/cli/overflow-unanswered.test.ts"],
	},
	{
		id: "BJ02",
		file: "src/session/compaction-runner.ts",
		description: "only skipped overflow compactions leave the prompt unanswered, not failed ones",
		edits: [
			{
				find: "if (input.willRetry && !output.compacted) {",
				replace: "if (input.willRetry && output.skipped !== undefined) {",
			},
		],
		tests: ["test/cli/overflow-unanswered.test.ts"],
	},
	{
		id: "BJ03",
		file: "src/session/operation-actors.ts",
		description: "agent_settled never carries errorMessage",
		edits: [
			{
				find: "if (s.scratch.unanswered !== undefined) settled.errorMessage = s.scratch.unanswered;",
				replace: "",
			},
		],
		tests: ["test/session/compaction.test.ts", "test/cli/overflow-unanswered.test.ts"],
	},
	{
		id: "BJ04",
		file: "src/session/operation-actors.ts",
		description: "extensions get a bare agent_settled",
		edits: [
			{
				find: "await s.runner().emit({ ...settled });",
				replace: 'await s.runner().emit({ type: "agent_settled" });',
			},
		],
		tests: ["test/session/compaction.test.ts"],
	},
	{
		id: "BJ05",
		file: "src/compaction/texts.ts",
		description: "the unanswered-overflow text names the wrong cause",
		edits: [
			{
				after: "const cause =",
				find: 'why.skipped === "nothing_to_compact"',
				replace: 'why.skipped === "no_model"',
			},
		],
		tests: ["test/session/compaction.test.ts", "test/cli/overflow-unanswered.test.ts"],
	},
	{
		id: "BJ06",
		file: "src/cli/interactive-render.ts",
		description: "the chat shows no line for an unanswered prompt",
		edits: [
			{
				find: "if (event.errorMessage) this.line(s.red(oneLineText(event.errorMessage)));",
				replace: "",
			},
		],
		tests: ["test/cli/overflow-unanswered.test.ts"],
	},
	{
		id: "BK01",
		file: "src/inspect/live-page.ts",
		description: "the live detail pane never shows the selected event",
		edits: [
			{
				find: "    showDetail(recs[i]);",
				replace: "",
			},
		],
		tests: ["test/inspect/live-panels.test.ts"],
	},
	{
		id: "BK02",
		file: "src/inspect/live-page.ts",
		description: "the live queue panel says 'never delivered' for a message still pending",
		edits: [
			{
				find: "queueSummaryText(messages, true)",
				replace: "queueSummaryText(messages)",
			},
		],
		tests: ["test/inspect/live-panels.test.ts"],
	},
	{
		id: "BK03",
		file: "src/inspect/live-page.ts",
		description: "the live queue panel is not redrawn when the queue changes",
		edits: [
			{
				find: "  if (queueChanged) drawQueue();",
				replace: "",
			},
		],
		tests: ["test/inspect/live-panels.test.ts"],
	},
	{
		id: "BK04",
		file: "src/inspect/live-page.ts",
		description: "\u2191/\u2193 ignore the live filter",
		edits: [
			{
				find: "    if (wanted && !recs[j].copy) continue;",
				replace: "",
			},
		],
		tests: ["test/inspect/live-panels.test.ts"],
	},
	{
		id: "BK05",
		file: "src/inspect/live-page.ts",
		description: "lines arriving while filtering are never added to the matches",
		edits: [
			{
				find: "  if (wanted) copyIfMatching(rec);",
				replace: "",
			},
		],
		tests: ["test/inspect/live-panels.test.ts"],
	},
	{
		id: "BK06",
		file: "src/inspect/queue-history.ts",
		description: "the slim queue input loses why a run runs",
		edits: [
			{
				find: "...(runCause !== undefined ? { runCause } : {}),",
				replace: "",
			},
		],
		tests: ["test/inspect/live-panels.test.ts"],
	},
	{
		id: "BK07",
		file: "src/inspect/live-window.ts",
		description: "event?id= returns the next event",
		edits: [
			{
				find: "return recorder.events[id - recorder.dropped - 1];",
				replace: "return recorder.events[id - recorder.dropped];",
			},
		],
		tests: ["test/inspect/live-panels.test.ts"],
	},
	{
		id: "BK08",
		file: "src/inspect/live-server.ts",
		description: "the live stream times every event from itself (no origin)",
		edits: [
			{
				find: "origin: origin ?? event.at,",
				replace: "origin: event.at,",
			},
		],
		tests: ["test/inspect/live-panels.test.ts"],
	},
	{
		id: "BL01",
		file: "machines/prompt-operation.machine.ts",
		description: "awaitingInput never continues the operation for a queued steer()/followUp() (pi#5886)",
		edits: [
			{
				find: 'queueInputQueued: ({ event }) => event.type === "QUEUE_INPUT_FINISHED" && event.queued,',
				replace: 'queueInputQueued: ({ event }) => event.type === "QUEUE_INPUT_FINISHED" && false,',
			},
		],
		tests: ["test/pi-races/compaction-queue.test.ts"],
	},
	{
		id: "BL02",
		file: "machines/prompt-operation.machine.ts",
		description: "QUEUE_INPUT_STARTED does not count the call in flight",
		edits: [
			{
				find: "countQueueInput: assign(({ context }) => ({ busyPreflightsInFlight: context.busyPreflightsInFlight + 1 })),",
				replace:
					"countQueueInput: assign(({ context }) => ({ busyPreflightsInFlight: context.busyPreflightsInFlight + 0 })),",
			},
		],
		tests: ["test/pi-races/compaction-queue.test.ts"],
	},
	{
		id: "BL03",
		file: "src/session/prompt-pipeline.ts",
		description: "steer()/followUp() never report their input hooks started",
		edits: [
			{
				find: '\tsendWhileActive(s, { type: "QUEUE_INPUT_STARTED" });',
				replace: "",
			},
		],
		tests: ["test/pi-races/compaction-queue.test.ts"],
	},
	{
		id: "BL04",
		file: "src/session/prompt-pipeline.ts",
		description: "a queued steer()/followUp() reports queued: false",
		edits: [
			{
				find: '\t\tqueued = true;\n\t\treturn "queued";',
				replace: '\t\treturn "queued";',
			},
		],
		tests: ["test/pi-races/compaction-queue.test.ts"],
	},
	{
		id: "BL05",
		file: "machines/prompt-operation.machine.ts",
		description: "continuing for a queued steer()/followUp() leaves it counted (the next settle waits forever)",
		edits: [
			{
				find: 'actions: ["uncountQueueInput", { type: "setRunCause", params: { cause: "queued" } }],',
				replace: 'actions: [{ type: "setRunCause", params: { cause: "queued" } }],',
			},
		],
		tests: ["test/pi-races/compaction-queue.test.ts"],
	},
	{
		id: "BL06",
		file: "machines/prompt-operation.machine.ts",
		description: "a steer()/followUp() finishing outside awaitingInput is never uncounted",
		edits: [
			{
				find: 'QUEUE_INPUT_FINISHED: { actions: "uncountQueueInput" },',
				replace: "QUEUE_INPUT_FINISHED: {},",
			},
		],
		tests: ["test/pi-races/queue-races.property.test.ts", "test/machines/prompt-operation.model.test.ts"],
	},
	{
		id: "BM01",
		file: "src/cli/print-mode.ts",
		description: "settle -p prints the answer raw on a terminal",
		edits: [
			{
				find: "out.stdoutIsTerminal ? streamSafe(text) : text",
				replace: "text",
			},
		],
		tests: ["test/security/terminal-escape-injection.test.ts"],
	},
	{
		id: "BM02",
		file: "src/cli/main.ts",
		description: "stderr lines reach a terminal raw",
		edits: [
			{
				find: "process.stderr.isTTY ? streamSafe(text) : text",
				replace: "text",
			},
		],
		tests: ["test/security/terminal-escape-injection.test.ts"],
	},
	{
		id: "BM03",
		file: "src/agent/agent-loop.ts",
		description: "error text redacted without the request's key and headers",
		edits: [
			{
				find: "redactSecrets(final.errorMessage, requestSecrets(model, options))",
				replace: "redactSecrets(final.errorMessage, requestSecrets(undefined, undefined))",
			},
		],
		tests: ["test/security/secrets-in-output.test.ts"],
	},
	{
		id: "BM04",
		file: "src/llm/redact.ts",
		description: "only values over 64 chars count as secrets",
		edits: [
			{
				find: "if (trimmed.length >= MIN_SECRET_LENGTH) found.add(trimmed);",
				replace: "if (trimmed.length > 64) found.add(trimmed);",
			},
		],
		tests: ["test/security/secrets-in-output.test.ts"],
	},
	{
		id: "BM05",
		file: "src/compaction/request.ts",
		description: "summary error text not redacted",
		edits: [
			{
				find: "const redacted = redactSecrets(final.errorMessage, requestSecrets(model, streamOptions));",
				replace: "const redacted = final.errorMessage;",
			},
		],
		tests: ["test/security/secrets-in-output.test.ts"],
	},
	{
		id: "BM06",
		file: "src/settings/settings-manager.ts",
		description: "untrusted project's sessionDir applies again",
		edits: [
			{
				find: 'const PROJECT_DATA_SETTINGS_REQUIRING_TRUST = ["sessionDir"] as const;',
				replace: 'const PROJECT_DATA_SETTINGS_REQUIRING_TRUST = ["sessionDirs"] as const;',
			},
		],
		tests: ["test/security/untrusted-project-session-dir.test.ts"],
	},
	{
		id: "BM07",
		file: "src/cli/host.ts",
		description: "--approve does not reach the settings that pick the session folder",
		edits: [
			{
				find: "args.trustProject !== undefined ? { projectTrusted: args.trustProject } : {},",
				replace: "{},",
			},
		],
		tests: ["test/security/untrusted-project-session-dir.test.ts"],
	},
	{
		id: "BM08",
		file: "src/store/folders.ts",
		description: "session folders made world-readable",
		edits: [
			{
				find: "export const PRIVATE_FOLDER_MODE = 0o700;",
				replace: "export const PRIVATE_FOLDER_MODE = 0o755;",
			},
		],
		tests: ["test/security/session-files-other-users.test.ts"],
	},
	{
		id: "BM09",
		file: "src/cli/rpc-mode.ts",
		description: "RPC model objects keep resolved request headers",
		edits: [
			{
				find: "if (!model || model.headers === undefined) return model;",
				replace: "if (model) return model;",
			},
		],
		tests: ["test/security/secrets-in-rpc.test.ts"],
	},
	{
		id: "BN01",
		file: "src/session/operation-actors.ts",
		description: "a later run no longer clears the unanswered-overflow text",
		edits: [
			{
				find: "\t// This run may answer (a queued message after an unrecoverable overflow).\n\ts.scratch.unanswered = undefined;",
				replace: "",
			},
		],
		tests: ["test/session/compaction.test.ts"],
	},
	{
		id: "BN02",
		file: "src/rpc/client.ts",
		description: "compaction_start counted as a run: waiters hang on a handled prompt",
		edits: [
			{
				find: 'if (message.type === "agent_start") this.runActive = true;',
				replace: 'if (message.type === "agent_start" || message.type === "compaction_start") this.runActive = true;',
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "BN03",
		file: "src/cli/unknown-options.ts",
		description: "an untrusted project's extensions count as may-load",
		edits: [
			{
				find: "return trusted ? { may: true } : { may: false, untrustedProject: cwd };",
				replace: "return { may: true };",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "BN04",
		file: "src/cli/host.ts",
		description: "no refusal of broken settings before extensions load",
		edits: [
			{
				find: "if (settingsErrors.length > 0) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "BN05",
		file: "src/inspect/live-page.ts",
		description: "keys in the filter box act as page shortcuts again",
		edits: [
			{
				find: 'if (e.target instanceof Element && e.target.closest("input, textarea, select, [contenteditable]")) return;',
				replace: "",
			},
		],
		tests: ["test/inspect/live-panels.test.ts"],
	},
	{
		id: "BN06",
		file: "src/inspect/trace.ts",
		description: "QUEUE_CHANGED listed again beside queue_changed",
		edits: [
			{
				find: 'return !(event.kind === "event" && event.type === "QUEUE_CHANGED");',
				replace: "return true;",
			},
		],
		tests: ["test/inspect/queue-trace.test.ts", "test/inspect/live-panels.test.ts"],
	},
	{
		id: "BN07",
		file: "src/runtime/models-json.ts",
		description: "refresh leaves the file's config on top of the extension's",
		edits: [
			{
				find: "\t\treapplyModelsFileOrder(modelRuntime);\n",
				replace: "",
			},
		],
		tests: ["test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "BN08",
		file: "src/session/model-registry-view.ts",
		description: "reapply forgets models.json providers",
		edits: [
			{
				find: "\tfor (const [name, config] of state.fileConfigs) {\n\t\tconst changes = state.fileChanges.get(name);\n\t\tif (changes) applyBuiltInChanges(runtime, state, name, config, changes);\n\t\telse applyProviderConfig(runtime, state, name, config, false);\n\t}\n",
				replace: "",
			},
		],
		tests: ["test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "BO01",
		file: "src/agent/agent-loop.ts",
		description: "never give up on a tool that ignores abort",
		edits: [
			{
				find: "timer = timers.setTimeout(() => resolve(ABANDONED), config.toolAbortGraceMs ?? DEFAULT_TOOL_ABORT_GRACE_MS);",
				replace: "timer = undefined;",
			},
		],
		tests: ["test/pi-races/liveness.test.ts", "test/pi-races/abort-unwedges.property.test.ts"],
	},
	{
		id: "BO02",
		file: "src/agent/agent-loop.ts",
		description: "await result() without the abort race",
		edits: [
			{
				find: "const result = signal ? await this.nextOrAbort(signal, resultPromise) : await resultPromise;",
				replace: "const result = await resultPromise;",
			},
		],
		tests: ["test/pi-races/liveness.test.ts"],
	},
	{
		id: "BO03",
		file: "src/session/stream-idle.ts",
		description: "stream events do not re-arm the idle timer",
		edits: [
			{
				find: "partial = event.partial;\n\t\t\t\tarm();",
				replace: "partial = event.partial;",
			},
		],
		tests: ["test/pi-races/liveness.test.ts"],
	},
	{
		id: "BO04",
		file: "src/store/session-manager.ts",
		description: "deferred entries are written at once (resume rewrites the file)",
		edits: [
			{
				find: "if (this.deferringWrite) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/pi-races/persistence.test.ts"],
	},
	{
		id: "BO05",
		file: "src/runtime/runtime.ts",
		description: "teardown does not wait for the aborted run",
		edits: [
			{
				find: "await abortForTeardown(runtime.current.session);",
				replace: "void abortForTeardown(runtime.current.session);",
			},
		],
		tests: ["test/pi-races/switching.test.ts", "test/runtime/shutdown-timeout.test.ts"],
	},
	{
		id: "BO06",
		file: "src/session/provider-stream.ts",
		description: "streamIdleTimeoutMs ignored",
		edits: [
			{
				find: "? withRefusalDetails(streamWithIdleTimeout(base, idleMs, timers), keySource, rereadKey, providerModelIds)",
				replace: "? refusing",
			},
		],
		tests: ["test/pi-races/liveness.test.ts"],
	},
	{
		id: "BP01",
		file: "src/rpc/client.ts",
		description: "a refused prompt no longer releases the idle waiters",
		edits: [
			{
				find: 'if (pending.command === "prompt") this.releaseWaiters();',
				replace: 'if (pending.command === "prompt-refused") this.releaseWaiters();',
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "BP02",
		file: "src/session/compaction-runner.ts",
		description: "the unanswered request is omitted only when nothing is queued",
		edits: [
			{
				find: "omitUnansweredRequest(s);",
				replace: "if (!output.continue) omitUnansweredRequest(s);",
			},
		],
		tests: ["test/session/compaction.test.ts"],
	},
	{
		id: "BP03",
		file: "src/session/compaction-runner.ts",
		description: "the omission stops at the request's own tool-call turn",
		edits: [
			{
				find: 'if (message.role === "assistant" && message.stopReason !== "toolUse") break;',
				replace: 'if (message.role === "assistant") break;',
			},
		],
		tests: ["test/session/compaction.test.ts"],
	},
	{
		id: "BP04",
		file: "src/session/operation-actors.ts",
		description: "after the omission emptied the context, the queued follow-up is not run",
		edits: [
			{
				find: "(afterUnanswered && s.agent.hasQueuedMessages())",
				replace: "(false && s.agent.hasQueuedMessages())",
			},
		],
		tests: ["test/session/compaction.test.ts"],
	},
	{
		id: "BP05",
		file: "src/agent/agent.ts",
		description: "continue() on an empty transcript does not run the queued messages",
		edits: [
			{
				find: 'if (!last || last.role === "assistant") {',
				replace: 'if (last?.role === "assistant") {',
			},
		],
		tests: ["test/session/compaction.test.ts"],
	},
	{
		id: "BP06",
		file: "src/llm/failures.ts",
		description: "an HTTP 401 is not a refused key",
		edits: [
			{
				find: "(status === 401 || status === 403 ||",
				replace: "(status === 403 ||",
			},
		],
		tests: ["test/cli/exit-codes-typed.test.ts"],
	},
	{
		id: "BP07",
		file: "src/agent/agent-loop.ts",
		description: "provider failures are not typed",
		edits: [
			{
				find: 'if (final.stopReason === "error") noteFailure(final, providerFailure(final));',
				replace: "",
			},
		],
		tests: ["test/cli/exit-codes-typed.test.ts"],
	},
	{
		id: "BP08",
		file: "src/agent/agent.ts",
		description: "the error a listener threw to end a run is not kept typed",
		edits: [
			{
				find: 'if (closing.failure.stopReason === "error") noteFailure(closing.failure, normalizeError(error));',
				replace: "",
			},
		],
		tests: ["test/cli/ci-pipelines.test.ts"],
	},
	{
		id: "BP09",
		file: "src/session/agent-session.ts",
		description: "dispose() no longer returns the undelivered next-turn messages",
		edits: [
			{
				find: "const messages = this.queues.nextTurnMessages();\n\t\tconst wait = this.shutdownWait;",
				replace: "const messages: CustomMessage[] = [];\n\t\tconst wait = this.shutdownWait;",
			},
		],
		tests: ["test/session/next-turn-dispose.test.ts"],
	},
	{
		id: "BQ01",
		file: "src/tools/shell.ts",
		description: "killProcessTree no longer sweeps the session the detached child leads",
		edits: [
			{
				find: "\tfor (const member of treeMembersSync(pid, groupSignalled) ?? []) signalQuietly(member, signal);\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/bash-processes.test.ts"],
	},
	{
		id: "BQ02",
		file: "src/tools/shell.ts",
		description: "a process counts as the command's only by its process group, not its session",
		edits: [
			{
				find: "\treturn Number(pgrp) === leader || Number(session) === leader;",
				replace: "\treturn Number(pgrp) === leader;",
			},
			{
				find: "\tif (outsideGroup) return Number(pgrp) !== leader && Number(session) === leader;",
				replace: "\tif (outsideGroup) return false;",
			},
		],
		tests: ["test/pi-races/bash-processes.test.ts"],
	},
	{
		id: "BQ03",
		file: "src/session/convert-to-llm.ts",
		description: "pairToolResults passes orphaned tool results on to the request",
		edits: [
			{
				find: "\t\treturn orphaned ? withoutOrphanedToolResults(llm) : llm;",
				replace: "\t\treturn llm;",
			},
		],
		tests: ["test/pi-races/compaction-chain.test.ts"],
	},
	{
		id: "BQ04",
		file: "src/session/agent-session.ts",
		description: "requests are converted without the tool-result pairing",
		edits: [
			{
				find: "capRequestImages(pairToolResults(blockImagesAwareConverter(() => settingsManager.getBlockImages()))),",
				replace: "capRequestImages(blockImagesAwareConverter(() => settingsManager.getBlockImages())),",
			},
		],
		tests: ["test/pi-races/compaction-chain.test.ts"],
	},
	{
		id: "BQ05",
		file: "src/session/agent-session.ts",
		description: "ctx.isIdle() is true during a compaction again",
		edits: [
			{
				find: "\t\t\tisIdle: () => this.isIdle,",
				replace: "\t\t\tisIdle: () => !this.isStreaming,",
			},
		],
		tests: ["test/pi-races/idle-races.test.ts"],
	},
	{
		id: "BR01",
		file: "src/inspect/trace.ts",
		description: "the time loses its guaranteed trailing space: a 9+ character time runs into the kind",
		edits: [
			{
				find: "ms `.padEnd(9);",
				replace: "ms`.padEnd(9);",
			},
		],
		tests: ["test/inspect/trace.test.ts"],
	},
	{
		id: "BR02",
		file: "src/llm/model-runtime.ts",
		description: "NO_MODEL no longer names auth.json for the default runtime",
		edits: [
			{
				find: "or in <agentDir>/auth.json. With a model runtime of your own",
				replace: "With a model runtime of your own",
			},
		],
		tests: ["test/runtime/provider-hint.test.ts"],
	},
	{
		id: "BR03",
		file: "src/runtime/sdk.ts",
		description: "findModel with no provider drops the pi-ai install hint",
		edits: [
			{
				find: ": NO_PROVIDERS_HINT}",
				replace: ': "none"}',
			},
		],
		tests: ["test/runtime/provider-hint.test.ts"],
	},
	{
		id: "BR04",
		file: "src/llm/provider-env.ts",
		description: "the install hints lose the exact peer version",
		edits: [
			{
				find: 'export const PI_AI_PEER_VERSION = "0.73.1";',
				replace: 'export const PI_AI_PEER_VERSION = "latest";',
			},
		],
		tests: ["test/runtime/provider-hint.test.ts", "test/runtime/pi-ai-install-hint.test.ts"],
	},
	{
		id: "BR05",
		file: "src/llm/faux.ts",
		description:
			"getModel() without an id is typed Model | undefined again (README example fails under exactOptionalPropertyTypes)",
		edits: [
			{
				find: "getModel(): Model;",
				replace: "getModel(): Model | undefined;",
			},
		],
		tests: ["test/package/pack.test.ts"],
	},
	{
		id: "BS01",
		file: "src/store/writer.ts",
		description: "a new session file is created with the umask's default mode",
		edits: [
			{
				find: 'fd = openSync(path, "ax", PRIVATE_FILE_MODE);',
				replace: 'fd = openSync(path, "ax");',
			},
		],
		tests: ["test/security/private-files.test.ts"],
	},
	{
		id: "BS02",
		file: "src/store/folders.ts",
		description: "a file written over gets 0600 instead of keeping its mode",
		edits: [
			{
				find: "return statSync(path).mode & 0o7777;",
				replace: "return PRIVATE_FILE_MODE;",
			},
		],
		tests: ["test/security/private-files.test.ts"],
	},
	{
		id: "BS03",
		file: "src/store/session-manager.ts",
		description: "a migration's rewrite leaves the mode to the umask (0660 becomes 0640)",
		edits: [
			{
				find: "chmodSync(temp, mode); // exact: the umask only narrows, and a leftover temp file keeps its own",
				replace: "// no chmod",
			},
		],
		tests: ["test/security/private-files.test.ts"],
	},
	{
		id: "BS04",
		file: "src/tools/output-accumulator.ts",
		description: "spilled bash output is created with the umask's default mode",
		edits: [
			{
				find: "createWriteStream(this.tempPath, { mode: PRIVATE_FILE_MODE })",
				replace: "createWriteStream(this.tempPath)",
			},
		],
		tests: ["test/security/private-files.test.ts"],
	},
	{
		id: "BS05",
		file: "src/inspect/trace-viewer.ts",
		description: "the trace page has no Content-Security-Policy",
		edits: [
			{
				find: '<meta http-equiv="Content-Security-Policy"',
				replace: '<meta http-equiv="X-No-Policy"',
			},
		],
		tests: ["test/security/trace-page-csp.test.ts"],
	},
	{
		id: "BS06",
		file: "src/inspect/trace-viewer.ts",
		description: "the diagram's stylesheet is not allowed by the policy",
		edits: [
			{
				find: "const SVG_STYLE_HASH = sha256(SVG_STYLE);",
				replace: 'const SVG_STYLE_HASH = sha256("");',
			},
		],
		tests: ["test/security/trace-page-csp.test.ts"],
	},
	{
		id: "BS07",
		file: "src/rpc/jsonl.ts",
		description: "C1 controls stay raw in --json / RPC lines",
		edits: [
			{
				find: "const UNSAFE_IN_JSON_LINES = /[\\u0080-\\u009f\\u2028\\u2029]/g;",
				replace: "const UNSAFE_IN_JSON_LINES = /[\\u2028\\u2029]/g;",
			},
		],
		tests: ["test/security/json-output-controls.test.ts"],
	},
	{
		id: "BS08",
		file: "src/llm/redact.ts",
		description: "the base64 core keeps the group holding bytes before the key (matches only at offset 0)",
		edits: [
			{
				find: "const core = encoded.slice(offset === 0 ? 0 : 4,",
				replace: "const core = encoded.slice(0,",
			},
		],
		tests: ["test/security/encoded-secrets.test.ts"],
	},
	{
		id: "BT01",
		file: "src/session/agent-session.ts",
		description: "the thinking-level entry of a resumed file is written at once (rewrites pi's file on resume)",
		edits: [
			{
				find: "sessionManager.appendThinkingLevelChange(thinkingLevel, { deferWrite: true });",
				replace: "sessionManager.appendThinkingLevelChange(thinkingLevel);",
			},
		],
		tests: ["test/pi-races/pi-peer.test.ts"],
	},
	{
		id: "BT02",
		file: "src/session/agent-session.ts",
		description: "a replacement no longer aborts and settles the old run first",
		edits: [
			{
				find: 'if (session.agent.state.isStreaming || session.isRetrying || session.lifecycle.startsWith("compacting")) {',
				replace: "if (false) {",
			},
		],
		tests: ["test/pi-races/pi-peer.test.ts", "test/runtime/shutdown-timeout.test.ts"],
	},
	{
		id: "BU01",
		file: "src/session/compaction-runner.ts",
		description:
			"the unanswered request leaves the context only when a follow-up is queued (the next prompt re-sends it)",
		edits: [
			{
				find: "omitUnansweredRequest(s);",
				replace: "if (output.continue) omitUnansweredRequest(s);",
			},
		],
		tests: ["test/session/compaction.test.ts"],
	},
	{
		id: "BU02",
		file: "src/session/compaction-runner.ts",
		description: "a cancelled overflow compaction keeps the unanswered request",
		edits: [
			{
				find: "if (input.willRetry && !output.compacted) {",
				replace: "if (input.willRetry && !output.compacted && !output.cancelled) {",
			},
		],
		tests: ["test/session/recovery-regressions.test.ts"],
	},
	{
		id: "BU03",
		file: "src/compaction/texts.ts",
		description: "agent_settled still tells the user to start a new session",
		edits: [
			{
				find: 'const LEFT_OUT = "The prompt is left out of the context (the session history keeps it)";',
				replace: 'const LEFT_OUT = "Shorten the prompt or what it attaches, start a new session";',
			},
		],
		tests: ["test/session/compaction.test.ts"],
	},
	{
		id: "BU04",
		file: "machines/prompt-operation.machine.ts",
		description: "an aborted answer to a retried request counts as a retry success (pi 0.73.1)",
		edits: [
			{
				find: 'event.stopReason !== "aborted" &&',
				replace: "",
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/session/retry.test.ts"],
	},
	{
		id: "BU05",
		file: "machines/prompt-operation.machine.ts",
		description: "the cancelled retry's attempt counter is not reset (a second auto_retry_end at settle)",
		edits: [
			{
				find: '"announceRetryCancelled", "resetRetry", "noteAssistantMessageEnd"',
				replace: '"announceRetryCancelled", "noteAssistantMessageEnd"',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/session/retry.test.ts"],
	},
	{
		id: "BU06",
		file: "machines/prompt-operation.machine.ts",
		description: "a first retry aborted mid-answer is cancelled only after agent_end (order differs from pi)",
		edits: [
			{
				find: 'context.retryAttempt > 0 && event.type === "ASSISTANT_MESSAGE_END"',
				replace: 'context.retryAttempt > 1 && event.type === "ASSISTANT_MESSAGE_END"',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/session/retry.test.ts"],
	},
	{
		id: "BV01",
		file: "src/export/render.ts",
		description: "export page: the CSP allows any inline style again",
		edits: [
			{
				find: "const STYLE_HASH = sha256(PAGE_CSS);",
				replace: 'const STYLE_HASH = "unsafe-inline";',
			},
		],
		tests: ["test/security/export-page-csp.test.ts"],
	},
	{
		id: "BV02",
		file: "src/inspect/live-page.ts",
		description: "live inspector page: the CSP does not allow the diagrams' stylesheet",
		edits: [
			{
				find: 'import { SVG_STYLE } from "./svg.js";',
				replace: 'const SVG_STYLE = "";',
			},
		],
		tests: ["test/security/inspector-page-csp.test.ts"],
	},
	{
		id: "BV03",
		file: "src/inspect/live-server.ts",
		description:
			"live inspector: a runtime's (tabbed) page is served with the one-machine page's style hash in its CSP header",
		edits: [
			{
				find: "livePageCsp(diagrams.length > 1)",
				replace: "livePageCsp(false)",
			},
		],
		tests: ["test/security/inspector-page-csp.test.ts"],
	},
	{
		id: "BV04",
		file: "src/session/agent-session.ts",
		description: "ctx.ui with no host UI: the reporting UI is not installed (notifications and dialogs vanish)",
		edits: [
			{
				find: "\t\trunner.setUIContext(this.defaultUI);\n",
				replace: "",
			},
		],
		tests: ["test/extensions/ui-without-host-ui.test.ts"],
	},
	{
		id: "BV05",
		file: "src/session/agent-session.ts",
		description: "extension_dialog: confirm's answer reported as undefined instead of false",
		edits: [
			{
				find: 'answer: kind === "confirm" ? false : undefined,',
				replace: "answer: undefined,",
			},
		],
		tests: ["test/extensions/ui-without-host-ui.test.ts"],
	},
	{
		id: "BV06",
		file: "src/extensions/ui.ts",
		description: "headless UI: dialogs are not reported to onDialog",
		edits: [
			{
				find: "options.onDialog?.(request, extensionPath);",
				replace: "",
			},
		],
		tests: ["test/extensions/ui-without-host-ui.test.ts"],
	},
	{
		id: "BV07",
		file: "src/inspect/subscription-set.ts",
		description: "inspection handle: calling it does not stop the stream",
		edits: [
			{
				find: "return Object.assign(handle, { unsubscribe: handle });",
				replace: "return Object.assign(() => {}, { unsubscribe: handle });",
			},
		],
		tests: ["test/inspect/inspect-handle-callable.test.ts"],
	},
	{
		id: "BW01",
		file: "machines/prompt-operation.machine.ts",
		description: "settling no longer holds a ctx.compact(): one from agent_settled is never answered",
		edits: [
			{
				find: 'COMPACT_WHEN_SETTLED: [\n\t\t\t\t\trefuseOtherThanWaiting,\n\t\t\t\t\t{ actions: { type: "deferCompaction", params: { cancelOnAbort: false } } },\n\t\t\t\t],',
				replace: "",
			},
		],
		tests: ["test/pi-races/extension-order.test.ts"],
	},
	{
		id: "BW02",
		file: "machines/prompt-operation.machine.ts",
		description: "idle never starts a deferred compaction",
		edits: [
			{
				find: '{ guard: "canTakeDeferredCompaction", target: "compacting", actions: "takeDeferredCompaction" },',
				replace: "",
			},
		],
		tests: ["test/pi-races/extension-order.test.ts"],
	},
	{
		id: "BW03",
		file: "machines/prompt-operation.machine.ts",
		description: "a deferred compaction cancelled by abortCompaction() is not reported as cancelled",
		edits: [
			{
				after: "cancelDeferredCompaction: enqueueActions(",
				find: "requestId, cancelled: true });",
				replace: "requestId });",
			},
		],
		tests: ["test/pi-races/extension-order.test.ts"],
	},
	{
		id: "BW04",
		file: "machines/prompt-operation.machine.ts",
		description: "compact() during the agent_settled dispatch is not held by settling (never answered)",
		edits: [
			{
				find: 'COMPACT: [refuseOtherThanWaiting, { actions: { type: "deferCompaction", params: { cancelOnAbort: false } } }],',
				replace: "",
			},
		],
		tests: ["test/session/compact-while-streaming.property.test.ts", "test/pi-races/extension-order.test.ts"],
	},
	{
		id: "BW05",
		file: "src/session/agent-session.ts",
		description: "a cancelled deferred compaction resolves as if it had compacted",
		edits: [
			{
				find: 'if (event.cancelled) pending.reject(new SettleError("ABORTED", COMPACTION_CANCELLED));',
				replace: "if (event.cancelled) pending.resolve({} as CompactionResult<unknown>);",
			},
		],
		tests: ["test/pi-races/extension-order.test.ts"],
	},
	{
		id: "BW06",
		file: "src/cli/rpc-mode.ts",
		description: "an RPC abort no longer holds the prompts after it",
		edits: [
			{
				find: 'if (command.type === "abort") aborting = task;',
				replace: "",
			},
		],
		tests: ["test/pi-races/cli-modes.test.ts"],
	},
	{
		id: "BW07",
		file: "src/cli/rpc-mode.ts",
		description: "the hold after an abort applies to steer instead of prompt",
		edits: [
			{
				find: 'if (command.type === "prompt") waits.push(aborting);',
				replace: 'if (command.type === "steer") waits.push(aborting);',
			},
		],
		tests: ["test/pi-races/cli-modes.test.ts"],
	},
	{
		id: "BX01",
		file: "src/store/writer.ts",
		description: "the append check ignores the file's length (an editor's in-place rewrite goes unnoticed)",
		edits: [
			{
				find: "if (held.nlink > 0 && held.size === this.size) return undefined;",
				replace: "if (held.nlink > 0) return undefined;",
			},
		],
		tests: ["test/bad-input/faults.test.ts"],
	},
	{
		id: "BX02",
		file: "src/store/writer.ts",
		description: "the append check ignores whether the file is still linked (a deleted or replaced file is written to)",
		edits: [
			{
				find: "if (held.nlink > 0 && held.size === this.size) return undefined;",
				replace: "if (held.size === this.size) return undefined;",
			},
		],
		tests: ["test/bad-input/faults.test.ts"],
	},
	{
		id: "BX03",
		file: "src/store/writer.ts",
		description: "a new session file is opened without O_APPEND (a write after a cut-back one leaves a hole)",
		edits: [
			{
				find: 'fd = openSync(path, "ax", PRIVATE_FILE_MODE);',
				replace: 'fd = openSync(path, "wx", PRIVATE_FILE_MODE);',
			},
		],
		tests: ["test/bad-input/faults-cli.test.ts"],
	},
	{
		id: "BX04",
		file: "src/lazy-deps.ts",
		description:
			"no SIGXFSZ listener beside signal-exit's: the process dies at the first write past the file size limit",
		edits: [
			{
				find: "keepFileSizeSignalHarmless();",
				replace: "void 0;",
			},
		],
		tests: ["test/bad-input/faults-cli.test.ts"],
	},
	{
		id: "BX05",
		file: "src/session/transcript.ts",
		description: "a message the log refused stays in the live transcript",
		edits: [
			{
				find: "if (!failure && messages[messages.length - 1] === message) messages.pop();",
				replace: "if (false && messages[messages.length - 1] === message) messages.pop();",
			},
		],
		tests: ["test/bad-input/faults-cli.test.ts"],
	},
	{
		id: "BX06",
		file: "src/session/transcript.ts",
		description: "the failure message that ends the run is dropped when it cannot be saved either",
		edits: [
			{
				find: 'const failure = message.role === "assistant" && message.stopReason === "error";',
				replace: "const failure = false;",
			},
		],
		tests: ["test/bad-input/faults.test.ts"],
	},
	{
		id: "BX07",
		file: "src/store/folders.ts",
		description: "a device target is taken for a regular file (renamed over)",
		edits: [
			{
				find: "return stat !== undefined && !stat.isFile() && !stat.isDirectory();",
				replace: "return false;",
			},
		],
		tests: ["test/bad-input/faults-cli.test.ts"],
	},
	{
		id: "BX08",
		file: "src/tools/fs-errors.ts",
		description: "EMFILE is not recognised: Node's bare text",
		edits: [
			{
				find: 'if (code !== "EMFILE" && code !== "ENFILE") return undefined;',
				replace: 'if (code !== "ENFILE") return undefined;',
			},
		],
		tests: ["test/bad-input/faults-cli.test.ts"],
	},
	{
		id: "BY01",
		file: "src/llm/failures.ts",
		description: "a failure's code follows a replacement that is no longer a failure",
		edits: [
			{
				find: 'if (!failure || replacement.stopReason !== "error" || failures.has(replacement)) return;',
				replace: "if (!failure || failures.has(replacement)) return;",
			},
		],
		tests: ["test/session/failure-codes.test.ts"],
	},
	{
		id: "BY02",
		file: "src/llm/failures.ts",
		description: "a reworded failure keeps the original error text",
		edits: [
			{
				find: "text === failure.message\n\t\t\t? failure",
				replace: "true\n\t\t\t? failure",
			},
		],
		tests: ["test/session/failure-codes.test.ts"],
	},
	{
		id: "BY03",
		file: "src/extensions/runner.ts",
		description: "extension message_end replacements drop the failure code",
		edits: [
			{
				find: "carryFailure(previous, current);",
				replace: "",
			},
		],
		tests: ["test/session/failure-codes.test.ts", "test/cli/exit-codes-typed.test.ts"],
	},
	{
		id: "BY04",
		file: "src/cli/interactive-render.ts",
		description: "a cancelled retry prints as a red retry failure again",
		edits: [
			{
				find: "else if (event.finalError === RETRY_CANCELLED) {",
				replace: 'else if (event.finalError === "not " + RETRY_CANCELLED) {',
			},
		],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "BY05",
		file: "src/store/session-manager.ts",
		description: "create(cwd, { id }) ignores the options object",
		edits: [
			{
				find: "const manager = new SessionManager(cwd, sessionDir ?? getDefaultSessionDirPath(cwd), true);\n\t\tmanager.startNewSession(options);",
				replace:
					"const manager = new SessionManager(cwd, sessionDir ?? getDefaultSessionDirPath(cwd), true);\n\t\tmanager.startNewSession(positionalOptions);",
			},
		],
		tests: ["test/store/factory-options.test.ts"],
	},
	{
		id: "BY06",
		file: "src/extensions/runner.ts",
		description: "every extension gets the shared ui again (events name no extension)",
		edits: [
			{
				find: "return uiForExtension(runner.uiContext, extensionPath);",
				replace: "return runner.uiContext;",
			},
		],
		tests: ["test/extensions/ui-without-host-ui.test.ts"],
	},
	{
		id: "BY07",
		file: "src/store/lock.ts",
		description: "release/exit removes a lock directory another writer took over",
		edits: [
			{
				find: "if (made && readOwner(String(path))?.token !== owner.token) return;",
				replace: "",
			},
		],
		tests: ["test/store/lock-lost.test.ts", "test/cli/exit-codes-typed.test.ts"],
	},
	{
		id: "BY08",
		file: "src/store/lock.ts",
		description: "a taken-over lock is noticed only by the refresh timer",
		edits: [
			{
				find: "if (fs.fstatSync(held).nlink === 0) compromised = lostLockError(lockPath);",
				replace: "if (fs.fstatSync(held).nlink < 0) compromised = lostLockError(lockPath);",
			},
		],
		tests: ["test/store/lock-lost.test.ts", "test/cli/exit-codes-typed.test.ts"],
	},
	{
		id: "BX09",
		file: "src/store/writer.ts",
		description: "a file deleted with its folder is reported as a lost lock (the lock folder went with it)",
		edits: [
			{
				find: 'if (changed?.details?.reason === "deleted") throw changed;',
				replace: "",
			},
		],
		tests: ["test/bad-input/faults.test.ts"],
	},
	{
		id: "BZ01",
		file: "src/runtime/sdk.ts",
		description: "a promptless branch's model_change is not restored",
		edits: [
			{
				find: "hasExistingSession || recordsModel",
				replace: "hasExistingSession",
			},
		],
		tests: ["test/pi-races/resume.test.ts"],
	},
	{
		id: "BZ02",
		file: "src/runtime/sdk.ts",
		description: "a promptless branch's thinking level is not restored",
		edits: [
			{
				find: "(hasExistingSession || recordsThinking)",
				replace: "hasExistingSession",
			},
		],
		tests: ["test/pi-races/resume.test.ts"],
	},
	{
		id: "BZ03",
		file: "src/runtime/sdk.ts",
		description: "a session without a thinking entry resumes at off, not the settings default (pi#1225)",
		edits: [
			{
				find: "recordsThinking ? existing.thinkingLevel : (settingsLevel ?? DEFAULT_THINKING_LEVEL)",
				replace: "existing.thinkingLevel",
			},
		],
		tests: ["test/pi-races/resume.test.ts"],
	},
	{
		id: "BZ04",
		file: "src/session/compaction-runner.ts",
		description: "a saved manual compaction does not mark sends from session_compact",
		edits: [
			{
				find: 'if (reason === "manual") s.scratch.manualCompactionSaved = true;',
				replace: "",
			},
		],
		tests: ["test/pi-races/settlement.test.ts"],
	},
	{
		id: "BZ05",
		file: "src/session/agent-session.ts",
		description: "a triggered custom message from session_compact is not deferred",
		edits: [
			{
				find: '(payload.kind === "custom" || (payload.kind === "text" && payload.source === "extension"))',
				replace: '(payload.kind === "text" && payload.source === "extension")',
			},
		],
		tests: ["test/pi-races/settlement.test.ts"],
	},
	{
		id: "BZ06",
		file: "machines/prompt-operation.machine.ts",
		description: "the deferral guard checks the wrong compaction reason",
		edits: [
			{
				find: 'event.request.whenIdle === true && context.compaction?.reason === "manual"',
				replace: 'event.request.whenIdle === true && context.compaction?.reason === "threshold"',
			},
		],
		tests: ["test/pi-races/settlement.test.ts"],
	},
	{
		id: "BZ07",
		file: "src/store/session-manager.ts",
		description: "list(cwd, { onProgress }): the object's onProgress is ignored",
		edits: [
			{
				find: "const onProgress = object ? object.onProgress : positionalOnProgress;",
				replace: "const onProgress = positionalOnProgress;",
			},
		],
		tests: ["test/store/factory-options.test.ts"],
	},
	{
		id: "BZ08",
		file: "src/store/session-manager.ts",
		description: "listAll({ sessionDir }): the object's sessionDir is ignored",
		edits: [
			{
				find: 'const sessionDir = object ? object.sessionDir : typeof first === "string" ? first : undefined;',
				replace: 'const sessionDir = typeof first === "string" ? first : undefined;',
			},
		],
		tests: ["test/store/factory-options.test.ts"],
	},
	{
		id: "BZ09",
		file: "src/store/session-manager.ts",
		description: "inMemory({ entries }): the object's entries are ignored",
		edits: [
			{
				find: "const entries = object ? object.entries : positionalEntries;",
				replace: "const entries = positionalEntries;",
			},
		],
		tests: ["test/store/factory-options.test.ts"],
	},
	{
		id: "BZ10",
		file: "src/store/session-manager.ts",
		description: "inMemory(cwd, { entries }): entries in the positional options object silently dropped",
		edits: [
			{
				find: '("cwd" in positionalOptions || "entries" in positionalOptions)',
				replace: '"cwd" in positionalOptions',
			},
		],
		tests: ["test/store/factory-options.test.ts"],
	},
	{
		id: "BZ11",
		file: "src/extensions/runner.ts",
		description: "withSession gets the shared context, not the extension's (its ui names nobody)",
		edits: [
			{
				find: "return callback(runner ? runner.forExtension(replaced, extensionPath) : replaced);",
				replace: "return callback(replaced);",
			},
		],
		tests: ["test/runtime/with-session-ui.test.ts"],
	},
	{
		id: "BZ12",
		file: "src/extensions/runner.ts",
		description: "an extension's ctx.fork passes withSession on unnamed",
		edits: [
			{
				find: "if (fork) copy.fork = (entryId, options) => fork(entryId, named(options));",
				replace: "",
			},
		],
		tests: ["test/runtime/with-session-ui.test.ts"],
	},
	{
		id: "BZ13",
		file: "src/cli/print-mode.ts",
		description: "settle -p: a folder's index.ts is named without its folder",
		edits: [
			{
				find: "return /^index\\.[cm]?[jt]s$/.test(file) ?",
				replace: "return false ?",
			},
		],
		tests: ["test/cli/extension-notify-print.test.ts"],
	},
	{
		id: "BZ14",
		description:
			"the session's own UI drops notifications and dialogs instead of making them events, so settle --json loses session_start notifications",
		file: "src/session/agent-session.ts",
		edits: [
			{
				find: "private readonly defaultUI = createEventingUIContext((event) => this.events.emit(event));",
				replace: "private readonly defaultUI = createEventingUIContext(() => undefined);",
			},
		],
		tests: ["test/cli/extension-notify-print.test.ts"],
	},
	{
		id: "BZ15",
		file: "src/store/writer.ts",
		description: "the append after an uncut failed write blames another program again",
		edits: [
			{
				find: "if (same && this.uncut) {",
				replace: "if (false && this.uncut) {",
			},
		],
		tests: ["test/bad-input/faults-cli.test.ts"],
	},
	{
		id: "BZ16",
		file: "src/store/writer.ts",
		description: "a failed cut-back counts as uncut even when the write left nothing (/dev/full)",
		edits: [
			{
				find: "left = fstatSync(this.fd).size !== this.size;",
				replace: "left = true;",
			},
		],
		tests: ["test/store/writer.test.ts"],
	},
	{
		id: "BZ17",
		file: "src/store/lock.ts",
		description: "the per-append lock check never runs, so a lock taken over after a real stall is written past",
		edits: [
			{
				find: "&& Date.now() - refreshedAt >= CHECK_AFTER_MS)",
				replace: "&& false)",
			},
		],
		tests: ["test/store/lock-lost.test.ts"],
	},
	{
		id: "BZ18",
		file: "src/store/lock.ts",
		description: "refreshes are not recorded: every append checks again, and a freshly removed lock fails at once",
		edits: [
			{
				find: "refreshedAt = mtimeMs;",
				replace: "",
			},
		],
		tests: ["test/store/lock-lost.test.ts"],
	},
	{
		id: "BZ19",
		file: "src/store/lock.ts",
		description: "a refresh that landed on another writer's directory counts as ours",
		edits: [
			{
				find: "if (mtime instanceof Date && dir >= 0 && fs.fstatSync(dir).nlink > 0) events.refreshed(mtime.getTime());",
				replace: "if (mtime instanceof Date && dir >= 0) events.refreshed(mtime.getTime());",
			},
		],
		tests: ["test/store/lock-lost.test.ts"],
	},
	{
		id: "BZ20",
		file: "src/store/lock.ts",
		description: "the safety margin is added to the stale timeout instead of taken off",
		edits: [
			{
				find: "const CHECK_AFTER_MS = STALE_MS - STALE_MS / 4;",
				replace: "const CHECK_AFTER_MS = STALE_MS + STALE_MS / 4;",
			},
		],
		tests: ["test/store/lock-lost.test.ts"],
	},
	{
		id: "BZ21",
		file: "src/store/lock.ts",
		description: "the held lock directory is not kept open (no per-append check at all)",
		edits: [
			{
				find: "events.opened(dir);",
				replace: "",
			},
		],
		tests: ["test/store/lock-lost.test.ts"],
	},
	{
		id: "BZ22",
		file: "src/extensions/pi-compat.ts",
		description: "pi-compat no longer exports getAgentDir (checked through the bundle aliases)",
		edits: [
			{
				find: 'export { getDefaultAgentDir as getAgentDir } from "../settings/paths.js";',
				replace: "",
			},
		],
		tests: ["test/extensions/pi-examples.test.ts", "test/extensions/pi-examples-modes.test.ts"],
	},
	{
		id: "BZ23",
		file: "src/resources/extensions.ts",
		description: "requireFresh keeps the modules a CommonJS extension requires in Node's cache",
		edits: [
			{
				find: "pending.push(...module.children);",
				replace: "",
			},
		],
		tests: ["test/resources/extensions.test.ts"],
	},
	{
		id: "BZ24",
		file: "src/resources/extensions.ts",
		description: "no jiti fallback for a CommonJS require of settle",
		edits: [
			{
				find: "if (!needsTranspiler(error)) throw error;",
				replace: "throw error;",
			},
		],
		tests: ["test/resources/extensions.test.ts"],
	},
	{
		id: "BZ25",
		file: "src/export/render.ts",
		description: "the session name is not used as the page title",
		edits: [
			{
				find: "page.title ?? page.name ?? ",
				replace: "page.title ?? ",
			},
		],
		tests: ["test/export/export.test.ts"],
	},
	{
		id: "BZ26",
		file: "src/session/compaction-runner.ts",
		description:
			"runManualCompaction's finally never clears manualCompactionSaved: an extension's send during a later manual compaction's summary is held and run instead of refused with BUSY",
		edits: [
			{
				find: "s.scratch.manualCompactionSaved = false;",
				replace: "",
			},
		],
		tests: ["test/pi-races/settlement.test.ts"],
	},
	{
		id: "BZ27",
		file: "src/extensions/runner.ts",
		description:
			"forExtension does not wrap newSession/fork/switchSession on a withSession (replaced-session) context copy: the next withSession's ctx.ui loses extensionPath",
		edits: [
			{
				find: "this.nameWithSession(copy as Partial<ExtensionCommandContext>, extensionPath);",
				replace:
					"if (!replacedContextRunners.has(ctx)) this.nameWithSession(copy as Partial<ExtensionCommandContext>, extensionPath);",
			},
		],
		tests: ["test/runtime/with-session-ui.test.ts"],
	},
	{
		id: "BZ28",
		file: "src/session/run-outcome.ts",
		description: "threshold check reads usage from before the compaction as current (pi#1860)",
		edits: [
			{
				find: "isStale: (response) => predatesCompaction(s, response, fresh && response === message),",
				replace: "isStale: (_response) => false,",
			},
		],
		tests: ["test/pi-races/post-compaction.test.ts"],
	},
	{
		id: "BZ29",
		file: "src/session/agent-session.ts",
		description:
			"abort() clears the queues once the aborted run has settled, dropping input sent meanwhile (gsd-2#1439)",
		edits: [
			{
				find: '// The machine also cancels a compact() / ctx.compact() waiting on what this ends.\n\t\tthis.actor.send({ type: "ABORT" });\n\t\tawait this.waitForIdle();',
				replace:
					'// The machine also cancels a compact() / ctx.compact() waiting on what this ends.\n\t\tthis.actor.send({ type: "ABORT" });\n\t\tawait this.waitForIdle();\n\t\tthis.clearQueue();',
			},
		],
		tests: ["test/pi-races/abort-input.test.ts"],
	},
	{
		id: "BZ30",
		file: "src/cli/rpc-mode.ts",
		description: "a prompt refused in preflight also gets a success response (pi#3049)",
		edits: [
			{
				find: "if (answered) return;",
				replace:
					'if (answered) return;\n\t\t\t\t\twrite(success(id, "prompt", promptResult("rejected", [runtime.session])));',
			},
		],
		tests: ["test/pi-races/rpc-responses.test.ts"],
	},
	{
		id: "CA01",
		file: "src/agent/agent-loop.ts",
		description: "a tool_call handler that never returns wedges abort again (pi#9910)",
		edits: [
			{
				find: "const decision = await untilAbandoned(\n\t\t\t\t\tthis.config.beforeToolCall({ assistantMessage, toolCall, args, context: this.context }, signal, abandonment),\n\t\t\t\t\tsignal,\n\t\t\t\t\tthis.config,\n\t\t\t\t);",
				replace:
					"const decision = await this.config.beforeToolCall({ assistantMessage, toolCall, args, context: this.context }, signal, abandonment);",
			},
		],
		tests: ["test/pi-races/liveness.test.ts"],
	},
	{
		id: "CA02",
		file: "src/agent/agent-loop.ts",
		description:
			"an abandoned tool_call hook lets the call go on instead of ending it with a result naming the handler (pi#9910)",
		edits: [
			{
				find: 'if (decision === ABANDONED) {\n\t\t\t\t\tabandonment.aborted = true;\n\t\t\t\t\treturn immediate(toolCall, abandonedHookMessage("tool_call", toolCall.name, this.config));\n\t\t\t\t}',
				replace: "if (decision === ABANDONED) return { toolCall, tool, args };",
			},
		],
		tests: ["test/pi-races/liveness.test.ts"],
	},
	{
		id: "CA03",
		file: "src/agent/agent-loop.ts",
		description: "an abandoned tool_result handler's call keeps the tool's result (pi#9910)",
		edits: [
			{
				find: "if (override === ABANDONED) {",
				replace: "if (override === ABANDONED && signal.aborted === false) {",
			},
		],
		tests: ["test/pi-races/liveness.test.ts"],
	},
	{
		id: "CA04",
		file: "src/session/agent-session.ts",
		description: "pi#5581 loop guard removed: a message triggered from before_agent_start runs the hook again",
		edits: [
			{
				find: "const viaAgentStart = this.internals.scratch.beforeAgentStartDepth > 0;",
				replace: "const viaAgentStart = false;",
			},
		],
		tests: ["test/session/prompt-pipeline.test.ts"],
	},
	{
		id: "CA05",
		file: "src/session/prompt-pipeline.ts",
		description: "pi#5581 re-introduced: a triggered custom message skips before_agent_start",
		edits: [
			{
				find: 'viaAgentStart || aborted.aborted || !s.runner().hasHandlers("before_agent_start")',
				replace: "true || viaAgentStart || aborted.aborted",
			},
		],
		tests: ["test/session/prompt-pipeline.test.ts", "test/extensions/pi-differential-divergences.test.ts"],
	},
	{
		id: "CA06",
		file: "src/session/prompt-pipeline.ts",
		description: "pi#8773: the hook's system prompt is dropped for the custom-message operation",
		edits: [
			{
				after: "for (const handlerMessage of start.messages) messages.push(handlerMessage);",
				find: "s.scratch.forcedSystemPrompt = start.systemPrompt;",
				replace: "s.scratch.forcedSystemPrompt = undefined;",
			},
		],
		tests: ["test/session/prompt-pipeline.test.ts", "test/extensions/pi-differential-divergences.test.ts"],
	},
	{
		id: "CA07",
		file: "src/cli/rpc-mode.ts",
		description: "pi#9768: set_thinking_level answers without the level that applies",
		edits: [
			{
				find: 'return success(id, "set_thinking_level", { level: session.thinkingLevel });',
				replace: 'return success(id, "set_thinking_level");',
			},
		],
		tests: ["test/cli/rpc.test.ts"],
	},
	{
		id: "CA08",
		file: "machines/prompt-operation.machine.ts",
		description: "pi-agents#139: ABORT while settling reaches no agent_settled handler",
		edits: [
			{
				find: 'ABORT: { actions: [{ type: "signalAbort", params: { target: "settled" } }, "cancelDeferredCompactionOnAbort"] },',
				replace: 'ABORT: { actions: ["cancelDeferredCompactionOnAbort"] },',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/extensions/settled-signal.test.ts"],
	},
	{
		id: "CA09",
		file: "src/session/agent-session.ts",
		description: "pi-agents#139: dispose() leaves a held agent_settled handler's signal unaborted",
		edits: [
			{
				find: "\t\tabortWithIssuedReason(this.internals.scratch.settledController);\n\t\t// For good:",
				replace: "\t\t// For good:",
			},
		],
		tests: ["test/extensions/settled-signal.test.ts"],
	},
	{
		id: "CA10",
		file: "src/cli/session-lookup.ts",
		description: "skipped-line warnings filter inverted: malformed/torn lines of a resumed file go unreported",
		edits: [
			{
				find: '.filter((d) => d.kind !== "migrated" && d.kind !== "missing_newline")',
				replace: '.filter((d) => d.kind === "migrated")',
			},
		],
		tests: ["test/bad-input/cli.test.ts", "test/bad-input/exports-traces-tree.test.ts"],
	},
	{
		id: "CA11",
		file: "src/cli/host.ts",
		description: "startup no longer prints the resumed file's skipped lines",
		edits: [
			{
				find: "...skippedLineWarnings(runtime.session.sessionManager).map(",
				replace: "...skippedLineWarnings(runtime.session.sessionManager).filter(() => false).map(",
			},
		],
		tests: ["test/bad-input/cli.test.ts"],
	},
	{
		id: "CA12",
		file: "src/cli/host.ts",
		description: "extension load error hints swapped (-e vs --no-extensions)",
		edits: [
			{
				find: "return given !== undefined",
				replace: "return given === undefined",
			},
		],
		tests: ["test/bad-input/cli.test.ts"],
	},
	{
		id: "CA13",
		file: "src/cli/host.ts",
		description: "default-model warning also on resumed sessions",
		edits: [
			{
				find: "args.model === undefined && !recordsModel ? ",
				replace: "args.model === undefined ? ",
			},
		],
		tests: ["test/bad-input/cli.test.ts"],
	},
	{
		id: "CA14",
		file: "src/cli/host.ts",
		description: "missing --cwd reported as 'is not a directory' again",
		edits: [
			{
				find: 'existsSync(cwd) ? "is not a directory" : "does not exist"',
				replace: '"is not a directory"',
			},
		],
		tests: ["test/cli/cli.test.ts"],
	},
	{
		id: "CA15",
		file: "src/cli/host.ts",
		description: "new --session path in an unmakeable folder no longer refused up front",
		edits: [
			{
				find: "const problem = unwritableFolder(dirname(path));",
				replace: "const problem = undefined as string | undefined;",
			},
		],
		tests: ["test/bad-input/cli.test.ts"],
	},
	{
		id: "CA16",
		file: "src/testing/harness.ts",
		description:
			"h.settle's hang-detector timer is never cleared when the prompt settles (a live 60 s timer keeps the process alive)",
		edits: [
			{
				find: "return Promise.race([done, hang]).finally(() => clearTimeout(timer));",
				replace: "return Promise.race([done, hang]);",
			},
		],
		tests: ["test/testing/harness-hang.test.ts"],
	},
	{
		id: "DB01",
		file: "src/testing/harness.ts",
		description:
			'createHarness drops createAgentSession\'s tool names (tools: ["read"], excludeTools, noTools): the built-ins stay (testkituser)',
		edits: [
			{
				find: "...(toolNames ? { tools: [...toolNames] } : {}),",
				replace: "",
			},
		],
		tests: ["test/testing/harness-tool-option-names.test.ts"],
	},
	{
		id: "DB02",
		file: "src/testing/harness.ts",
		description: "createHarness ignores noTools (createAgentSession's name) (testkituser)",
		edits: [
			{
				find: "...(options.noTools !== undefined ? { noTools: options.noTools } : {}),",
				replace: "",
			},
		],
		tests: ["test/testing/harness-tool-option-names.test.ts"],
	},
	{
		id: "DB03",
		file: "src/testing/harness.ts",
		description:
			"the harness no longer records a tool_call handler that threw (the call is blocked, harnessViolations says nothing) (testkituser)",
		edits: [{ find: "\trecordToolCallThrows(session, extensionErrors);\n", replace: "" }],
		tests: ["test/testing/harness-violations-tool-call-throw.test.ts"],
	},
	{
		id: "CB01",
		file: "src/session/agent-session.ts",
		description: "setModel/cycleModel persist the default model even with persist:false",
		edits: [
			{
				find: "options.persist !== false\n\t\t\t\t? saveDefault(() => {\n\t\t\t\t\t\tputBack = this.settingsManager.saveDefaultModel",
				replace: "true\n\t\t\t\t? saveDefault(() => {\n\t\t\t\t\t\tputBack = this.settingsManager.saveDefaultModel",
			},
		],
		tests: ["test/session/model-persist.test.ts"],
	},
	{
		id: "CB02",
		file: "src/session/agent-session.ts",
		description: "switch from a model without reasoning falls back to low instead of pi's medium",
		edits: [
			{
				find: 'as ThinkingLevel | undefined) ?? "medium";',
				replace: 'as ThinkingLevel | undefined) ?? "low";',
			},
		],
		tests: ["test/parity/model-thinking.test.ts"],
	},
	{
		id: "CB03",
		file: "src/session/agent-session.ts",
		description: "tool_call {block, terminate} loses terminate",
		edits: [
			{
				find: "if (result.terminate !== undefined) decision.terminate = result.terminate;",
				replace: "",
			},
		],
		tests: ["test/session/tool-call-terminate.test.ts", "test/parity/tool-hooks.test.ts"],
	},
	{
		id: "CB04",
		file: "src/agent/agent-loop.ts",
		description: "length stop executes the possibly truncated calls",
		edits: [
			{
				find: 'const lengthStop = assistantMessage.stopReason === "length";',
				replace: "const lengthStop = false;",
			},
		],
		tests: ["test/parity/tool-hooks.test.ts", "test/agent/tools.test.ts"],
	},
	{
		id: "CB05",
		file: "src/agent/agent-loop.ts",
		description: "progress updates forwarded after execute settled",
		edits: [
			{
				find: "\t\t\t\tif (!running) return;\n\t\t\t\tconst update = this.emitter.emitQueued({",
				replace: "\t\t\t\tconst update = this.emitter.emitQueued({",
			},
		],
		tests: ["test/parity/tool-hooks.test.ts"],
	},
	{
		id: "CB06",
		file: "machines/prompt-operation.machine.ts",
		description: "navigateTree allowed while streaming",
		edits: [
			{
				find: '{ guard: "operationActive", actions: { type: "refuseTreeNavigation", params: { reason: "streaming" } } },',
				replace: '{ guard: "operationActive", actions: "spawnTreeNavigation" },',
			},
		],
		tests: ["test/parity/navigate-while-streaming.test.ts", "test/session/tree.test.ts"],
	},
	{
		id: "CB07",
		file: "src/agent/agent-loop.ts",
		description: "abort during tool_call wins over the hook's block reason",
		edits: [
			{
				find: 'if (signal.aborted && !decision?.block) return immediate(toolCall, "Operation aborted");',
				replace: 'if (signal.aborted) return immediate(toolCall, "Operation aborted");',
			},
		],
		tests: ["test/pi-races/abort-input.test.ts", "test/pi-races/pi-peer.test.ts"],
	},
	{
		id: "CB08",
		file: "src/cli/rpc-mode.ts",
		description: "set_model says only pi's bare text",
		edits: [
			{
				find: "const message = modelNotSelectableMessage(runtime, provider, modelId);",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "const message = `Model not found: ${provider}/${modelId}`;",
			},
		],
		tests: ["test/cli/rpc.test.ts", "test/rpc/rpc-client.test.ts"],
	},
	{
		id: "CB09",
		file: "src/cli/rpc-mode.ts",
		description: "no key advice for a known model without credentials",
		edits: [
			{
				find: "\tif (modelRuntime.getModel(provider, modelId)) {",
				replace: "\tif (false as boolean) {",
			},
		],
		tests: ["test/cli/rpc.test.ts"],
	},
	{
		id: "CB10",
		file: "src/cli/host.ts",
		description: "only --no-approve counts as a choice",
		edits: [
			{
				find: 'return !decision.trusted && (decision.reason !== "default" || defaultProjectTrust === "never");',
				replace: 'return !decision.trusted && decision.reason === "override";',
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "CB11",
		file: "src/cli/host.ts",
		description: "untrusted-extensions hint despite the choice",
		edits: [
			{
				find: "...(untrusted.paths.length > 0 && !untrustedByChoice",
				replace: "...(untrusted.paths.length > 0",
			},
		],
		tests: ["test/cli/cli-guidance.test.ts"],
	},
	{
		id: "CB12",
		file: "src/tools/image-resize-thread.ts",
		description: "abort leaves the running resize's thread running",
		edits: [
			{
				find: "\t\t\tvoid job.worker?.terminate();\n\t\t} else return;",
				replace: "\t\t} else return;",
			},
		],
		tests: ["test/tools/image-resize-thread.test.ts"],
	},
	{
		id: "CB13",
		file: "src/session/system-prompt.ts",
		description: "date month off by one",
		edits: [
			{
				find: 'const month = String(date.getMonth() + 1).padStart(2, "0");',
				replace: 'const month = String(date.getMonth()).padStart(2, "0");',
			},
		],
		tests: [
			"test/session/system-prompt.test.ts",
			"test/resources/pi-differential-regressions.test.ts",
			"test/resources/pi-differential.property.test.ts",
		],
	},
	{
		id: "CB14",
		file: "src/cli/interactive-commands.ts",
		description: "/session drops the route",
		edits: [
			{
				find: "\tconst route = routed\n",
				replace: "\tconst route = false\n",
			},
		],
		tests: ["test/cli/virtual-model.test.ts"],
	},
	{
		id: "CB15",
		file: "src/session/agent-session.ts",
		description: "UniPi#30 re-introduced: ctx.compact() during a run aborts it",
		edits: [
			{
				find: "compact: (customInstructions) => this.compactFromExtension(customInstructions),",
				replace: "compact: (customInstructions) => this.compact(customInstructions),",
			},
		],
		tests: ["test/pi-races/extension-compaction.test.ts"],
	},
	{
		id: "CB16",
		file: "machines/prompt-operation.machine.ts",
		description: "abort() no longer cancels a ctx.compact() waiting for the run to settle",
		edits: [
			{
				find: '// ctx.compact() while the operation runs (UniPi#30): not aborted, compacted once settled.\n\t\t\t\tCOMPACT_WHEN_SETTLED: [\n\t\t\t\t\trefuseOtherThanWaiting,\n\t\t\t\t\t{ actions: { type: "deferCompaction", params: { cancelOnAbort: true } } },',
				replace:
					'// ctx.compact() while the operation runs (UniPi#30): not aborted, compacted once settled.\n\t\t\t\tCOMPACT_WHEN_SETTLED: [\n\t\t\t\t\trefuseOtherThanWaiting,\n\t\t\t\t\t{ actions: { type: "deferCompaction", params: { cancelOnAbort: false } } },',
			},
		],
		tests: ["test/pi-races/extension-compaction.test.ts", "test/machines/prompt-operation.test.ts"],
	},
	{
		id: "CB17",
		file: "src/cli/print-mode.ts",
		description: "oh-my-pi#1372 re-introduced: -p sends its first message while a session_start run is going",
		edits: [
			{
				find: "\t\tawait runtime.session.waitForExtensionRuns();\n\t\tfor (const [index, message] of options.messages.entries()) {",
				replace: "\t\tfor (const [index, message] of options.messages.entries()) {",
			},
		],
		tests: ["test/pi-races/cli-modes.test.ts"],
	},
	{
		id: "CB18",
		file: "src/session/reload.ts",
		description: "pi#8311 re-introduced: a reloaded extension's lost tool falls through to the built-in",
		edits: [
			{
				find: "\tkeepExtensionToolsClosed(s, before.extensionTools, loadErrors);\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/reload-tools.test.ts"],
	},
	{
		id: "CB19",
		file: "src/session/reload.ts",
		description: "a tool whose extension loaded but dropped it is kept closed too (the built-in never comes back)",
		edits: [
			{
				find: "failed.has(path) && ",
				replace: "",
			},
		],
		tests: ["test/pi-races/reload-tools.test.ts"],
	},
	{
		id: "CB20",
		file: "src/session/run-outcome.ts",
		description: "RUN_DONE loses the threshold numbers",
		edits: [
			{
				find: "\t\toutcome.contextTokens = threshold.contextTokens;\n",
				replace: "",
			},
		],
		tests: ["test/inspect/compaction-why-trace.test.ts"],
	},
	{
		id: "CB21",
		file: "src/session/compaction-runner.ts",
		description: "compaction output loses its entry id",
		edits: [
			{
				find: "\t\t\tentryId: attempt.entryId,\n",
				replace: "",
			},
		],
		tests: ["test/inspect/compaction-why-trace.test.ts"],
	},
	{
		id: "CB22",
		file: "src/store/session-manager.ts",
		description: "appended entries not reported",
		edits: [
			{
				find: "\t\tthis.entryObserver?.(entry);\n",
				replace: "",
			},
		],
		tests: ["test/inspect/entries-in-trace.test.ts"],
	},
	{
		id: "CB23",
		file: "src/session/agent-session.ts",
		description: "ENTRY_WRITTEN sent when nobody inspects (per-message cost)",
		edits: [
			{
				find: "if (this.inspections.watched && this.actor",
				replace: "if (this.actor",
			},
		],
		tests: ["test/inspect/entries-in-trace.test.ts"],
	},
	{
		id: "CB24",
		file: "src/session/agent-session.ts",
		description: "disposed session stays the manager's observer",
		edits: [
			{
				find: "\t\tif (this.sessionManager.entryObserver === this.entryObserver) this.sessionManager.entryObserver = undefined;\n",
				replace: "",
			},
		],
		tests: ["test/inspect/entries-in-trace.test.ts"],
	},
	{
		id: "CB25",
		file: "src/inspect/trace-viewer.ts",
		description: "event lines no longer wrap (reason hidden off to the right)",
		edits: [
			{
				find: "white-space:pre-wrap;overflow-wrap:anywhere;",
				replace: "white-space:pre;",
			},
		],
		tests: ["test/inspect/trace-viewer-reasons.test.ts"],
	},
	{
		id: "CB26",
		file: "src/inspect/trace-viewer.ts",
		description: "state durations dropped",
		edits: [
			{
				find: "if (next !== undefined) lasted[i] = Math.round(next - event.at);",
				replace: "",
			},
		],
		tests: ["test/inspect/trace-viewer-reasons.test.ts"],
	},
	{
		id: "CB27",
		file: "src/inspect/live-page.ts",
		description: "live page never says how long a state lasted",
		edits: [
			{
				find: "  previous.li.append(span);\n",
				replace: "",
			},
		],
		tests: ["test/inspect/trace-viewer-reasons.test.ts"],
	},
	{
		id: "CB28",
		file: "src/inspect/trace-file.ts",
		description: "loadTrace format errors no longer name the file",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "`${path}: ${error.message}`",
				replace: "error.message",
			},
		],
		tests: ["test/inspect/trace.test.ts"],
	},
	{
		id: "CC01",
		file: "src/extensions/runner.ts",
		description: "senpi#1732: the handlers after a stuck session_shutdown handler never start",
		edits: [
			{
				find: "await Promise.race([running, abandoned]);",
				replace: "await running;",
			},
		],
		tests: ["test/pi-races/switching.test.ts"],
	},
	{
		id: "CC02",
		file: "src/session/reload.ts",
		description: "senpi#1732: reload's session_shutdown dispatch not stopped by the bounded wait",
		edits: [
			{
				find: 'await old.emitSessionShutdown({ type: "session_shutdown", reason: "reload" }, signal);',
				replace: 'await old.emitSessionShutdown({ type: "session_shutdown", reason: "reload" });',
			},
		],
		tests: ["test/pi-races/switching.test.ts"],
	},
	{
		id: "CC03",
		file: "machines/prompt-operation.machine.ts",
		description:
			"COMPACT_WHEN_SETTLED while the run works ignored (ctx.compact() from turn_end or a tool waits forever)",
		edits: [
			{
				find: '// ctx.compact() while the operation runs (UniPi#30): not aborted, compacted once settled.\n\t\t\t\tCOMPACT_WHEN_SETTLED: [\n\t\t\t\t\trefuseOtherThanWaiting,\n\t\t\t\t\t{ actions: { type: "deferCompaction", params: { cancelOnAbort: true } } },\n\t\t\t\t],',
				replace: "// ctx.compact() while the operation runs (UniPi#30): not aborted, compacted once settled.",
			},
		],
		tests: [
			"test/machines/prompt-operation.test.ts",
			"test/machines/prompt-operation.property.test.ts",
			"test/pi-races/extension-compaction.test.ts",
		],
	},
	{
		id: "CC04",
		file: "machines/runtime.machine.ts",
		description: "pi#9811: no bound on session_shutdown during replacement/dispose",
		edits: [
			{
				find: 'shutdownTimeout: { guard: "shutdownBounded", target: "invalidating", actions: "reportShutdownTimedOut" },',
				replace: "",
			},
		],
		tests: [
			"test/machines/runtime.test.ts",
			"test/runtime/shutdown-timeout.test.ts",
			"test/runtime/runtime-graph.test.ts",
		],
	},
	{
		id: "CC05",
		file: "machines/runtime-reload.machine.ts",
		description: "pi#9811: reload waits forever for session_shutdown",
		edits: [
			{
				find: '{ guard: "shutdownBounded", target: "loading", actions: "reportShutdownTimedOut" },',
				replace: "",
			},
		],
		tests: [
			"test/machines/runtime-reload.model.test.ts",
			"test/runtime/shutdown-timeout.test.ts",
			"test/cli/shutdown-timeout.test.ts",
		],
	},
	{
		id: "CC06",
		file: "machines/prompt-operation.machine.ts",
		description: "navigation during an operation refused as compacting",
		edits: [
			{
				find: '{ guard: "operationActive", actions: { type: "refuseTreeNavigation", params: { reason: "streaming" } } },',
				replace:
					'{ guard: "operationActive", actions: { type: "refuseTreeNavigation", params: { reason: "compacting" } } },',
			},
		],
		tests: [
			"test/machines/prompt-operation.test.ts",
			"test/session/tree.test.ts",
			"test/parity/navigate-while-streaming.test.ts",
		],
	},
	{
		id: "CC07",
		file: "src/llm/tokens.ts",
		description: "threshold off by one",
		edits: [
			{
				find: "\treturn contextWindow - effectiveReserveTokens(contextWindow, settings.reserveTokens);",
				replace: "\treturn contextWindow - effectiveReserveTokens(contextWindow, settings.reserveTokens) + 1;",
			},
		],
		tests: ["test/compaction/tokens.test.ts"],
	},
	{
		id: "CC08",
		file: "src/session/agent-session.ts",
		description: "a model's own thinking level saved as the default",
		edits: [
			{
				find: "const keepLevel = thinking.fromModelEntry || clamped ||",
				replace: "const keepLevel = clamped ||",
			},
		],
		tests: ["test/session/model-thinking-levels.test.ts", "test/parity/model-thinking.test.ts"],
	},
	{
		id: "CC09",
		file: "src/runtime/sdk.ts",
		description: "new session ignores modelThinkingLevels",
		edits: [
			{
				find: "thinkingLevel ??= perModel ?? settingsLevel ?? DEFAULT_THINKING_LEVEL;",
				replace: "thinkingLevel ??= settingsLevel ?? DEFAULT_THINKING_LEVEL;",
			},
		],
		tests: ["test/session/model-thinking-levels.test.ts"],
	},
	{
		id: "CC10",
		file: "src/session/agent-session.ts",
		description: "tool images normalized only with tool_result handlers",
		edits: [
			{
				find: 'if (!handled && !result.content?.some((block) => block.type === "image")) return undefined;',
				replace: "if (!handled) return undefined;",
			},
		],
		tests: ["test/session/tool-result-images.test.ts"],
	},
	{
		id: "CC11",
		file: "src/session/images.ts",
		description: "a tool image that cannot be resized is dropped",
		edits: [
			{
				find: "\t\t} else {\n\t\t\tnormalized.push(block);\n\t\t}",
				replace: "\t\t} else {\n\t\t\tchanged = true;\n\t\t}",
			},
		],
		tests: ["test/session/tool-result-images.test.ts"],
	},
	{
		id: "CC12",
		file: "src/session/event-bridge.ts",
		description: "agent_end.aborted true for errors",
		edits: [
			{
				find: 'return message.stopReason === "aborted";',
				replace: 'return message.stopReason === "error";',
			},
		],
		tests: ["test/session/agent-end-aborted.test.ts"],
	},
	{
		id: "CC13",
		file: "src/session/agent-session.ts",
		description: "per-model thinking entry ignored on a model switch",
		edits: [
			{
				find: "if (own) return { level: own, fromModelEntry: true };",
				replace: "if (own && !own) return { level: own, fromModelEntry: true };",
			},
		],
		tests: ["test/session/model-thinking-levels.test.ts", "test/parity/model-thinking.test.ts"],
	},
	{
		id: "CC14",
		file: "src/session/compaction-runner.ts",
		description: "a compaction aborted during an extension's session_before_compact still writes its entry",
		edits: [
			{
				find: "\t\tif (controller.signal.aborted) throw new CompactionCancelled();\n\t\tconst entryId = s.sessionManager.appendCompaction(",
				replace: "\t\tconst entryId = s.sessionManager.appendCompaction(",
			},
		],
		tests: ["test/session/compaction-interleaving.property.test.ts", "test/session/recovery-compaction.test.ts"],
	},
	{
		id: "CC15",
		file: "src/session/compaction-runner.ts",
		description: "a threshold compaction after a run drops the queued continuation (the message stays queued)",
		edits: [
			{
				find: "continue: attempt.retries || s.agent.hasQueuedMessages(),",
				replace: "continue: attempt.retries,",
			},
		],
		tests: ["test/session/compaction-interleaving.property.test.ts", "test/pi-races/queue-races.property.test.ts"],
	},
	{
		id: "CD01",
		file: "machines/runtime.machine.ts",
		description: "no settle step: session_shutdown right after creating (grace shared with the handlers' bound)",
		edits: [
			{
				find: 'onDone: {\n\t\t\t\t\ttarget: "settlingCurrent",',
				replace: 'onDone: {\n\t\t\t\t\ttarget: "shuttingDown",',
			},
		],
		tests: [
			"test/machines/runtime.test.ts",
			"test/machines/runtime.model.test.ts",
			"test/runtime/shutdown-timeout.test.ts",
		],
	},
	{
		id: "CD02",
		file: "machines/runtime-reload.machine.ts",
		description: "a failed reload releases its held prompts to run on the half-rebuilt session",
		edits: [
			{
				find: 'entry: ["announceFinished", "refuseHeldPromptsAfterFailure"],',
				replace: 'entry: ["announceFinished"],',
			},
		],
		tests: [
			"test/machines/runtime-reload.model.test.ts",
			"test/machines/runtime-reload.property.test.ts",
			"test/session/reload.test.ts",
		],
	},
	{
		id: "CD03",
		file: "src/session/agent-session.ts",
		description: "teardown does not wait for a reload in progress (reloaded extensions never hear session_shutdown)",
		edits: [
			{
				find: "\t\treturn this.reloadsOver();\n",
				replace: "\t\treturn Promise.resolve();\n",
			},
		],
		tests: ["test/runtime/reload-during-replacement.test.ts"],
	},
	{
		id: "CD04",
		file: "machines/prompt-operation.machine.ts",
		description:
			"compact() while streaming holds the compaction but no longer aborts the run (waits like ctx.compact())",
		edits: [
			{
				find: '\t\t\t\t\t\tCOMPACT: [refuseOtherThanWaiting, { target: "aborting", actions: abortThenCompact }],\n\t\t\t\t\t\t// agent_end comes while working',
				replace:
					'\t\t\t\t\t\tCOMPACT: [\n\t\t\t\t\t\t\trefuseOtherThanWaiting,\n\t\t\t\t\t\t\t{ actions: [{ type: "deferCompaction", params: { cancelOnAbort: true } }] },\n\t\t\t\t\t\t],\n\t\t\t\t\t\t// agent_end comes while working',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/machines/prompt-operation.property.test.ts"],
	},
	{
		id: "CD05",
		file: "machines/prompt-operation.machine.ts",
		description:
			"idle re-issues deferred prompts before the held compaction (a prompt takes the compaction's slot again)",
		edits: [
			{
				find: '\t\t\t\t{ guard: "canTakeDeferredCompaction", target: "compacting", actions: "takeDeferredCompaction" },\n\t\t\t\t{ guard: "canTakeDeferredPrompt", target: "preflight", actions: "takeDeferredPrompt" },\n',
				replace:
					'\t\t\t\t{ guard: "canTakeDeferredPrompt", target: "preflight", actions: "takeDeferredPrompt" },\n\t\t\t\t{ guard: "canTakeDeferredCompaction", target: "compacting", actions: "takeDeferredCompaction" },\n',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts"],
	},
	{
		id: "CD06",
		file: "machines/prompt-operation.machine.ts",
		description:
			"abort() where the state aborts nothing else (running.aborting, idle…) no longer cancels a held compact()",
		edits: [
			{
				find: '\t\tABORT: { guard: "compactionCancelledByAbort", actions: "cancelDeferredCompactionOnAbort" },\n',
				replace: "",
			},
		],
		tests: ["test/session/wait-for-idle-compact.test.ts", "test/machines/prompt-operation.test.ts"],
	},
	{
		id: "CD07",
		file: "machines/prompt-operation.machine.ts",
		description:
			"the preflight is released after its dispatch even while the dispatch's ctx.compact() still runs (pi#7154 hold lost)",
		edits: [
			{
				find: 'PREFLIGHT_DISPATCH_END: { guard: not("dispatchCompactionRunning"), actions: "releaseDispatch" },',
				replace: 'PREFLIGHT_DISPATCH_END: { actions: "releaseDispatch" },',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/pi-races/extension-context-compaction.test.ts"],
	},
	{
		id: "CD08",
		file: "machines/prompt-operation.machine.ts",
		description: "a ctx.compact() from the preflight's own command is held until the prompt settles (the pi#7154 hang)",
		edits: [
			{
				find: "\t\t\tevent.fromDispatch === true &&\n\t\t\tcontext.preflightCompactions.preSend === undefined &&\n\t\t\t!context.abortRequested,",
				replace:
					"\t\t\tfalse &&\n\t\t\tcontext.preflightCompactions.preSend === undefined &&\n\t\t\t!context.abortRequested,",
			},
		],
		tests: [
			"test/pi-races/extension-context-compaction.test.ts",
			"test/pi-races/pi-peer.test.ts",
			"test/machines/prompt-operation.test.ts",
		],
	},
	{
		id: "CD09",
		file: "src/session/compaction-runner.ts",
		description: "a command that replaced its session waits forever for its stopped machine to release the preflight",
		edits: [
			{
				find: '\tif (s.snapshot().status !== "active") return undefined;\n',
				replace: "",
			},
		],
		tests: ["test/pi-races/switching.test.ts", "test/extensions/pi-examples-runtime.test.ts"],
	},
	{
		id: "CD10",
		file: "src/session/compaction-runner.ts",
		description:
			"compaction_end says willRetry after compact()/abort() ended the operation during session_compact (no run follows)",
		edits: [
			{
				find: "const retries = willRetry && !controller.signal.aborted;",
				replace: "const retries = willRetry;",
			},
		],
		tests: ["test/session/compact-while-streaming.property.test.ts"],
	},
	{
		id: "CG01",
		file: "src/extensions/runner.ts",
		description:
			"a teardown overtaking a reload tells the old extensions session_shutdown a second time (no once-per-set dispatch)",
		edits: [
			{
				find: "let dispatch = this.shutdownDispatch;",
				replace: "let dispatch = undefined as typeof this.shutdownDispatch;",
			},
		],
		tests: ["test/runtime/reload-overtaken-by-teardown.test.ts", "test/runtime/reload-interleaving.property.test.ts"],
	},
	{
		id: "CG02",
		file: "src/extensions/runner.ts",
		description:
			"a session_start after a rollback does not open a new lifecycle: the next teardown's session_shutdown is lost",
		edits: [
			{
				find: "\t\t\tthis.shutdownDispatch = undefined;\n\t\t\tthis.started = true;\n",
				replace: "\t\t\tthis.started = true;\n",
			},
		],
		tests: ["test/runtime/reload-overtaken-by-teardown.test.ts"],
	},
	{
		id: "CG03",
		file: "src/extensions/runner.ts",
		description:
			"senpi#1732 through the once-per-set dispatch: a caller's bounded wait no longer abandons it, the handlers after a stuck one never start",
		edits: [
			{
				find: 'else abandon.addEventListener("abort", () => shared.abort(), { once: true });',
				replace: "",
			},
		],
		tests: ["test/pi-races/switching.test.ts", "test/runtime/shutdown-timeout.test.ts"],
	},
	{
		id: "CG04",
		file: "machines/runtime-reload.machine.ts",
		description: "a reload torn down during its session_shutdown goes on to load extensions for the session going away",
		edits: [
			{
				find: 'guard: "stopping",\n\t\t\t\t\t\t\t\ttarget: "cutOff",\n\t\t\t\t\t\t\t\tactions: { type: "recordCutOff", params: { after: "shuttingDown" } },',
				replace: 'guard: "stopping",\n\t\t\t\t\t\t\t\ttarget: "loading",',
			},
		],
		tests: ["test/machines/runtime-reload.model.test.ts", "test/runtime/reload-during-replacement.test.ts"],
	},
	{
		id: "CG05",
		file: "machines/runtime-reload.machine.ts",
		description:
			"a reload torn down while its session_shutdown handler is stuck loads and starts extensions after the bound",
		edits: [
			{
				find: 'guard: and(["shutdownBounded", "stopping"]),',
				replace: 'guard: and(["shutdownBounded", "disposed"]),',
			},
		],
		tests: ["test/machines/runtime-reload.model.test.ts", "test/runtime/reload-overtaken-by-teardown.test.ts"],
	},
	{
		id: "CG06",
		file: "machines/runtime-reload.machine.ts",
		description: "a reload torn down while loading installs and starts the extensions it loaded",
		edits: [
			{
				find: '{ guard: "stopping", target: "cutOff", actions: { type: "recordCutOff", params: { after: "loading" } } },',
				replace: "",
			},
		],
		tests: ["test/machines/runtime-reload.model.test.ts", "test/runtime/reload-overtaken-by-teardown.test.ts"],
	},
	{
		id: "CG07",
		file: "machines/runtime-reload.machine.ts",
		description: "a reload torn down during beforeSessionStart still sends session_start",
		edits: [
			{
				find: '{ guard: "stopping", target: "cutOff", actions: { type: "recordCutOff", params: { after: "binding" } } },',
				replace: "",
			},
		],
		tests: [
			"test/machines/runtime-reload.model.test.ts",
			"test/machines/runtime-reload.property.test.ts",
			"test/runtime/reload-overtaken-by-teardown.test.ts",
			"test/session/reload.test.ts",
		],
	},
	{
		id: "CG08",
		file: "src/session/agent-session.ts",
		description:
			"the runtime's teardown does not tell the reload machine: the reload runs to its end for a session going away",
		edits: [
			{
				find: '\t\tthis.reloadActor?.send({ type: "TEARDOWN" });\n',
				replace: "",
			},
		],
		tests: ["test/runtime/reload-during-replacement.test.ts"],
	},
	{
		id: "CG09",
		file: "src/session/reload.ts",
		description: "extensions a cut-off reload loaded and never installed keep live pi / ctx objects",
		edits: [
			{
				find: "else before.loaded.runner.invalidate(STALE_EXTENSION_CONTEXT_MESSAGE);",
				replace: "else void before;",
			},
		],
		tests: ["test/runtime/reload-overtaken-by-teardown.test.ts"],
	},
	{
		id: "CG10",
		file: "src/session/agent-session.ts",
		description: "a reload cut off by a teardown resolves as if it had reloaded",
		edits: [
			{
				find: "event.cutOff !== undefined && event.error === undefined",
				replace: "false",
				after: 'installed: event.cutOff === "binding",',
			},
		],
		tests: ["test/runtime/reload-overtaken-by-teardown.test.ts", "test/session/reload.test.ts"],
	},
	{
		id: "CF01",
		file: "src/extensions/runner.ts",
		description:
			"a command's error goes to the runner it was dispatched on: after a reload during the command, no listener hears it (pi#7816)",
		edits: [
			{
				find: "reportError(errorRecord(",
				replace: "this.emitError(errorRecord(",
			},
		],
		tests: ["test/pi-races/reload-lifecycle.test.ts"],
	},
	{
		id: "CF02",
		file: "src/session/prompt-pipeline.ts",
		description:
			"the session reports a command's error on the runner current when the command started, not when it failed (pi#7816)",
		edits: [
			{
				find: "return (error) => s.runner().emitError(error);",
				replace: "const dispatched = s.runner();\n\treturn (error) => dispatched.emitError(error);",
			},
		],
		tests: ["test/pi-races/reload-lifecycle.test.ts"],
	},
	{
		id: "CH01",
		file: "machines/prompt-operation.machine.ts",
		description: "a compact() that joins a waiting ctx.compact() is dropped (its promise is never answered)",
		edits: [
			{
				find: "const joined: DeferredCompaction = { ...waiting, sharedWith: [...(waiting.sharedWith ?? []), event.requestId] };",
				replace: "const joined: DeferredCompaction = { ...waiting };",
			},
		],
		tests: [
			"test/machines/prompt-operation.test.ts",
			"test/machines/prompt-operation.property.test.ts",
			"test/session/compact-while-streaming.property.test.ts",
		],
	},
	{
		id: "CH02",
		file: "machines/prompt-operation.machine.ts",
		description: "a compaction held until idle starts without its custom instructions",
		edits: [
			{
				find: "if (deferred.payload !== undefined) compaction.payload = deferred.payload;",
				replace: "",
			},
		],
		tests: [
			"test/machines/prompt-operation.test.ts",
			"test/pi-races/extension-compaction.test.ts",
			"test/session/compact-while-streaming.property.test.ts",
		],
	},
	{
		id: "CH03",
		file: "machines/prompt-operation.machine.ts",
		description: "a second ctx.compact() from a command's dispatch joins the running one but is never answered",
		edits: [
			{
				find: "const dispatch = { ...running, sharedWith: [...(running.sharedWith ?? []), event.requestId] };",
				replace: "const dispatch = { ...running };",
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/pi-races/extension-context-compaction.test.ts"],
	},
	{
		id: "CH04",
		file: "machines/prompt-operation.machine.ts",
		description: "a ctx.compact() from the dispatch of a preflight abort() already stopped still compacts",
		edits: [
			{
				after: "compactionFromDispatch: ({ context, event }) =>",
				find: "!context.abortRequested,",
				replace: "true,",
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/pi-races/extension-context-compaction.test.ts"],
	},
	{
		id: "CH05",
		file: "machines/prompt-operation.machine.ts",
		description:
			"the end of a command's ctx.compact() does not release the preflight waiting after its dispatch (the prompt hangs)",
		edits: [
			{
				find: 'enqueue.emit({ type: "preflight_dispatch_released" });',
				replace: "",
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/pi-races/extension-context-compaction.test.ts"],
	},
	{
		id: "CH06",
		file: "machines/runtime.machine.ts",
		description:
			"the old run's settle grace is the handlers' shutdownTimeoutMs (10 s) instead of settleTimeoutMs (2 s)",
		edits: [
			{
				find: "settleTimeout: ({ context }) => shutdownTimeoutDelay(context.settleTimeoutMs),",
				replace: "settleTimeout: ({ context }) => shutdownTimeoutDelay(context.shutdownTimeoutMs),",
			},
		],
		tests: ["test/machines/runtime.test.ts", "test/runtime/shutdown-timeout.test.ts"],
	},
	{
		id: "CH07",
		file: "machines/runtime.machine.ts",
		description: "a failing settle step of a teardown goes on silently (no teardown_error)",
		edits: [
			{
				find: '\t\t\t\t\tactions: { type: "reportTeardownError", params: failureIn("settlingCurrent") },\n',
				replace: "",
			},
		],
		tests: ["test/machines/runtime.test.ts", "test/machines/runtime.model.test.ts"],
	},
	{
		id: "CH08",
		file: "src/session/agent-session.ts",
		description: "the prompt() of a run a replacement aborted resolves instead of rejecting with SESSION_CLOSED",
		edits: [
			{
				find: "\ttearingDown.add(session);\n",
				replace: "\n",
			},
		],
		tests: ["test/runtime/session-replaced.test.ts", "test/runtime/runtime-graph.test.ts"],
	},
	{
		id: "CH09",
		file: "machines/runtime-reload.machine.ts",
		description: "prompts held during overlapping reload() calls run after the first reload, before the queued one",
		edits: [
			{
				find: '{ guard: "hasQueuedReload", target: "reloading", reenter: true, actions: "startNextReload" },',
				replace:
					'{ guard: "hasQueuedReload", target: "reloading", reenter: true, actions: ["releaseHeldPrompts", "startNextReload"] },',
			},
		],
		tests: [
			"test/machines/runtime-reload.model.test.ts",
			"test/machines/runtime-reload.property.test.ts",
			"test/session/reload.test.ts",
		],
	},
	{
		id: "CH10",
		file: "machines/runtime-reload.machine.ts",
		description: "dispose() during a reload leaves the prompts it held unanswered (no SESSION_CLOSED)",
		edits: [
			{
				find: 'enqueue.emit({ type: "prompts_refused", promptIds: context.heldPrompts, reason: "disposed" });',
				replace: "",
			},
		],
		tests: [
			"test/machines/runtime-reload.model.test.ts",
			"test/machines/runtime-reload.property.test.ts",
			"test/runtime/shutdown-timeout.test.ts",
		],
	},
	{
		id: "CH11",
		file: "machines/runtime-reload.machine.ts",
		description: "reload() while an operation runs is not refused with BUSY",
		edits: [
			{
				find: "sessionBusy: (_, params: { busy: boolean }) => params.busy,",
				replace: "sessionBusy: (_, params: { busy: boolean }) => params.busy && false,",
			},
		],
		tests: [
			"test/machines/runtime-reload.model.test.ts",
			"test/machines/runtime-reload.property.test.ts",
			"test/session/reload.test.ts",
		],
	},
	{
		id: "CH12",
		file: "src/session/reload.ts",
		description: "a session_shutdown handler a reload stopped waiting for is not reported (no extension named)",
		edits: [
			{
				find: 'if (before) reportUnfinishedShutdownHandlers(before.old, emitted.timeoutMs, "reload");',
				replace: "",
			},
		],
		tests: ["test/runtime/shutdown-timeout.test.ts"],
	},
	{
		id: "CH13",
		file: "src/session/agent-session.ts",
		description:
			"dispose() during a reload does not tell the reload actor: the reload goes on and binds its new extensions (they get session_start)",
		edits: [
			{
				find: 'this.reloadActor?.send({ type: "DISPOSE" });',
				replace: "",
			},
		],
		tests: ["test/session/reload.test.ts"],
	},
	{
		id: "CH14",
		file: "src/session/agent-session.ts",
		description: "reload() during a compaction is not refused with BUSY (it reloads under the running compaction)",
		edits: [
			{
				find: "busy: this.isStreaming || this.isCompacting",
				replace: "busy: this.isStreaming",
			},
		],
		tests: ["test/session/reload-while-compacting.test.ts", "test/session/reload.test.ts"],
	},
	{
		id: "CH15",
		file: "src/session/agent-session.ts",
		description: "a prompt held by a reload that failed rejects with SESSION_CLOSED instead of RELOAD_FAILED",
		edits: [
			{
				find: 'event.reason === "disposed"',
				replace: "true",
			},
		],
		tests: ["test/session/reload.test.ts"],
	},
	{
		id: "CH16",
		file: "src/session/agent-session.ts",
		description: "reload() of a session its runtime has begun to replace is taken instead of refused with BUSY",
		edits: [
			{
				after: "reload(options: ReloadOptions = {}): Promise<void> {",
				find: "if (refusal) return Promise.reject(refusal);",
				replace: "",
			},
		],
		tests: ["test/runtime/reload-during-replacement.test.ts"],
	},
	{
		id: "CH17",
		file: "src/session/agent-session.ts",
		description:
			"input to a session its runtime is replacing is taken (and ended later) instead of refused at once with BUSY",
		edits: [
			{
				find: "return replacing === undefined\n",
				replace: "return true\n",
			},
		],
		tests: ["test/runtime/replacing-session-input.test.ts"],
	},
	{
		id: "CH18",
		file: "src/session/agent-session.ts",
		description: "sendUserMessage() to a session being replaced or disposed is taken instead of refused at once",
		edits: [
			{
				after:
					"\t\toptions: { deliverAs?: StreamingBehavior; expandPromptTemplates?: boolean } = {},\n\t): Promise<void> {",
				find: "if (refusal) return Promise.reject(refusal);",
				replace: "",
			},
		],
		tests: ["test/runtime/replacing-session-input.test.ts", "test/runtime/disposing-session-input.test.ts"],
	},
	{
		id: "CJ01",
		file: "src/runtime/runtime.ts",
		description: "createAgentSessionRuntime's settleTimeoutMs is ignored: a teardown always waits the default 2 s",
		edits: [
			{
				find: "...(options.settleTimeoutMs !== undefined ? { settleTimeoutMs: options.settleTimeoutMs } : {}),",
				replace: "",
			},
		],
		tests: ["test/runtime/settle-timeout.test.ts"],
	},
	{
		id: "CJ02",
		file: "src/runtime/runtime.ts",
		description: "settleTimeoutMs: NaN is taken (a teardown then waits for the run without a bound)",
		edits: [
			{
				find: 'if (typeof value !== "number" || Number.isNaN(value) || value < 0) {\n\t\tthrow new SettleError("INVALID_ARGUMENT", invalidSettleTimeout(value));',
				replace:
					'if (typeof value !== "number" || value < 0) {\n\t\tthrow new SettleError("INVALID_ARGUMENT", invalidSettleTimeout(value));',
			},
		],
		tests: ["test/runtime/settle-timeout.test.ts"],
	},
	{
		id: "CJ03",
		file: "src/runtime/runtime.ts",
		description: "a negative settleTimeoutMs is taken instead of refused with INVALID_ARGUMENT",
		edits: [
			{
				find: 'Number.isNaN(value) || value < 0) {\n\t\tthrow new SettleError("INVALID_ARGUMENT", invalidSettleTimeout(value));',
				replace: 'Number.isNaN(value)) {\n\t\tthrow new SettleError("INVALID_ARGUMENT", invalidSettleTimeout(value));',
			},
		],
		tests: ["test/runtime/settle-timeout.test.ts"],
	},
	{
		id: "CJ04",
		file: "src/runtime/runtime.ts",
		description: "the settle bound running out is not told to runtime.onSettleTimedOut listeners (trace only)",
		edits: [
			{
				find: 'callListener("runtime.onSettleTimedOut", listener, timedOut, this.listenerOwner);',
				replace: "void listener;",
			},
		],
		tests: ["test/runtime/settle-timeout.test.ts"],
	},
	{
		id: "CJ05",
		file: "src/runtime/runtime.ts",
		description: "an invalid settleTimeoutMs is refused only after the first session was built (its file left open)",
		edits: [
			{
				find: "\t\tsettleTimeoutMs = validSettleTimeout(options.settleTimeoutMs);\n",
				replace: "",
			},
			{
				find: "\treturn new AgentSessionRuntime(result, factory, {\n",
				replace:
					"\tsettleTimeoutMs = validSettleTimeout(options.settleTimeoutMs);\n\treturn new AgentSessionRuntime(result, factory, {\n",
			},
		],
		tests: ["test/runtime/settle-timeout.test.ts"],
	},
	{
		id: "CJ06",
		file: "src/runtime/runtime.ts",
		description:
			"a replacement that rolls back after cutting a reload off past loading leaves the session its stale old extensions (the reloaded ones dropped)",
		edits: [
			{
				find: "const reload = session.installCutOffReload();",
				replace: 'const reload: string = "none";',
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "CJ07",
		file: "src/session/reload.ts",
		description:
			"extensions a cut-off reload loaded stay live when the replacement that cut it off commits (the disposed session never invalidates them)",
		edits: [
			{
				find: "\tstate.cutOffAfterLoading?.loaded.runner.invalidate(STALE_EXTENSION_CONTEXT_MESSAGE);\n",
				replace: "",
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "CJ08",
		file: "src/session/reload.ts",
		description:
			"a reload cut off after loading by a dispose that already happened keeps its loaded extensions for a rollback that never comes (their pi stays live)",
		edits: [
			{
				find: "if (emitted.cutOff !== undefined && !state.closed)",
				replace: "if (emitted.cutOff !== undefined)",
			},
		],
		tests: ["test/runtime/reload-overtaken-by-teardown.test.ts"],
	},
	{
		id: "CK01",
		file: "src/runtime/runtime.ts",
		description:
			"a reload() cut off by a replacement that rolls back resolves before the host's rebind started the reloaded extensions",
		edits: [
			{
				find: '\t\t\t\t\tif (reload === "installed"',
				replace: '\t\t\t\t\tsession.settleCutOffReload();\n\t\t\t\t\tif (reload === "installed"',
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "CK02",
		file: "src/session/agent-session.ts",
		description:
			"a reload() cut off before loading anything resolves after the replacement rolls back, though nothing was reloaded",
		edits: [
			{
				find: 'cut.installed ? undefined : new SettleError("BUSY", reloadCutOffByRolledBackTeardown(cut.step))',
				replace: "undefined",
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "CK03",
		file: "src/session/agent-session.ts",
		description:
			"a reload() cut off after binding rejects BUSY when the replacement rolls back, though the session goes on with its extensions",
		edits: [
			{
				find: 'installed: event.cutOff === "binding",',
				replace: "installed: false,",
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "CK04",
		file: "src/session/agent-session.ts",
		description:
			"a reload() cut off after loading rejects BUSY when the replacement rolls back, though the rollback installed its extensions",
		edits: [
			{
				find: "\t\tif (installed && this.cutOffReload) this.cutOffReload.installed = true;\n",
				replace: "",
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "CK05",
		file: "src/session/agent-session.ts",
		description: "a reload() cut off by a replacement that commits resolves as if it had reloaded the disposed session",
		edits: [
			{
				find: 'new SettleError("SESSION_CLOSED", reloadCutOff(this.cutOffReload.step)),',
				replace: "undefined,",
				after: "if (this.reloadActor) discardCutOffReload(this.reloadActor);",
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "CK06",
		file: "src/runtime/runtime.ts",
		description:
			"settleTimeoutMs: Infinity is refused with INVALID_ARGUMENT while shutdownTimeoutMs: Infinity is taken",
		edits: [
			{
				find: 'if (typeof value !== "number" || Number.isNaN(value) || value < 0) {\n\t\tthrow new SettleError("INVALID_ARGUMENT", invalidSettleTimeout(value));',
				replace:
					'if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {\n\t\tthrow new SettleError("INVALID_ARGUMENT", invalidSettleTimeout(value));',
			},
		],
		tests: ["test/runtime/settle-timeout.test.ts"],
	},
	{
		id: "CK07",
		file: "test/mutation/outcome.ts",
		description: "a mutant's test run stopped by the runner's time limit is counted as killed",
		edits: [
			{
				find: '\tif (exitStatus === TIMEOUT_EXIT_STATUS) return "timed out";\n',
				replace: "",
			},
		],
		tests: ["test/mutation/outcome.test.ts"],
	},
	{
		id: "CK08",
		file: "test/mutation/outcome.ts",
		description: "a timed-out mutant run does not fail the audit (the runner exits 0)",
		edits: [
			{
				find: 'if (status === "stale" || status === "timed out" || status === "ended by signal") return true;',
				replace: 'if (status === "stale" || status === "ended by signal") return true;',
			},
		],
		tests: ["test/mutation/outcome.test.ts"],
	},
	{
		id: "CK09",
		file: "src/session/agent-session.ts",
		description:
			"a replacement that stopped waiting for a slow reload and rolled back leaves it cut off: the session keeps its stale old extensions, reload() rejects SESSION_CLOSED",
		edits: [
			{
				find: '\t\tthis.reloadActor?.send({ type: "TEARDOWN_ROLLED_BACK" });\n',
				replace: "",
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "CK10",
		file: "machines/runtime-reload.machine.ts",
		description: "TEARDOWN_ROLLED_BACK does not resume the reload in progress (it is still cut off at its next step)",
		edits: [
			{
				find: "resumeAfterRolledBackTeardown: assign({ tearingDown: undefined }),",
				replace: "resumeAfterRolledBackTeardown: assign({}),",
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "CL01",
		file: "src/session/agent-session.ts",
		description:
			"prompt() hands a text that is not a string to the machine: an uncaught exception in the actor and a session stuck in preflight",
		edits: [
			{
				find: 'promptInputError("session.prompt", text, options.images) ??',
				replace: "",
			},
		],
		tests: ["test/bad-input/prompt-arguments.test.ts"],
	},
	{
		id: "CL02",
		file: "src/session/agent-session.ts",
		description: "steer() queues a text that is not a string and rejects with a bare TypeError",
		edits: [
			{
				find: 'const invalid = promptInputError("session.steer", text, images);',
				replace: "const invalid = undefined;",
			},
		],
		tests: ["test/bad-input/prompt-arguments.test.ts"],
	},
	{
		id: "CL03",
		file: "src/session/agent-session.ts",
		description:
			"sendUserMessage (the session's and an extension's pi.sendUserMessage) takes content that is neither a string nor blocks",
		edits: [
			{
				find: "const invalid = userMessageContentError(caller, content) ?? emptyUserMessageError(caller, content);",
				replace: "const invalid = emptyUserMessageError(caller, content);",
			},
		],
		tests: ["test/bad-input/prompt-arguments.test.ts"],
	},
	{
		id: "CL04",
		file: "src/session/input-check.ts",
		description: "a text block without a string text passes as user-message content",
		edits: [
			{
				find: '(block.type === "text" && typeof block.text === "string")',
				replace: '(block.type === "text")',
			},
		],
		tests: ["test/bad-input/prompt-arguments.test.ts"],
	},
	{
		id: "CL05",
		file: "src/session/input-check.ts",
		description: "prompt images are not checked: a file name or a URL block goes on as an image",
		edits: [
			{
				find: "if (images !== undefined && !(Array.isArray(images) && images.every(isImageBlock))) {",
				replace: "if (images !== undefined && !Array.isArray(images)) {",
			},
		],
		tests: ["test/bad-input/prompt-arguments.test.ts"],
	},
	{
		id: "CL06",
		file: "src/agent/agent-loop.ts",
		description:
			"the abort grace timer is unref'd: a script awaiting prompt() whose aborted tool ignores the signal exits mid-run, nothing printed or saved",
		edits: [
			{
				find: "setTimeout: (fn, ms) => setTimeout(fn, ms),",
				replace: "setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),",
			},
		],
		tests: ["test/lifetime/abort-grace-keeps-process.test.ts"],
	},
	{
		id: "CL07",
		file: "src/session/agent-session.ts",
		description:
			'pi.setActiveTools("read") is read letter by letter: no tool matches and the session is left with none, silently',
		edits: [
			{
				find: 'const invalid = toolNamesError("pi.setActiveTools", names);',
				replace: "const invalid = undefined;",
			},
		],
		tests: ["test/bad-input/active-tool-names.test.ts"],
	},
	{
		id: "CL08",
		file: "src/session/input-check.ts",
		description: "a list of tool names holding a non-string passes the check",
		edits: [
			{
				find: 'if (Array.isArray(names) && names.every((name) => typeof name === "string")) return undefined;',
				replace: "if (Array.isArray(names)) return undefined;",
			},
		],
		tests: ["test/bad-input/active-tool-names.test.ts"],
	},
	{
		id: "CN01",
		file: "src/runtime/sdk.ts",
		description:
			"createAgentSession takes cwd: 42 / model: 42 unchecked: Node's raw paths[0] TypeError, or the model silently ignored",
		edits: [
			{
				find: "const invalid = createOptionsError(options);",
				replace: "const invalid = undefined;",
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "CN02",
		file: "src/session/input-check.ts",
		description: "an optional string argument lets anything through (cwd: 42 reaches path.resolve)",
		edits: [
			{
				find: 'if (typeof value === "string" || (optional && value === undefined)) return undefined;',
				replace: 'if (typeof value === "string" || optional) return undefined;',
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "CN03",
		file: "src/session/agent-session.ts",
		description: "session.setModel(undefined) reads model.provider: a raw TypeError",
		edits: [
			{
				find: 'modelArgumentError("session.setModel", model) ??',
				replace: "",
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "CN04",
		file: "src/session/agent-session.ts",
		description: 'setThinkingLevel("hgih") is clamped to off without a word',
		edits: [
			{
				find: 'const invalid = thinkingLevelError("session.setThinkingLevel", level, THINKING_LEVELS);',
				replace: "const invalid = undefined;",
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "CN05",
		file: "src/session/input-check.ts",
		description: "any string passes as a thinking level",
		edits: [
			{
				find: '(typeof level === "string" && levels.includes(level))',
				replace: 'typeof level === "string"',
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "CN06",
		file: "src/session/input-check.ts",
		description: "a model object without a provider passes the check",
		edits: [
			{
				find: 'if (typeof candidate.provider === "string" && typeof candidate.id === "string") return undefined;',
				replace: 'if (typeof candidate.id === "string") return undefined;',
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "CN07",
		file: "src/runtime/runtime.ts",
		description: "runtime.switchSession(42) reaches path.resolve: Node's raw paths[0] TypeError",
		edits: [
			{
				find: 'stringArgumentError(method, "the session path", sessionPath, SESSION_PATH_HINT) ??',
				replace: "",
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "CN08",
		file: "src/runtime/runtime.ts",
		description: "runtime.newSession({ setup: 42 }) is taken: a raw TypeError from inside the replacement",
		edits: [
			{
				find: 'callbackArgumentError(method, "setup", options.setup) ??',
				replace: "",
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "CN09",
		file: "src/session/agent-session.ts",
		description: "a custom message with content 42 is stored; every later run's token count throws",
		edits: [
			{
				find: "const invalid = customMessageError(caller, message);",
				replace: "const invalid = undefined;",
			},
		],
		tests: ["test/bad-input/prompt-arguments.test.ts"],
	},
	{
		id: "CN10",
		file: "src/session/reload.ts",
		description:
			"the bounded wait on session_shutdown handlers is unref'd: a script awaiting runtime.dispose() exits inside it, the rest never run",
		edits: [
			{
				find: "if (ms >= MAX_TIMER_DELAY_MS) timer.unref();",
				replace: "timer.unref();",
			},
		],
		tests: ["test/lifetime/dispose-keeps-process.test.ts"],
	},
	{
		id: "CN11",
		file: "src/session/reload.ts",
		description:
			"the unbounded wait (Infinity) keeps the process alive: a handler waiting on nothing holds it for 24 days",
		edits: [
			{
				find: "if (ms >= MAX_TIMER_DELAY_MS) timer.unref();",
				replace: "",
			},
		],
		tests: ["test/lifetime/dispose-keeps-process.test.ts"],
	},
	{
		id: "CN12",
		file: "test/mutation/outcome.ts",
		description: "a mutant run ended by a signal (no exit status) is counted as killed",
		edits: [
			{
				find: '\tif (exitStatus === null) return "ended by signal";\n',
				replace: "",
			},
		],
		tests: ["test/mutation/outcome.test.ts"],
	},
	{
		id: "CN13",
		file: "test/mutation/outcome.ts",
		description: "a mutant run ended by a signal does not fail the audit (the runner exits 0)",
		edits: [
			{
				find: 'if (status === "stale" || status === "timed out" || status === "ended by signal") return true;',
				replace: 'if (status === "stale" || status === "timed out") return true;',
			},
		],
		tests: ["test/mutation/outcome.test.ts"],
	},
	{
		id: "CM01",
		file: "src/session/agent-session.ts",
		description:
			"a rollback while a reload still runs its step rebinds the old session: its extensions, shut down for the reload, hear session_start again and never a session_shutdown",
		edits: [
			{
				find: '\t\tif (this.reloadActor?.getSnapshot().matches("reloading")) return "reloading";\n',
				replace: "",
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "CP01",
		file: "src/session/agent-session.ts",
		description: "pi#6329: a model switch saves the level its ladder clamped as the default",
		edits: [
			{
				find: "const keepLevel = thinking.fromModelEntry || clamped ||",
				replace: "const keepLevel = thinking.fromModelEntry ||",
			},
		],
		tests: ["test/pi-races/model-switch-thinking.test.ts"],
	},
	{
		id: "CP02",
		file: "src/session/agent-session.ts",
		description: "pi#6329: the clamp check inverted: a switch saves only the levels its ladder clamped",
		edits: [
			{
				find: "const clamped = clampThinkingLevel(model, thinking.level) !== thinking.level;",
				replace: "const clamped = clampThinkingLevel(model, thinking.level) === thinking.level;",
			},
		],
		tests: ["test/pi-races/model-switch-thinking.test.ts", "test/session/model-thinking-levels.test.ts"],
	},
	{
		id: "CP03",
		file: "src/tools/output-accumulator.ts",
		description: "pi#5667: a full-output file that failed to open is still named in the result",
		edits: [{ find: "this.tempError ??= error.message;", replace: "" }],
		tests: ["test/pi-races/bash-output.test.ts"],
	},
	{
		id: "CP04",
		file: "src/tools/bash.ts",
		description: "pi#5667: a cut result without a full-output file still says `Full output: undefined`",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "const full = fullOutputPath ? `Full output: ${fullOutputPath}` : `Full output not saved: ${fullOutputError}`;",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "const full = `Full output: ${fullOutputPath}`;",
			},
		],
		tests: ["test/pi-races/bash-output.test.ts"],
	},
	{
		id: "CP05",
		file: "src/session/reload.ts",
		description: "pi-code#81: a reload turns every extension tool on again (a restricted set is lifted)",
		edits: [
			{
				find: "s.loadout.refresh(tools, { activeToolNames: [...before.activeToolNames, ...added] });",
				replace:
					"s.loadout.refresh(tools, { activeToolNames: [...before.activeToolNames, ...added], includeAllExtensionTools: true });",
			},
		],
		tests: ["test/pi-races/reload-tools.test.ts"],
	},
	{
		id: "CP06",
		file: "src/session/reload.ts",
		description: "pi-code#81: a tool an extension first registers with the reload stays inactive",
		edits: [
			{
				find: "{ activeToolNames: [...before.activeToolNames, ...added] }",
				replace: "{ activeToolNames: before.activeToolNames }",
			},
		],
		tests: ["test/pi-races/reload-tools.test.ts"],
	},
	{
		id: "CQ01",
		file: "src/session/agent-session.ts",
		description:
			"a replacement during a retry's backoff disposes the session without ending it (no auto_retry_end, no agent_settled)",
		edits: [
			{
				find: "session.agent.state.isStreaming || session.isRetrying || ",
				replace: "session.agent.state.isStreaming || ",
			},
		],
		tests: ["test/cli/rpc-replacement-ends-operation.test.ts", "test/runtime/session-replaced.test.ts"],
	},
	{
		id: "CQ02",
		file: "src/session/agent-session.ts",
		description: "a replacement during a manual compaction disposes the session without ending it (no compaction_end)",
		edits: [{ find: ' || session.lifecycle.startsWith("compacting")) {', replace: ") {" }],
		tests: ["test/cli/rpc-replacement-ends-operation.test.ts", "test/pi-races/switching.test.ts"],
	},
	{
		id: "CQ03",
		file: "src/session/agent-session.ts",
		description: "a compaction the runtime cancelled to replace the session rejects as a user's cancel (ABORTED)",
		edits: [{ find: "if (cancelled && tearingDown.has(this))", replace: "if (cancelled && false)" }],
		tests: ["test/cli/rpc-replacement-ends-operation.test.ts", "test/pi-races/switching.test.ts"],
	},
	{
		id: "CQ04",
		file: "src/cli/args.ts",
		description:
			"two options asking for different modes: the last one wins silently (--rpc --json prompts the model with the RPC commands)",
		edits: [{ find: "	checkModeChoices(result, modeChoices);\n", replace: "" }],
		tests: ["test/cli/cli.test.ts"],
	},
	{
		id: "CQ05",
		file: "src/cli/args.ts",
		description: "--mode repeated with different values is refused (pi's rule: the last one wins)",
		edits: [{ find: '	if (choices.every((choice) => choice.option.startsWith("--mode "))) return;\n', replace: "" }],
		tests: ["test/cli/cli.test.ts"],
	},
	{
		id: "CQ06",
		file: "src/cli/args.ts",
		description:
			"an empty --agent-dir / --cwd / --faux-script is taken as the current directory (the project becomes the global folder)",
		edits: [{ find: '	if (value.trim() !== "") return false;', replace: "	return false;" }],
		tests: ["test/cli/cli.test.ts"],
	},
	{
		id: "CQ07",
		file: "src/cli/main.ts",
		description: "run from a deleted folder, settle says only ENOENT uv_cwd (not what happened nor what to do)",
		edits: [
			{
				find: "isCurrentDirectoryGone(error) ? CURRENT_DIRECTORY_GONE : errorMessage(error)",
				replace: "errorMessage(error)",
			},
		],
		tests: ["test/cli/cli.test.ts"],
	},
	{
		id: "CQ08",
		file: "src/session/compaction-runner.ts",
		description:
			"a compaction cancelled while being prepared still calls session_before_compact (its signal already aborted)",
		edits: [
			{
				after: "// Cancelled while it was being prepared",
				find: "if (controller.signal.aborted) throw new CompactionCancelled();",
				replace: "",
			},
		],
		tests: ["test/session/abort-at-every-await.test.ts"],
	},
	{
		id: "CO01",
		file: "src/store/entry-shape.ts",
		description:
			"content that is neither text nor a list (42, null, {}) counts as usable and reaches the context as it is",
		edits: [
			{
				find: "\tif (!Array.isArray(content)) return false;\n",
				replace: "\tif (!Array.isArray(content)) return true;\n",
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts"],
	},
	{
		id: "CO02",
		file: "src/store/entry-shape.ts",
		description: "a null in a content list counts as a block (the context then reads null.type)",
		edits: [
			{
				find: "if (!isObject(block) || Array.isArray(block)) return false;",
				replace: "if (Array.isArray(block)) return false;",
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts"],
	},
	{
		id: "CO03",
		file: "src/store/entry-shape.ts",
		description: "a block of an unknown type (video) stays in the context",
		edits: [
			{
				find: 'return type === "text" || type === "image" || type === "thinking" || type === "toolCall";',
				replace: 'return typeof type === "string";',
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts"],
	},
	{
		id: "CO04",
		file: "src/store/session-file.ts",
		description: "the fast path loads entries with fields of the wrong type without the invalid_field diagnostic",
		edits: [
			{
				find: "!isWellShaped(value as Record<string, unknown>)",
				replace: "false",
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts", "test/store/session-file-pieces.property.test.ts"],
	},
	{
		id: "CO05",
		file: "src/store/session-file.ts",
		description: "a message entry without a message object is loaded (the projection then reads undefined.role)",
		edits: [
			{
				find: 'if (record.type === "message" && !hasMessageObject(record as { message?: unknown })) {',
				replace: "if (false) {",
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts"],
	},
	{
		id: "CO06",
		file: "src/store/entry-index.ts",
		description: "a label that is a number is kept as the entry's label (the tree view then throws)",
		edits: [
			{
				find: 'if (typeof entry.label === "string" && entry.label) {',
				replace: "if (entry.label) {",
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts"],
	},
	{
		id: "CO07",
		file: "src/store/entry-index.ts",
		description: "a session name that is a number is trimmed as text (SessionManager.open throws)",
		edits: [
			{
				find: "this.sessionName = storedText(entry.name)?.trim() || undefined;",
				replace: "this.sessionName = (entry.name as string)?.trim() || undefined;",
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts"],
	},
	{
		id: "CO08",
		file: "src/store/projection.ts",
		description: "a compaction summary that is not text reaches the context as it is",
		edits: [
			{
				find: 'createCompactionSummaryMessage(storedText(entry.summary) ?? "", entry.tokensBefore, entry.timestamp)',
				replace: "createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp)",
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts"],
	},
	{
		id: "CO09",
		file: "src/compaction/entry-messages.ts",
		description: "compaction reads a stored message as it is, not as the context reads it",
		edits: [
			{
				find: "\t\t\treturn sessionEntryToContextMessages(entry)[0];",
				replace: '\t\t\treturn entry.type === "message" ? entry.message : sessionEntryToContextMessages(entry)[0];',
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts"],
	},
	{
		id: "CO10",
		file: "src/session/agent-session.ts",
		description: "the fork list reads stored user content as it is (a null block throws)",
		edits: [
			{
				find: "const content = contextContent(entry.message.content);",
				replace: "const content = entry.message.content as never as TextContent[];",
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts"],
	},
	{
		id: "CO11",
		file: "src/cli/interactive-tree.ts",
		description: "the tree view excerpts a branch summary that is a number",
		edits: [
			{
				find: 'excerpt(storedText(entry.summary) ?? "")',
				replace: "excerpt(entry.summary)",
			},
		],
		tests: ["test/bad-input/stored-shapes.test.ts"],
	},
	{
		id: "CO12",
		file: "src/store/session-manager.ts",
		description: "appendSessionInfo accepts a name that is not a string",
		edits: [
			{
				find: 'throwIfInvalid(stringArgumentError("sessionManager.appendSessionInfo", "the name", name, SESSION_NAME_HINT));',
				replace: "",
			},
		],
		tests: ["test/bad-input/setters.test.ts"],
	},
	{
		id: "CO13",
		file: "src/store/session-manager.ts",
		description: "appendLabelChange accepts a label that is a number",
		edits: [
			{
				find: 'stringArgumentError(method, "the label", label, LABEL_HINT, true),',
				replace: "undefined,",
			},
		],
		tests: ["test/bad-input/setters.test.ts"],
	},
	{
		id: "CO14",
		file: "src/session/agent-session.ts",
		description:
			"session.setSessionName / pi.setSessionName leave the check to the store (the error names sessionManager.appendSessionInfo)",
		edits: [
			{
				find: 'const invalid = stringArgumentError(method, "the name", name, SESSION_NAME_HINT);',
				replace: "const invalid = undefined;",
			},
		],
		tests: ["test/bad-input/setters.test.ts"],
	},
	{
		id: "CO15",
		file: "src/session/agent-session.ts",
		description: "pi.setLabel with a number label is not refused by the extension API",
		edits: [
			{
				find: 'stringArgumentError("pi.setLabel", "the label", label, LABEL_HINT, true);',
				replace: "undefined;",
			},
		],
		tests: ["test/bad-input/setters.test.ts"],
	},
	{
		id: "CO16",
		file: "src/session/agent-session.ts",
		description: "setSteeringMode hands a wrong mode to the queue before the settings refuse it",
		edits: [
			{
				find: "\t\tthis.settingsManager.setSteeringMode(mode);\n\t\tthis.agent.steeringMode = mode;",
				replace: "\t\tthis.agent.steeringMode = mode;\n\t\tthis.settingsManager.setSteeringMode(mode);",
			},
		],
		tests: ["test/bad-input/setters.test.ts"],
	},
	{
		id: "CO17",
		file: "src/session/agent-session.ts",
		description: "setScopedModels takes any value",
		edits: [
			{
				find: 'const invalid = scopedModelsError("session.setScopedModels", scopedModels);',
				replace: "const invalid = undefined;",
			},
		],
		tests: ["test/bad-input/setters.test.ts"],
	},
	{
		id: "CO18",
		file: "src/store/session-manager.ts",
		description: "appendCustomMessageEntry stores content that is a number",
		edits: [
			{
				find: "withNothingWritten(userMessageContentError(method, content)),",
				replace: "undefined,",
			},
		],
		tests: ["test/bad-input/setters.test.ts"],
	},
	{
		id: "CO19",
		file: "src/store/session-manager.ts",
		description: "appendCustomEntry stores a customType that is a number",
		edits: [
			{
				find: 'throwIfInvalid(stringArgumentError("sessionManager.appendCustomEntry", "customType", customType, CUSTOM_TYPE_HINT));',
				replace: "",
			},
		],
		tests: ["test/bad-input/setters.test.ts"],
	},
	{
		id: "CR01",
		file: "src/store/discovery.ts",
		description:
			"continueRecent in the default dir opens its newest file whatever the header's cwd: `client/app` continues `client-app`'s session (openclaw#96542)",
		edits: [
			{
				find: "if (!cwdMatches(readSessionHeader(path)?.cwd, resolvedCwd)) continue;",
				replace: "if (!readSessionHeader(path)) continue;",
			},
		],
		tests: ["test/store/discovery.test.ts", "test/pi-races/cli-modes.test.ts"],
	},
	{
		id: "CR02",
		file: "src/store/session-manager.ts",
		description: "list() returns every session of the folder, another cwd's that shares it too (openclaw#96542)",
		edits: [
			{
				find: '(info: SessionInfo) => info.cwd !== "" && resolve(info.cwd) === resolvedCwd;',
				replace: "(_info: SessionInfo) => true;",
			},
		],
		tests: ["test/store/discovery.test.ts"],
	},
	{
		id: "CR03",
		file: "src/cli/session-lookup.ts",
		description:
			"--session <id prefix> resumes a session of another cwd that shares the project's folder (openclaw#96542)",
		edits: [
			{
				find: '(info) => info.id.startsWith(prefix) && info.cwd !== "" && resolve(info.cwd) === cwd,',
				replace: "(info) => info.id.startsWith(prefix),",
			},
		],
		tests: ["test/pi-races/cli-modes.test.ts"],
	},
	{
		id: "CR04",
		file: "src/cli/rpc-mode.ts",
		description: "RPC clear_queue answers nothing cleared and leaves the queues as they are (pi#9194)",
		edits: [
			{
				find: 'return success(id, "clear_queue", runtime.session.clearQueue() satisfies RpcClearedQueue);',
				replace: 'return success(id, "clear_queue", { steering: [], followUp: [] } satisfies RpcClearedQueue);',
			},
		],
		tests: ["test/pi-races/cli-modes.test.ts"],
	},
	{
		id: "CR05",
		file: "src/rpc/client.ts",
		description: "RpcClient.clearQueue() sends get_state instead of clear_queue (pi#9194)",
		edits: [
			{ find: 'return this.request({ type: "clear_queue" });', replace: 'return this.request({ type: "get_state" });' },
		],
		tests: ["test/rpc/rpc-client-peers.test.ts"],
	},
	{
		id: "CS01",
		file: "src/store/session-manager.ts",
		description: "appendMessage writes a message of the wrong shape for its role (user content 42…)",
		edits: [{ find: 'throwIfInvalid(messageShapeError("sessionManager.appendMessage", message));', replace: "" }],
		tests: ["test/bad-input/message-shapes.test.ts"],
	},
	{
		id: "CS02",
		file: "src/session/input-check.ts",
		description: "appendMessage writes a tool result without toolCallId",
		edits: [
			{ find: 'textFieldError(method, outcome, "toolResult message", fields, "toolCallId", hint) ??', replace: "" },
		],
		tests: ["test/bad-input/message-shapes.test.ts"],
	},
	{
		id: "CS03",
		file: "src/session/input-check.ts",
		description: "appendMessage checks only the first block of an assistant or tool-result content list",
		edits: [{ find: "if (index === content.length) return undefined;", replace: "if (index > 0) return undefined;" }],
		tests: ["test/bad-input/message-shapes.test.ts"],
	},
	{
		id: "CS04",
		file: "src/session/convert-to-llm.ts",
		description: "a stored user message whose content could not be read is sent as an empty user message",
		edits: [
			{
				find: "if (hasNoContent(message.content)) return undefined;\n\t\t\tconverted = message;",
				replace: "converted = message;",
			},
		],
		tests: ["test/bad-input/message-shapes.test.ts"],
	},
	{
		id: "CS05",
		file: "src/session/convert-to-llm.ts",
		description: "a stored custom_message whose content could not be read is sent as an empty user message",
		edits: [
			{
				find: "if (hasNoContent(message.content)) return undefined;\n\t\t\tconverted = {",
				replace: "converted = {",
			},
		],
		tests: ["test/bad-input/message-shapes.test.ts"],
	},
	{
		id: "CS06",
		file: "src/session/agent-session.ts",
		description: "recordBashResult records a result of the wrong shape",
		edits: [
			{
				find: 'const invalid = bashResultError("session.recordBashResult", command, result);',
				replace:
					'const invalid = bashResultError("session.recordBashResult", "", { output: "", cancelled: false, truncated: false });',
			},
		],
		tests: ["test/bad-input/message-shapes.test.ts"],
	},
	{
		id: "CS07",
		file: "src/session/input-check.ts",
		description: "sendCustomMessage queues a message whose customType is a number (the next prompt then fails)",
		edits: [{ find: 'if (typeof customType !== "string") {', replace: "if (false) {" }],
		tests: ["test/bad-input/message-shapes.test.ts"],
	},
	{
		id: "CS08",
		file: "src/extensions/runner.ts",
		description: "a tool_result handler's content list holding non-blocks is applied (appendMessage then refuses it)",
		edits: [
			{
				find: "if (value.content !== undefined && !isUsableBlockList(value.content)) {",
				replace: "if (value.content !== undefined && !Array.isArray(value.content)) {",
			},
		],
		tests: ["test/extensions/tool-result-content-not-array.test.ts"],
	},
	{
		id: "CT01",
		file: "src/extensions/runner.ts",
		description: "a message_end replacement appendMessage would refuse (assistant content 42) replaces the reply",
		edits: [
			{
				find: 'const invalid = messageShapeError("A message_end handler\'s replacement", candidate, "It was ignored.");',
				replace: "const invalid = undefined as SettleError | undefined;",
			},
		],
		tests: ["test/session/persistence.test.ts"],
	},
	{
		id: "CU01",
		file: "src/session/queues.ts",
		description: "a queued text leaves its list at the start of any user message with the same content",
		edits: [
			{
				find: "return list.findIndex((entry) => entry.message === message);",
				replace:
					"return list.findIndex((entry) => JSON.stringify(entry.message.content) === JSON.stringify(message.content));",
			},
		],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "CU02",
		file: "src/session/queues.ts",
		description: "the Agent gets a copy of the queued follow-up: its delivery does not unlist it",
		edits: [
			{
				find: "this.agent.followUp(entry.message);",
				replace: "this.agent.followUp({ ...entry.message });",
			},
		],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "CU03",
		file: "src/session/agent-session.ts",
		description: "sendUserMessage([]) accepted: an empty user turn is sent to the model",
		edits: [
			{
				find: "const invalid = userMessageContentError(caller, content) ?? emptyUserMessageError(caller, content);",
				replace: "const invalid = userMessageContentError(caller, content);",
			},
		],
		tests: ["test/bad-input/prompt-arguments.test.ts"],
	},
	{
		id: "CU04",
		file: "src/session/input-check.ts",
		description: "every block list refused as empty",
		edits: [
			{
				find: "if (!Array.isArray(content) || content.length > 0) return undefined;",
				replace: "if (!Array.isArray(content)) return undefined;",
			},
		],
		tests: ["test/bad-input/prompt-arguments.test.ts"],
	},
	{
		id: "CU05",
		file: "src/cli/pi-folder.ts",
		description: "pi's hints count another project's sessions that share the folder name",
		edits: [
			{
				find: 'return typeof headerCwd === "string" && headerCwd !== "" && resolve(headerCwd) === project;',
				replace: "return true;",
			},
		],
		tests: ["test/cli/pi-migration.test.ts"],
	},
	{
		id: "CU06",
		file: "src/cli/pi-folder.ts",
		description: "-c / --session / /resume hints name another project's pi session that shares the folder name",
		edits: [
			{
				find: "const files = projectSessionFiles(dir, input.cwd);",
				replace:
					'const files = readdirSync(dir).filter((name) => name.endsWith(".jsonl")).map((name) => join(dir, name));',
			},
		],
		tests: ["test/cli/pi-migration.test.ts"],
	},
	{
		id: "CV01",
		file: "src/cli/args.ts",
		description: "an empty --session is taken as a value (pi#9733): it was read as the project folder's path",
		edits: [
			{
				find: 'if (refuseEmptyPath(result, option, value, "a session file or id")) return;',
				replace: "",
			},
		],
		tests: ["test/cli/session-prefix-pi.test.ts"],
	},
	{
		id: "CV02",
		file: "src/cli/args.ts",
		description: "an empty --session-dir is taken as a value: sessions went to the default folder without a word",
		edits: [
			{
				find: 'if (refuseEmptyPath(result, option, value, "the folder to keep sessions in")) return;',
				replace: "",
			},
		],
		tests: ["test/cli/session-prefix-pi.test.ts"],
	},
	{
		id: "CV03",
		file: "src/resources/prompt-templates.ts",
		description: "a prompt template default is never used (pi#6695): a missing argument becomes empty text",
		edits: [{ find: 'return value === "" ? fallback : value;', replace: "return value;" }],
		tests: ["test/resources/prompt-templates.test.ts"],
	},
	{
		id: "CV04",
		file: "src/resources/prompt-templates.ts",
		description: "a positional default (N:-text) takes every argument instead of the N-th",
		edits: [
			{
				find: 'const value = /^\\d+$/.test(defaulted) ? (args[Number.parseInt(defaulted, 10) - 1] ?? "") : all;',
				replace: "const value = all;",
			},
		],
		tests: ["test/resources/prompt-templates.test.ts"],
	},
	{
		id: "CW01",
		file: "src/llm/model-runtime.ts",
		description: "SDK NO_AUTH no longer names the auth.json entry to write",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "or write ${entry} in <agentDir>/auth.json",
				replace: "or write a key in <agentDir>/auth.json",
			},
		],
		tests: ["test/runtime/provider-hint.test.ts"],
	},
	{
		id: "CW02",
		file: "src/llm/model-runtime.ts",
		description: "SDK NO_AUTH's authStorage call is keyed by a placeholder, not the provider",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "AuthStorage.inMemory({ ${JSON.stringify(provider)}: key })",
				replace: "AuthStorage.inMemory({ provider: key })",
			},
		],
		tests: ["test/runtime/provider-hint.test.ts"],
	},
	{
		id: "CW03",
		file: "src/tools/types.ts",
		description: "defineTool types a custom tool's ctx as unknown again (ctx.cwd needs a cast)",
		edits: [
			{
				find: "TDetails = unknown, TContext = ExtensionContext>(",
				replace: "TDetails = unknown, TContext = unknown>(",
			},
		],
		tests: ["test/doctest/doctest.test.ts"],
	},
	{
		id: "CW04",
		file: "src/runtime/sdk.ts",
		description: "createAgentSession no longer checks customTools (a tool without execute fails only when called)",
		edits: [
			{
				find: "customToolsError(method, options.customTools)",
				replace: "undefined",
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "CW05",
		file: "src/session/input-check.ts",
		description: "a custom tool without an execute function is accepted",
		edits: [
			{
				find: 'if (typeof execute !== "function") {',
				replace: "if (execute === null) {",
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "CX01",
		file: "src/resources/skills.ts",
		description:
			"a /skill: name ends only at a space again (pi#8413: a line break or tab after it passes the text through)",
		edits: [
			{
				find: "const space = afterPrefix.search(/\\s/);",
				replace: 'const space = afterPrefix.indexOf(" ");',
			},
		],
		tests: ["test/pi-races/skills-tools.test.ts"],
	},
	{
		id: "CX02",
		file: "src/agent/agent-loop.ts",
		description: "a tool result returned with isError: true is recorded as a success (pi#1881)",
		edits: [
			{
				find: "isError: valid.isError === true }",
				replace: "isError: false }",
			},
		],
		tests: ["test/pi-races/skills-tools.test.ts"],
	},
	{
		id: "CX03",
		file: "src/agent/agent-loop.ts",
		description:
			"an aborted run reads the provider's next event instead of ending the answer as aborted (pi#9687: a transport's abort error saved as an error)",
		edits: [
			{
				find: "if (signal.aborted) return Promise.resolve(ABORTED);",
				replace: "if (signal.aborted && signal === undefined) return Promise.resolve(ABORTED);",
			},
		],
		tests: ["test/pi-races/extension-abort-provider-error.test.ts"],
	},
	{
		id: "CX04",
		file: "src/export/page.ts",
		description:
			"the exported page leaves out custom messages with display: false, though the model was sent them (pi#8896)",
		edits: [
			{
				find: 'case "custom_message": return customView(e.customType, e.content, e.display);',
				replace: 'case "custom_message": return e.display ? customView(e.customType, e.content, e.display) : null;',
			},
		],
		tests: ["test/pi-races/export-hidden-context.test.ts"],
	},
	{
		id: "CX05",
		file: "src/runtime/factory.ts",
		description:
			"the runtime factory builds services (context files, skills, settings) once and hands them to every later session (oh-my-pi#8663: /new serves the AGENTS.md read at startup)",
		edits: [
			{
				find: "\treturn async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {",
				replace:
					"\tlet first: Awaited<ReturnType<typeof createAgentSessionServices>> | undefined;\n\treturn async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {",
			},
			{
				find: "\t\tconst services = await createAgentSessionServices({",
				replace: "\t\tconst services = first ?? (first = await createAgentSessionServices({",
			},
			{
				find: "\t\t});\n\t\t// A bare id several providers serve",
				replace: "\t\t}));\n\t\t// A bare id several providers serve",
			},
		],
		tests: ["test/pi-races/new-session-context-files.test.ts"],
	},
	{
		id: "CY01",
		file: "src/extensions/loader.ts",
		description: "a tool or flag a later extension registers under a taken name is ignored without a word",
		edits: [
			{
				find: "for (const conflict of registrationConflicts(runtime.extensions)) {",
				replace: "for (const conflict of registrationConflicts([])) {",
			},
		],
		tests: ["test/cli/extension-conflicts.test.ts"],
	},
	{
		id: "CY02",
		file: "src/extensions/loader.ts",
		description: "two extensions registering the same flag are not reported",
		edits: [{ find: '["Flag", "--", extension.flags.keys()],', replace: '["Flag", "--", [].values()],' }],
		tests: ["test/cli/extension-conflicts.test.ts"],
	},
	{
		id: "CY03",
		file: "src/extensions/loader.ts",
		description: "a tool or flag conflict names the later extension as the one that keeps the name",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'message: `${kind} "${prefix}${name}" conflicts with ${owner}',
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: 'message: `${kind} "${prefix}${name}" conflicts with ${extension.path}',
			},
		],
		tests: ["test/cli/extension-conflicts.test.ts"],
	},
	{
		id: "CY04",
		file: "src/extensions/loader.ts",
		description: "a factory that throws is reported without the line of the extension's file",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "${errorMessage(error)}${thrownAtText(error, record.resolvedPath ?? record.path)}",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "${errorMessage(error)}",
			},
		],
		tests: ["test/cli/extension-error-lines.test.ts"],
	},
	{
		id: "CY05",
		file: "src/cli/print-mode.ts",
		description: "a command's error looks for the line in 'command:<name>' instead of its extension's file",
		edits: [
			{
				find: "const at = thrownAt(error.stack, file);",
				replace: "const at = thrownAt(error.stack, error.extensionPath);",
			},
		],
		tests: ["test/cli/extension-error-lines.test.ts"],
	},
	{
		id: "CY06",
		file: "src/extensions/thrown-at.ts",
		description: "the place an extension threw from names the column instead of the line",
		edits: [{ find: "position.line}`", replace: "position.column}`" }],
		tests: ["test/cli/extension-error-lines.test.ts"],
	},
	{
		id: "CY07",
		file: "src/resources/extensions.ts",
		description: "a module without a default factory no longer says which exports it gave",
		edits: [
			{
				find: 'const names = Object.keys(exported).filter((name) => name !== "__esModule");',
				replace: "const names: string[] = [];",
			},
		],
		tests: ["test/cli/extension-error-lines.test.ts", "test/resources/extensions.test.ts"],
	},
	{
		id: "DC01",
		file: "src/session/operation-actors.ts",
		description:
			"a before_agent_start system prompt ends with the operation's first run (oh-my-pi#7755: the retried request goes out on the base prompt)",
		edits: [
			{
				find: "\t\ts.beforeRun();\n\t\treturn s.agent.continue();",
				replace: "\t\ts.beforeRun();\n\t\ts.scratch.forcedSystemPrompt = undefined;\n\t\treturn s.agent.continue();",
			},
		],
		tests: ["test/pi-races/pi-peer.test.ts"],
	},
	{
		id: "DC02",
		file: "src/rpc/client.ts",
		description:
			"RpcClient handles the lines after a response at once: `await prompt(); await waitForIdle()` misses an idle event in the same chunk (pi#8965)",
		edits: [{ find: "\t\t\tif (answered) {", replace: "\t\t\tif (answered && false) {" }],
		tests: ["test/rpc/rpc-client-peers.test.ts"],
	},
	{
		id: "DC03",
		file: "src/rpc/client.ts",
		description:
			"RpcClient closes (rejecting waiters) before the lines it already read are handled: an idle event read with the end of stdout is lost",
		edits: [
			{
				find: "\t\tif (this.linesPaused) this.afterLines.push(callback);\n\t\telse callback();",
				replace: "\t\tcallback();",
			},
		],
		tests: ["test/rpc/rpc-client-peers.test.ts"],
	},
	{
		id: "CZ01",
		file: "src/tools/edit-diff.ts",
		description:
			"pi#9697: occurrences counted past each match (as pi's split): an oldText matching overlapping blocks replaces the first",
		edits: [
			{
				find: "; i = haystack.indexOf(needle, i + 1)) {\n\t\tcount++;",
				replace: "; i = haystack.indexOf(needle, i + needle.length)) {\n\t\tcount++;",
			},
		],
		tests: ["test/pi-races/edit-tool.test.ts"],
	},
	{
		id: "CZ02",
		file: "src/resources/prompt-templates.ts",
		description: "pi#4553: a line break no longer separates template arguments: the word after it is glued to $1",
		edits: [
			{
				find: '} else if (char === " " || char === "\\t" || char === "\\n" || char === "\\r") {',
				replace: '} else if (char === " " || char === "\\t") {',
			},
		],
		tests: ["test/pi-races/prompt-templates.test.ts", "test/resources/prompt-templates.property.test.ts"],
	},
	{
		id: "CZ03",
		file: "src/settings/settings-manager.ts",
		description:
			"pi#7572: settings layers merge one level deep again: a project's retry.provider replaces the global one",
		edits: [
			{
				find: "isPlainObject(value) && isPlainObject(current) ? mergeObjects(current, value) : value",
				replace: "isPlainObject(value) && isPlainObject(current) ? { ...current, ...value } : value",
			},
		],
		tests: ["test/pi-races/settings-merge.test.ts"],
	},
	{
		id: "DC04",
		file: "src/resources/prompt-templates.ts",
		description:
			"`$ARGUMENTS` and the `$@` slices join the arguments with spaces only: a multi-line text after a template name loses its lines (pi#4553 fix's side effect)",
		edits: [
			{
				find: 'joined += (joiners?.[i - 1] ?? " ") + args[i];',
				replace: 'joined += " " + args[i];',
			},
		],
		tests: ["test/pi-races/prompt-templates.test.ts"],
	},
	{
		id: "DC05",
		file: "src/resources/prompt-templates.ts",
		description: "a template's name ends only at a space again: `/fix`, a new line, then the text is sent unexpanded",
		edits: [{ find: "const space = text.search(/\\s/);", replace: 'const space = text.indexOf(" ");' }],
		tests: ["test/pi-races/prompt-templates.test.ts", "test/resources/pi-differential.property.test.ts"],
	},
	{
		id: "DC06",
		file: "src/extensions/runner.ts",
		description:
			"an extension command's name ends only at a space again: `/deploy`, a new line, then its arguments is no command",
		edits: [{ find: "const space = text.search(/\\s/);", replace: 'const space = text.indexOf(" ");' }],
		tests: ["test/extensions/api.test.ts"],
	},
	{
		id: "DD01",
		file: "src/cli/main.ts",
		description: "a stdin pipe that stays open and silent is a silent wait again, as in pi (pi#7593)",
		edits: [{ find: "}, STDIN_SILENCE_NOTICE_MS);", replace: "}, 2_000_000_000);" }],
		tests: ["test/cli/stdin.test.ts"],
	},
	{
		id: "DD02",
		file: "src/cli/main.ts",
		description: "a writer that sent text and keeps the pipe open is told stdin is silent",
		edits: [{ find: "\t\t\tclearTimeout(notice);\n\t\t\tchunks.push", replace: "\t\t\tchunks.push" }],
		tests: ["test/cli/stdin.test.ts"],
	},
	{
		id: "DD04",
		file: "src/compaction/branch-summary.ts",
		description:
			"branch summaries leave the abandoned branch's tool results out again, as pi 0.73.1: a fact read from a file never reaches the summary (oh-my-pi#4011)",
		edits: [{ find: "\ttoolResults = true,\n", replace: "\ttoolResults = false,\n" }],
		tests: ["test/compaction/branch-summary.test.ts", "test/pi-races/pi-peer.test.ts"],
	},
	{
		id: "DD05",
		file: "src/compaction/branch-summary.ts",
		description:
			"a long tool result counts with its whole length against the branch-summary budget, though the request carries 2,000 characters of it",
		edits: [
			{
				find: 'message.role === "toolResult" ? Math.min(estimate(message), TOOL_RESULT_TOKENS) : estimate(message);',
				replace: "estimate(message);",
			},
		],
		tests: ["test/compaction/branch-summary.test.ts"],
	},
	{
		id: "DD06",
		file: "src/extensions/pi-compat-compaction.ts",
		description: "pi-compat's prepareBranchEntries keeps tool results: no longer pi's answer",
		edits: [
			{
				find: "prepareSettleBranchEntries(entries, tokenBudget, estimateTokens, false)",
				replace: "prepareSettleBranchEntries(entries, tokenBudget, estimateTokens)",
			},
		],
		tests: ["test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "DD07",
		file: "src/extensions/pi-compat-compaction.ts",
		description: "pi-compat's generateBranchSummary sends the tool results pi leaves out",
		edits: [{ find: "\t\t\ttoolResults: false,\n", replace: "" }],
		tests: ["test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "DE01",
		file: "src/agent/agent-loop.ts",
		description:
			"a parallel batch's abort signal keeps Node's limit of 10 listeners: eleven calls print a MaxListenersExceededWarning into the user's terminal",
		edits: [{ find: "\t\tsetMaxListeners(0, controller.signal);\n", replace: "" }],
		tests: ["test/pi-races/cli-tool-runs.test.ts"],
	},
	{
		id: "DE02",
		file: "src/llm/errors.ts",
		description:
			'an HTTP/2 stream error ("h2 protocol error: …") is fatal again: the run fails at once, unretried (pi-msg#80)',
		edits: [{ find: "\t/\\bh2 protocol error\\b/i,\n", replace: "" }],
		tests: ["test/pi-races/retry-errors.test.ts"],
	},
	{
		id: "DE03",
		file: "src/llm/errors.ts",
		description:
			'a body cut mid-stream ("error reading a body from connection") is fatal again: the run fails at once, unretried (pi-msg#80)',
		edits: [{ find: "\t/error reading a body from connection/i,\n", replace: "" }],
		tests: ["test/pi-races/retry-errors.test.ts"],
	},
	{
		id: "DE04",
		file: "src/llm/errors.ts",
		description: 'a gateway\'s "upstream_error: Upstream request failed" is fatal again: unretried (oh-my-pi#2056)',
		edits: [{ find: "\t/upstream request failed/i,\n", replace: "" }],
		tests: ["test/pi-races/retry-errors.test.ts"],
	},
	{
		id: "DE05",
		file: "src/llm/errors.ts",
		description: '"fail to touch upstream" is fatal again: unretried (pi#9585)',
		edits: [{ find: "\t/fail(?:ed)? to touch upstream/i,\n", replace: "" }],
		tests: ["test/pi-races/retry-errors.test.ts"],
	},
	{
		id: "DE06",
		file: "src/llm/errors.ts",
		description: 'openai-codex\'s bare "Sorry, something went wrong" is fatal again: unretried (pi#8138)',
		edits: [{ find: "\t/^sorry, something went wrong\\.?$/i,\n", replace: "" }],
		tests: ["test/pi-races/retry-errors.test.ts"],
	},
	{
		id: "DE07",
		file: "src/llm/errors.ts",
		description:
			'"Sorry, something went wrong" matched anywhere in the text: a longer message that contains it is retried',
		edits: [{ find: "\t/^sorry, something went wrong\\.?$/i,\n", replace: "\t/sorry, something went wrong/i,\n" }],
		tests: ["test/pi-races/retry-errors.test.ts"],
	},
	{
		id: "DE08",
		file: "src/agent/agent.ts",
		description:
			"the run's abort signal (extensions' ctx.signal) keeps Node's limit of 10 listeners: eleven handlers waiting on it print a MaxListenersExceededWarning",
		edits: [{ find: "\t\tsetMaxListeners(0, controller.signal);\n", replace: "" }],
		tests: ["test/pi-races/cli-tool-runs.test.ts"],
	},
	{
		id: "DG01",
		file: "src/testing/harness.ts",
		description:
			"`h.cleanup()` leaves a pending `h.nextEvent(type)` waiting: the disposed session emits nothing, so the test ends as a bare timeout (testkit2)",
		edits: [{ find: "for (const waiter of [...eventWaiters]) waiter();", replace: "" }],
		tests: ["test/testing/harness-next-event-cleanup.test.ts"],
	},
	{
		id: "DG02",
		file: "src/testing/harness.ts",
		description:
			"`h.nextEvent(type)` called after `h.cleanup()` waits forever instead of rejecting with SESSION_CLOSED (testkit2)",
		edits: [{ find: "if (cleaned || session.isDisposed) {", replace: "if (false) {" }],
		tests: ["test/testing/harness-next-event-cleanup.test.ts"],
	},
	{
		id: "DG03",
		file: "src/extensions/runner.ts",
		description:
			"the runner no longer records which extension's `tool_call` handler threw: the harness's violation says `a tool_call handler` instead of `<inline:N>` (testkit2)",
		edits: [{ find: "toolCallFailures.set(rejection, entry.extension.path);", replace: "" }],
		tests: ["test/testing/harness-violations-tool-call-throw.test.ts"],
	},
	{
		id: "DG04",
		file: "src/testing/harness-invariants.ts",
		description:
			"`harnessViolations` drops where an extension handler threw (its stack's first frame): the line to look at is gone from the failure (testkit2)",
		edits: [{ find: "const at = throwSite(error.stack);", replace: "const at = undefined as string | undefined;" }],
		tests: ["test/testing/harness-violations-tool-call-throw.test.ts", "test/testing/harness-violations.test.ts"],
	},
	{
		id: "DG05",
		file: "src/testing/transcript.ts",
		description: "`h.transcript(run)` no longer marks where each action fired (testkit2)",
		edits: [
			{ find: "const marks = actionsAt.get(index);", replace: "const marks = undefined as string[] | undefined;" },
		],
		tests: ["test/testing/harness-transcript.test.ts"],
	},
	{
		id: "DG06",
		file: "src/testing/transcript.ts",
		description:
			"`h.transcript()` numbers events in a run by their overall index, not as `sessionEventViolations` does (`run 2: #9`) (testkit2)",
		edits: [
			{
				find: "const runIndex = agentEvent && inRun >= 0 ? inRun++ : undefined;",
				replace: "const runIndex = agentEvent && inRun >= 0 ? index : undefined;",
			},
		],
		tests: ["test/testing/harness-transcript.test.ts"],
	},
	{
		id: "DG07",
		file: "src/testing/harness-invariants.ts",
		description:
			"`harnessViolations(h)` after `h.cleanup()` on a disk harness returns `[]` again: the deleted session file's reopen check passes by not running (testkit2)",
		edits: [{ find: "else if (file !== undefined && session.isDisposed) {", replace: "else if (false) {" }],
		tests: ["test/testing/harness-violations-after-cleanup.test.ts"],
	},
	{
		id: "DG08",
		file: "src/testing/harness-invariants.ts",
		description:
			"the reopen violation prints the session file's temp path again: it differs on every replay of a failing seed, and cleanup has deleted it (testkit2)",
		edits: [
			{
				find: "`reopened session file: context",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "`reopened ${file}: context",
			},
		],
		tests: ["test/testing/harness-violations.test.ts"],
	},
	{
		id: "DG09",
		file: "src/testing/harness.ts",
		description:
			"`h.settle`'s stall error no longer says the model request waits for its reply (a scheduledFauxResponses reply the fc.scheduler never released): it blames tools again (testkit2)",
		edits: [{ find: "const awaited = faux.callCount > replies;", replace: "const awaited = false;" }],
		tests: ["test/testing/harness-hang-scheduled-reply.test.ts"],
	},
	{
		id: "DG10",
		file: "src/testing/actions.ts",
		description:
			"`h.transcript(run)` marks an action as many lines too early as there were events before `applyActionsOnEvents` began counting (testkit2)",
		edits: [{ find: "const firstEvent = harness.events?.length ?? 0;", replace: "const firstEvent = 0;" }],
		tests: ["test/testing/harness-transcript.test.ts"],
	},
	{
		id: "DD08",
		file: "src/testing/harness.ts",
		description:
			"a tool_call handler that throws a string gets a throw site again: the runner's own line, which points away from the extension",
		edits: [
			{ find: "const thrownValue = wrapsNonError ? error.cause : error;", replace: "const thrownValue = error;" },
		],
		tests: ["test/testing/harness-violations-tool-call-throw.test.ts"],
	},
	{
		id: "DH01",
		file: "src/resources/context-files.ts",
		description:
			"context files told apart by the path they were reached by: an AGENTS.md symlinked to the global one is sent twice (pi#8116, pi#5648)",
		edits: [{ find: "\t\treturn realpathSync(path);\n", replace: "\t\treturn path;\n" }],
		tests: ["test/pi-races/context-files.test.ts"],
	},
	{
		id: "DH02",
		file: "src/resources/discovery.ts",
		description:
			"the skills scan walks a folder again each time a link leads to it: two links back to the skills folder never end (AgentTeams#262)",
		edits: [
			{
				after: "export function collectSkillFiles",
				find: "\t\tif (!firstVisit(visited, current)) return;\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/skills-folders.test.ts"],
	},
	{
		id: "DF01",
		file: "src/cli/trace.ts",
		description:
			"--trace naming the session's own file, not written yet (checkTracePath refuses an existing one), is no longer refused before the run: the model is called and the trace is refused only at exit (exit 1)",
		edits: [{ find: "if (sessionFile !== undefined && sameFile(sessionFile, file)) {", replace: "if (false) {" }],
		tests: ["test/cli/trace.test.ts"],
	},
	{
		id: "DF02",
		file: "src/cli/trace.ts",
		description:
			"saving the trace no longer checks the sessions the run switched to: it is renamed over a session's file",
		edits: [{ find: "if (session) throw new CliError(", replace: "if (false) throw new CliError(" }],
		tests: ["test/cli/trace.test.ts"],
	},
	{
		id: "DF03",
		file: "src/inspect/trace-viewer.ts",
		description:
			"the viewer no longer accepts a dragged file: a file dropped on it gets no word (a browser that opens dropped files leaves the page)",
		edits: [
			{
				find: 'document.addEventListener("dragover", (e) => { if (carriesFiles(e)) e.preventDefault(); });',
				replace: 'document.addEventListener("dragover", (e) => {});',
			},
		],
		tests: ["test/cli/trace-viewer.test.ts", "test/cli/inspect.test.ts"],
	},
	{
		id: "DF04",
		file: "src/inspect/trace-viewer.ts",
		description: "an empty file dropped on the viewer is called invalid JSON (cut short) instead of empty",
		edits: [{ find: 'if (file.size === 0) return "an empty file, not a trace.";', replace: "" }],
		tests: ["test/cli/trace-viewer.test.ts"],
	},
	{
		id: "DF05",
		file: "src/cli/args.ts",
		description:
			"--export with --trace or --inspect is accepted again: the export runs, exit 0, and no trace is written, nothing served",
		edits: [{ find: " || result.export !== undefined;", replace: ";" }],
		tests: ["test/cli/trace.test.ts"],
	},
	{
		id: "DF06",
		file: "src/inspect/trace-viewer.ts",
		description:
			"the viewers' panes keep the height left under a one-line header: a wrapped header (the live page's ended status) pushes them below the window",
		edits: [{ find: ";height:100vh;display:flex;flex-direction:column}", replace: "}" }],
		tests: ["test/cli/inspect.test.ts"],
	},
	{
		id: "DF07",
		file: "src/inspect/live-page.ts",
		description:
			"the live page has no place for the dropped-file note: a file dropped on it gets no word (a browser that opens dropped files leaves the live view)",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "${DROP_NOTE_HTML}${tabs}</header>",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "${tabs}</header>",
			},
		],
		tests: ["test/cli/inspect.test.ts"],
	},
	{
		id: "DI01",
		file: "src/cli/host.ts",
		description:
			"the command named for resuming another project's session gives its id again, which the pasted command looks up where --session-dir did not point (pi#8048)",
		edits: [
			{
				after: "resumeElsewhere: (other) =>",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "--session ${shellWord(other.path)}`,",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "--session ${other.id}`,",
			},
		],
		tests: ["test/pi-races/resume-hint.test.ts", "test/cli/session-arg.test.ts", "test/cli/session-prefix-pi.test.ts"],
	},
	{
		id: "DI02",
		file: "src/cli/host.ts",
		description:
			"a quoted `~` in --session-dir is taken literally again: sessions go to a folder named ~ in the project (pi#3514)",
		edits: [{ find: "? resolve(expandHome(args.sessionDir))", replace: "? resolve(args.sessionDir)" }],
		tests: ["test/pi-races/session-dir-tilde.test.ts"],
	},
	{
		id: "DL01",
		file: "src/cli/trace.ts",
		description:
			"--trace onto an existing file that is not a Settle trace (--trace package.json) is accepted again: the trace replaces it at exit",
		edits: [{ find: "if (!isSettleTrace(text)) {", replace: "if (false) {" }],
		tests: ["test/cli/trace.test.ts"],
	},
	{
		id: "DL02",
		file: "src/cli/host.ts",
		description:
			"SETTLE_SESSION_DIR is ignored: sessions go to the sessionDir setting or the agent folder's, and -c / --session / --rpc look there",
		edits: [
			{
				find: "const envSessionDir = process.env[SESSION_DIR_ENV]?.trim() || undefined;",
				replace: "const envSessionDir = undefined as string | undefined;",
			},
		],
		tests: ["test/cli/session-dir-env.test.ts"],
	},
	{
		id: "DL03",
		file: "src/cli/host.ts",
		description: "a `~` in SETTLE_SESSION_DIR is taken literally: sessions go to a folder named ~ in the project",
		edits: [{ find: "? resolve(expandHome(envSessionDir))", replace: "? resolve(envSessionDir)" }],
		tests: ["test/cli/session-dir-env.test.ts"],
	},
	{
		id: "DL04",
		file: "src/cli/host.ts",
		description: "SETTLE_SESSION_DIR beats --session-dir (pi: the flag wins)",
		edits: [
			{
				find: "const chosenSessionDir = args.sessionDir\n",
				replace: "const chosenSessionDir = !envSessionDir && args.sessionDir\n",
			},
		],
		tests: ["test/cli/session-dir-env.test.ts"],
	},
	{
		id: "DL05",
		file: "src/cli/host.ts",
		description: "the sessionDir setting beats SETTLE_SESSION_DIR (pi: the variable wins)",
		edits: [{ find: "\t\t: envSessionDir\n", replace: "\t\t: !settings.getSessionDir() && envSessionDir\n" }],
		tests: ["test/cli/session-dir-env.test.ts"],
	},
	{
		id: "DK01",
		file: "src/cli/host.ts",
		description:
			"-c passes over a newer session file whose header line does not parse without a word again, resuming an older session or starting a new one (oh-my-pi#9915)",
		edits: [{ find: 'warnings.push({ type: "warning", message: passedOverWarning(file) });', replace: "void file;" }],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "DK02",
		file: "src/store/discovery.ts",
		description:
			"every unreadable file in the session folder is named on each -c, also one older than the session resumed (oh-my-pi#9915)",
		edits: [{ find: "(afterMs === undefined || stats.mtimeMs > afterMs)", replace: "true" }],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "DO01",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p with compaction.enabled false prints a bare overflow error again, without saying compaction is off (pi#6472)",
		edits: [
			{
				find: "\t\t\t\tcompactionOffHint(runtime.session, last) ??\n",
				replace: "",
			},
		],
		tests: ["test/cli/overflow-unanswered.test.ts"],
	},
	{
		id: "DO02",
		file: "src/cli/print-mode.ts",
		description: "the compaction-off hint follows every failed answer, also one that is not an overflow",
		edits: [{ find: "if (!isContextOverflow(last, session.model?.contextWindow)) return undefined;", replace: "" }],
		tests: ["test/cli/overflow-unanswered.test.ts"],
	},
	{
		id: "DO03",
		file: "src/cli/main.ts",
		description: "a binary @file argument is decoded as text again and its NUL bytes go to the model (pi#5289)",
		edits: [{ find: "if (looksBinary(decodedFrom ? Buffer.from(text) : bytes))", replace: "if (false as boolean)" }],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "DM01",
		file: "src/compaction/chunks.ts",
		description:
			"a span larger than the summarizer's window goes out in one request again, which the provider rejects before it is split (openclaw#10423)",
		edits: [
			{
				find: "if (!summaryRequestFits(promptText, options.maxTokens, options.model)) return summarizeInChunks(messages, options);",
				replace: "",
			},
		],
		tests: ["test/compaction/summary-chunks.test.ts", "test/compaction/summary-chunks.property.test.ts"],
	},
	{
		id: "DM02",
		file: "src/compaction/summarize.ts",
		description:
			"a split turn's later chunks do not ask to update the running summary: the prefix summary keeps only the last chunk (openclaw#10423)",
		edits: [
			{
				find: "withCustomInstructions(TURN_PREFIX_UPDATE_PROMPT, options.customInstructions)",
				replace: "withCustomInstructions(TURN_PREFIX_PROMPT, options.customInstructions)",
			},
		],
		tests: ["test/compaction/summary-chunks.test.ts"],
	},
	{
		id: "DM03",
		file: "src/compaction/chunks.ts",
		description: "the fit check leaves no room for the summary's answer budget: requests overflow the window",
		edits: [
			{
				find: "SUMMARIZATION_SYSTEM_PROMPT.length + promptText.length) / 4) + maxTokens <= model.contextWindow",
				replace: "SUMMARIZATION_SYSTEM_PROMPT.length + promptText.length) / 4) <= model.contextWindow",
			},
		],
		tests: ["test/compaction/summary-chunks.test.ts", "test/compaction/summary-chunks.property.test.ts"],
	},
	{
		id: "DM04",
		file: "src/compaction/chunks.ts",
		description: "a chunk takes one message more than fits (the check ignores the message being added)",
		edits: [
			{ find: "if (added > 0 && chars + added > budgetChars) {", replace: "if (added > 0 && chars > budgetChars) {" },
		],
		tests: ["test/compaction/summary-chunks.test.ts", "test/compaction/summary-chunks.property.test.ts"],
	},
	{
		id: "DM05",
		file: "src/compaction/chunks.ts",
		description: "a single message larger than the window is sent whole instead of cut: its request overflows",
		edits: [{ find: "parts.push(cutToFit(text, budgetChars));", replace: "parts.push(text);" }],
		tests: ["test/compaction/summary-chunks.test.ts", "test/compaction/summary-chunks.property.test.ts"],
	},
	{
		id: "DM06",
		file: "src/compaction/chunks.ts",
		description:
			"each chunk is summarized on its own (no running summary): the final summary forgets the earlier chunks",
		edits: [{ find: "previous = answer.text;", replace: "void answer.text;" }],
		tests: ["test/compaction/summary-chunks.test.ts", "test/compaction/summary-chunks.property.test.ts"],
	},
	{
		id: "DM07",
		file: "src/compaction/chunks.ts",
		description: "the next chunk starts one message late: a message of the span never reaches the summarizer",
		edits: [{ find: "start = chunk.end;", replace: "start = chunk.end + 1;" }],
		tests: ["test/compaction/summary-chunks.test.ts", "test/compaction/summary-chunks.property.test.ts"],
	},
	{
		id: "DM08",
		file: "src/compaction/chunks.ts",
		description:
			"a running summary that leaves almost no room is sent with a sliver of conversation instead of failing with what to change",
		edits: [
			{
				find: "if (budgetChars < MIN_CHUNK_CHARS) throw windowTooSmall(",
				replace: "if (budgetChars < 0) throw windowTooSmall(",
			},
		],
		tests: ["test/compaction/summary-chunks.test.ts"],
	},

	{
		id: "DJ01",
		file: "src/tools/edit.ts",
		description:
			"edit decodes a file that is not valid UTF-8 with replacement characters again: an ASCII edit to a Windows-1252 file reports success and rewrites every accented byte as U+FFFD (pi#5797)",
		edits: [
			{
				find: '"utf-8": new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })',
				replace: '"utf-8": new TextDecoder("utf-8", { fatal: false, ignoreBOM: true })',
			},
		],
		tests: ["test/pi-races/edit-tool.test.ts"],
	},
	{
		id: "DJ02",
		file: "src/tools/read.ts",
		description:
			"read decodes a binary file as text again: a .ods (a ZIP) reaches the model as NUL bytes and U+FFFD noise (pi#5289)",
		edits: [{ find: "return buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0);", replace: "return false;" }],
		tests: ["test/pi-races/read-tool.test.ts", "test/tools/read-broken-image-headers.test.ts"],
	},
	{
		id: "DJ03",
		file: "src/tools/edit-diff.ts",
		description:
			"edit rewrites the untouched text between replacements with LF breaks again: editing `c` in `a\\r\\nb\\nc` changes the bytes of line 1 (pi#8544)",
		edits: [
			{
				find: "append(original.slice(cursor, from));",
				replace: "append(normalizeToLF(original.slice(cursor, from)));",
			},
		],
		tests: ["test/pi-races/edit-tool.test.ts"],
	},
	{
		id: "DJ04",
		file: "src/tools/edit-diff.ts",
		description:
			"a lone CR left right before an inserted or uncovered LF merges with it into one CRLF break: two lines become one (pi#8544)",
		edits: [{ find: 'if (out.endsWith("\\r") && piece.startsWith("\\n"))', replace: "if (false)" }],
		tests: ["test/pi-races/edit-tool.test.ts"],
	},
	{
		id: "DN01",
		file: "src/llm/model-runtime.ts",
		description:
			"newer pi's `max` thinking level clamps to the model's lowest level (off) as pi 0.73.1, not its highest",
		edits: [
			{
				find: '(level as string) === "max" ? THINKING_LEVELS.length : THINKING_LEVELS.indexOf(level)',
				replace: "THINKING_LEVELS.indexOf(level)",
			},
		],
		tests: ["test/pi-races/models.test.ts", "test/pi-races/pi-peer.test.ts"],
	},
	{
		id: "DN02",
		file: "src/cli/interactive-commands.ts",
		description: "settle -i's /model no longer reads models.json again: a model added while the chat runs is not found",
		edits: [{ find: "\tregistry.refresh?.();\n", replace: "" }],
		tests: ["test/pi-races/models-cli.test.ts"],
	},
	{
		id: "DN03",
		file: "src/runtime/auth-storage.ts",
		description: "auth.json's pi `!command` key is used as the API key (its text sent to the provider) again",
		edits: [{ find: '\t\tif (key.startsWith("!")) return undefined;\n', replace: "" }],
		tests: ["test/pi-races/models-cli.test.ts"],
	},
	{
		id: "DP01",
		file: "src/compaction/chunks.ts",
		description:
			"pi's one summary request rejected as too long (the provider counts more tokens than chars/4) fails the compaction again instead of being split in halves (summchunk2)",
		edits: [
			{
				find: "if (!isOverflowRejection(error) || halfSpan < MIN_CHUNK_CHARS) throw error;",
				replace: "throw error;",
			},
		],
		tests: ["test/compaction/summary-chunks-dense.test.ts", "test/compaction/summary-chunks.property.test.ts"],
	},
	{
		id: "DP02",
		file: "src/compaction/chunks.ts",
		description: "a chunk rejected as too long fails the compaction instead of being split in halves (summchunk2)",
		edits: [
			{ find: "if (!isOverflowRejection(error) || half < MIN_CHUNK_CHARS) throw error;", replace: "throw error;" },
		],
		tests: ["test/compaction/summary-chunks-dense.test.ts", "test/compaction/summary-chunks.property.test.ts"],
	},
	{
		id: "DP03",
		file: "src/compaction/chunks.ts",
		description:
			"a rejected chunk keeps shrinking below the minimum: more requests than the bound before the compaction gives up (summchunk2)",
		edits: [
			{
				find: "if (!isOverflowRejection(error) || half < MIN_CHUNK_CHARS) throw error;",
				replace: "if (!isOverflowRejection(error) || half < 1) throw error;",
			},
		],
		tests: ["test/compaction/summary-chunks-dense.test.ts"],
	},
	{
		id: "DP04",
		file: "src/compaction/chunks.ts",
		description:
			"the halved limit is not applied: a rejected chunk is sent again unchanged until the provider gives up (summchunk2)",
		edits: [
			{
				find: "nextSummaryChunk(texts, start, Math.min(budgetChars, limit));",
				replace: "nextSummaryChunk(texts, start, budgetChars);",
			},
		],
		tests: ["test/compaction/summary-chunks-dense.test.ts", "test/compaction/summary-chunks.property.test.ts"],
	},
	{
		id: "DP05",
		file: "src/compaction/chunks.ts",
		description:
			"every provider error of a summary request is taken for an overflow: a request the provider refuses for another reason is resent in halves (summchunk2)",
		edits: [
			{
				find: 'if (typeof providerText === "string") return isOverflowErrorText(providerText);',
				replace: 'if (typeof providerText === "string") return true;',
			},
		],
		tests: ["test/compaction/summary-chunks-dense.test.ts"],
	},

	{
		id: "DP07",
		file: "src/compaction/chunks.ts",
		description:
			"the chunks after a rejection drop the running summary: the summary forgets what the accepted chunks said (summchunk2)",
		edits: [
			{
				find: "\t\t\tlimit = half;\n\t\t\tcontinue;",
				replace: "\t\t\tlimit = half;\n\t\t\tprevious = undefined;\n\t\t\tcontinue;",
			},
		],
		tests: ["test/compaction/summary-chunks-dense.test.ts", "test/compaction/summary-chunks.property.test.ts"],
	},
	{
		id: "DQ01",
		file: "src/store/entry-index.ts",
		description:
			"the running cumulative total is no longer added to as entries are read or appended: cumulative stays zero (gsd-2#1423)",
		edits: [{ find: "\t\t\taddUsageTotals(this.cumulative, billedUsage(entry));\n", replace: "" }],
		tests: [
			"test/session/session-stats-cumulative.test.ts",
			"test/session/session-stats-cumulative.property.test.ts",
			"test/cli/session-stats.test.ts",
		],
	},
	{
		id: "DQ02",
		file: "src/store/entry-index.ts",
		description: "assistant answers no longer count in cumulative: the money spent on them is lost (gsd-2#1423)",
		edits: [
			{
				find: 'return message.role === "assistant" || message.role === "toolResult" ? message.usage : undefined;',
				replace: 'return message.role === "toolResult" ? message.usage : undefined;',
			},
		],
		tests: [
			"test/session/session-stats-cumulative.test.ts",
			"test/session/session-stats-cumulative.property.test.ts",
			"test/cli/session-stats.test.ts",
		],
	},
	{
		id: "DQ03",
		file: "src/store/entry-index.ts",
		description: "the summarizer calls of compactions and branch summaries no longer count in cumulative (gsd-2#1423)",
		edits: [
			{
				find: '\t\tcase "usage":\n\t\tcase "compaction":\n\t\tcase "branch_summary":\n',
				replace: '\t\tcase "usage":\n',
			},
		],
		tests: [
			"test/session/session-stats-cumulative.test.ts",
			"test/session/session-stats-cumulative.property.test.ts",
			"test/cli/session-stats.test.ts",
		],
	},
	{
		id: "DQ04",
		file: "src/store/entry-index.ts",
		description: "cumulative total tokens leave out cache reads and writes",
		edits: [
			{
				find: "totals.tokens.total += input + output + cacheRead + cacheWrite;",
				replace: "totals.tokens.total += input + output;",
			},
		],
		tests: ["test/session/session-stats-cumulative.property.test.ts", "test/cli/session-stats.test.ts"],
	},
	{
		id: "DQ05",
		file: "src/store/session-manager.ts",
		description:
			"getCumulativeUsage hands out the live running total: a stats snapshot taken before a compaction changes with it",
		edits: [{ find: "return { tokens: { ...tokens }, cost };", replace: "return this.index.cumulative;" }],
		tests: ["test/session/session-stats-cumulative.test.ts"],
	},
	{
		id: "DQ06",
		file: "src/session/session-stats.ts",
		description: "computeSessionStats without a running total no longer sums the entries: cumulative reads zero",
		edits: [
			{
				find: "if (!info.cumulative) addUsageTotals(stats.cumulative, billedUsage(entry));",
				replace: "if (false as boolean) addUsageTotals(stats.cumulative, billedUsage(entry));",
			},
		],
		tests: ["test/session/session-stats-cumulative.property.test.ts"],
	},
	{
		id: "DQ07",
		file: "src/cli/interactive-commands.ts",
		description: "/session no longer prints what the session file has spent in all",
		edits: [
			{
				find: `host.print(\`  spent: \${dollars(spent.cost)}`,
				replace: `void spent;\n\tvoid (\`  spent: \${dollars(spent.cost)}`,
			},
		],
		tests: ["test/cli/session-stats.test.ts"],
	},
	{
		id: "DT01",
		file: "src/agent/tool-result-check.ts",
		description: "a result without content but with a stray field ({ output }) passes as an empty result (pi#9761)",
		edits: [
			{
				find: "if (others.length === 0) return undefined;",
				replace: "return undefined;",
			},
		],
		tests: ["test/pi-races/extension-api.test.ts"],
	},
	{
		id: "DT02",
		file: "src/cli/interactive-mode.ts",
		description: "settle -i starts without warning about a command a built-in shadows (pi#1196)",
		edits: [
			{
				find: "for (const command of shadowedCommands(runtime.session.getCommands())) {",
				replace: "for (const command of shadowedCommands([])) {",
			},
		],
		tests: ["test/pi-races/cli-extension-commands.test.ts"],
	},
	{
		id: "DT03",
		file: "src/cli/interactive-commands.ts",
		description: "/help lists an extension command a built-in shadows (pi#1196)",
		edits: [
			{
				find: '.filter((command) => !BY_NAME.has(command.name) && (skillCommands || command.source !== "skill"));',
				replace: '.filter((command) => skillCommands || command.source !== "skill");',
			},
		],
		tests: ["test/pi-races/cli-extension-commands.test.ts"],
	},
	{
		id: "DT04",
		file: "src/cli/interactive-commands.ts",
		description: "/reload does not warn about a command a built-in shadows (pi#1196)",
		edits: [
			{
				find: "for (const command of shadowedCommands(session.getCommands())) host.warn(",
				replace: "for (const command of shadowedCommands([])) host.warn(",
			},
		],
		tests: ["test/pi-races/cli-extension-commands.test.ts"],
	},
	{
		id: "DT05",
		file: "src/extensions/runner.ts",
		description:
			"a write method on ctx.sessionManager is a bare TypeError again, saying nothing of what to call (pi#1781)",
		edits: [
			{
				find: "!(property in target) && property in SESSION_WRITE_ADVICE",
				replace: "!(property in target) && false",
			},
		],
		tests: ["test/pi-races/extension-api.test.ts", "test/extensions/api.test.ts"],
	},
	{
		id: "DY01",
		file: "src/tools/shell.ts",
		description:
			"a shell killed by a signal reports no exit code again: the bash call no longer says exit code 137, a ! command records none (pi#9577)",
		edits: [
			{
				find: "return { exitCode: exitCode ?? signalExitCode(child.signalCode) };",
				replace: "return { exitCode };",
			},
		],
		tests: ["test/pi-races/bash-streams.test.ts", "test/pi-races/pi-peer.test.ts"],
	},
	{
		id: "DY02",
		file: "src/tools/bash.ts",
		description:
			"bash operations that report exitCode null (killed by a signal) resolve as a success with the partial output again (pi#9577)",
		edits: [
			{
				find: 'if (exitCode === null) throw new SettleError("TOOL", withStatus(text, "Command was killed by a signal"));',
				replace: 'if (exitCode === null) return { content: [{ type: "text", text }], details };',
			},
		],
		tests: ["test/pi-races/bash-streams.test.ts"],
	},
	{
		id: "DY03",
		file: "src/tools/shell.ts",
		description:
			"stdout and stderr share one UTF-8 holder again: a character split across stdout reads is decoded around a stderr chunk as U+FFFD (opencode#36655)",
		edits: [{ find: "const stderr = wholeCharacters(onData);", replace: "const stderr = stdout;" }],
		tests: ["test/pi-races/bash-streams.test.ts"],
	},
	{
		id: "DY04",
		file: "src/tools/shell.ts",
		description:
			"a stream's incomplete UTF-8 sequence at a read's end is passed on at once again: split by a stderr chunk, it becomes U+FFFD (pi#433)",
		edits: [
			{
				find: "return data.length - i < length ? i : data.length;",
				replace: "return data.length;",
			},
		],
		tests: ["test/pi-races/bash-streams.test.ts"],
	},
	{
		id: "DV01",
		file: "src/cli/args.ts",
		description:
			"--cwd <link> keeps the link's path again: a second session folder, -c from the link does not find its session (oh-my-pi#941)",
		edits: [{ find: "\t\treturn realpathSync(path);", replace: "\t\treturn path;" }],
		tests: ["test/pi-races/startup.test.ts"],
	},
	{
		id: "DS01",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p prints only the last answer's text again: an empty final answer after a tool call loses the report the model wrote with that call (pi#8094)",
		edits: [{ find: "if (text) return text;", replace: "return text || undefined;" }],
		tests: ["test/pi-races/output-modes.test.ts"],
	},
	{
		id: "DS02",
		file: "src/cli/print-mode.ts",
		description: "settle -p exits 0 without a word when no answer of the run holds text (pi#8094)",
		edits: [
			{
				find: 'else if (!text) out.stderr("Warning: the model\'s answer holds no text; nothing to print.\\n");',
				replace: "",
			},
		],
		tests: ["test/pi-races/output-modes.test.ts"],
	},
	{
		id: "DS03",
		file: "src/session/agent-session.ts",
		description:
			"a custom message sent without triggerTurn from an agent_end handler is steered into a new run again: an extension that sends one at every agent_end makes settle -p call the model forever (pi#9379)",
		edits: [{ find: "(options.triggerTurn === undefined && runOver)", replace: "false" }],
		tests: ["test/pi-races/output-modes.test.ts"],
	},
	{
		id: "DS04",
		file: "src/session/event-bridge.ts",
		description:
			"the run is never marked over at agent_end: its handlers' triggerless custom messages steer a new run (pi#9379)",
		edits: [{ find: "\t\t\ts.scratch.runEnded = true;", replace: "" }],
		tests: ["test/pi-races/output-modes.test.ts"],
	},
	{
		id: "DW01",
		file: "src/cli/host.ts",
		description:
			"settle -nc / --no-context-files loads AGENTS.md again: the flag is parsed but not handed to the resource loader (piflags)",
		edits: [{ find: "...(args.noContextFiles ? { noContextFiles: true } : {}),", replace: "" }],
		tests: ["test/cli/pi-startup-flags.test.ts"],
	},
	{
		id: "DW02",
		file: "src/cli/host.ts",
		description:
			"settle -ns / --no-skills lists the project's skills again: the flag is parsed but not handed to the resource loader (piflags)",
		edits: [{ find: "...(args.noSkills ? { noSkills: true } : {}),", replace: "" }],
		tests: ["test/cli/pi-startup-flags.test.ts"],
	},
	{
		id: "DW03",
		file: "src/cli/host.ts",
		description:
			"settle -np / --no-prompt-templates expands /templates again: the flag is parsed but not handed to the resource loader (piflags)",
		edits: [{ find: "...(args.noPromptTemplates ? { noPromptTemplates: true } : {}),", replace: "" }],
		tests: ["test/cli/pi-startup-flags.test.ts"],
	},
	{
		id: "DW04",
		file: "src/cli/host.ts",
		description:
			"settle --system-prompt <text|file> is ignored: the default (or SYSTEM.md) base prompt is sent (piflags)",
		edits: [{ find: "...(args.systemPrompt !== undefined ? { systemPrompt: args.systemPrompt } : {}),", replace: "" }],
		tests: ["test/cli/pi-startup-flags.test.ts"],
	},
	{
		id: "DW05",
		file: "src/cli/host.ts",
		description: "settle --append-system-prompt <text|file> is ignored: APPEND_SYSTEM.md is appended instead (piflags)",
		edits: [
			{
				find: "...(args.appendSystemPrompt.length > 0 ? { appendSystemPrompt: args.appendSystemPrompt } : {}),",
				replace: "",
			},
		],
		tests: ["test/cli/pi-startup-flags.test.ts"],
	},
	{
		id: "DW06",
		file: "src/cli/args.ts",
		description: "settle --offline is an unknown option again (exit 2), so a pi script using it fails (piflags)",
		edits: [{ find: 'case "--offline":\n\t\t\t\tresult.offline = true;\n\t\t\t\tcontinue;', replace: "" }],
		tests: ["test/cli/pi-startup-flags.test.ts", "test/cli/pi-differential-args.property.test.ts"],
	},
	{
		id: "EB01",
		file: "src/cli/rpc-mode.ts",
		description:
			"an RPC line that is an object with an id but no string type is refused without its id again (pi#4901)",
		edits: [{ find: 'write(failure(requestIdOf(parsed), "parse",', replace: 'write(failure(undefined, "parse",' }],
		tests: ["test/pi-races/rpc-protocol.test.ts"],
	},
	{
		id: "EC01",
		file: "src/session/prompt-pipeline.ts",
		description:
			"a turn after /tree back past a thinking level change no longer records the live level on the new branch, so resuming it comes back on the old level (pi#3544)",
		edits: [
			{
				find: "if (s.sessionManager.getBranchThinkingLevel() !== level) s.sessionManager.appendThinkingLevelChange(level);",
				replace: "",
			},
		],
		tests: ["test/pi-races/session-tree.test.ts"],
	},
	{
		id: "EC02",
		file: "src/session/tree-navigation.ts",
		description:
			"a navigation that makes the branch disagree with the live thinking level no longer notes it, so the next turn records nothing and a resume comes back on the old level (pi#3544)",
		edits: [
			{
				find: "s.transcript.thinkingLevelUnrecorded = disagrees && (s.transcript.thinkingLevelUnrecorded || levelBefore === live);",
				replace: "s.transcript.thinkingLevelUnrecorded = false;",
			},
		],
		tests: ["test/pi-races/session-tree.test.ts"],
	},
	{
		id: "EA01",
		file: "src/cli/host.ts",
		description:
			"--provider is parsed but not applied: --provider two --model coder looks up the bare id coder, in any provider (piflags3)",
		edits: [
			{
				find: "if (args.model === undefined || args.provider === undefined) return args.model;",
				replace: "return args.model;",
			},
		],
		tests: ["test/cli/pi-provider-flags.test.ts"],
	},
	{
		id: "EA02",
		file: "src/runtime/factory.ts",
		description:
			"--api-key is parsed but not given to the model runtime: requests carry auth.json's or the environment's key (piflags3)",
		edits: [
			{
				find: "if (options.apiKey !== undefined) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/cli/pi-provider-flags.test.ts"],
	},
	{
		id: "EA03",
		file: "src/cli/host.ts",
		description:
			"--fork is parsed but ignored: settle starts a new, empty session instead of a copy of the named one (piflags3)",
		edits: [
			{
				find: "if (args.fork !== undefined) {\n\t\t\t// As pi:",
				replace: "if (args.fork !== undefined && args.noSession) {\n\t\t\t// As pi:",
			},
		],
		tests: ["test/cli/pi-fork-flag.test.ts"],
	},
	{
		id: "DZ01",
		file: "src/cli/host.ts",
		description:
			"settle --skill <path> loads nothing: the paths are parsed but not handed to the resource loader (piflags2)",
		edits: [
			{
				find: "...(args.skills.length > 0 ? { additionalSkillPaths: fromStartupDir(args.skills) } : {}),",
				replace: "",
			},
		],
		tests: ["test/cli/pi-resource-flags.test.ts"],
	},
	{
		id: "DZ02",
		file: "src/cli/host.ts",
		description:
			"settle --prompt-template <path> loads nothing: the paths are parsed but not handed to the resource loader (piflags2)",
		edits: [
			{
				find: "? { additionalPromptTemplatePaths: fromStartupDir(args.promptTemplates) }",
				replace: "? {}",
			},
		],
		tests: ["test/cli/pi-resource-flags.test.ts"],
	},
	{
		id: "DZ03",
		file: "src/cli/host.ts",
		description:
			"settle -nbt / --no-builtin-tools keeps the built-in tools: the flag is parsed but not handed to the runtime factory (piflags2)",
		edits: [{ find: 'args.noBuiltinTools ? { noTools: "builtin" as const } : {}', replace: "{}" }],
		tests: ["test/cli/pi-resource-flags.test.ts"],
	},
	{
		id: "DZ04",
		file: "src/cli/main.ts",
		description:
			"settle -i --verbose stays quiet under the quietStartup setting: the flag is parsed but not handed to the chat (piflags2)",
		edits: [{ find: "\t\t\t\t\t\t\tverbose: args.verbose,\n", replace: "" }],
		tests: ["test/cli/pi-resource-flags.test.ts"],
	},
	{
		id: "DZ05",
		file: "src/cli/host.ts",
		description:
			"settle --rpc --prompt-template <relative path>, then switch_session to another project's session: the path is resolved against that project and the template is lost (pi resolves CLI paths once, at start-up) (piflags2)",
		edits: [{ find: "paths.map((path) => resolve(cwd, expandHome(path)))", replace: "paths.map((path) => path)" }],
		tests: ["test/cli/pi-resource-flags.test.ts"],
	},
	{
		id: "ED01",
		file: "src/cli/host.ts",
		description:
			"settle --rpc -e <relative path>, then switch_session to another project's session: the extension path is resolved against that project and its commands and tools are gone (pi resolves CLI paths once, at start-up)",
		edits: [
			{
				find: "additionalExtensionPaths: fromStartupDir(args.extensions)",
				replace: "additionalExtensionPaths: args.extensions",
			},
		],
		tests: ["test/cli/pi-resource-flags.test.ts"],
	},
	{
		id: "EH01",
		file: "src/cli/interactive-mode.ts",
		description:
			"settle -i binds the first session's extensions before it listens to stdin: a question asked in session_start never gets the typed answer and the chat hangs before its first prompt (pi#2035)",
		edits: [
			{
				find: "\truntime.setRebindSession(bind);\n",
				replace: "\truntime.setRebindSession(bind);\n\tawait bind(runtime.session);\n",
			},
			{
				find: "\t\tawait bind(runtime.session);\n\t\tclearTimeout(startGrace);\n",
				replace: "\t\tclearTimeout(startGrace);\n",
			},
		],
		tests: ["test/pi-races/interactive-chat.test.ts"],
	},
	{
		id: "EH02",
		file: "src/cli/interactive-mode.ts",
		description:
			"settle -i sends a typed `!command` to the model as a prompt instead of running it in the shell (agegr/pi-web#174)",
		edits: [
			{
				find: "\t\tif (bash) {\n\t\t\tawait runUserBash(",
				replace: "\t\tif (bash && false) {\n\t\t\tawait runUserBash(",
			},
		],
		tests: ["test/pi-races/interactive-chat.test.ts"],
	},
	{
		id: "EH03",
		file: "src/cli/interactive-mode.ts",
		description: "settle -i runs `!!command` as `!command`: its output joins the model's context",
		edits: [
			{
				find: "await target.executeBash(command, printLines, { excludeFromContext });",
				replace: "await target.executeBash(command, printLines, {});",
			},
		],
		tests: ["test/pi-races/interactive-chat.test.ts"],
	},
	{
		id: "EH04",
		file: "src/cli/interactive-ui.ts",
		description:
			"settle -i prints an extension's notification, select title and options as given: their escape sequences reach the terminal (xing-shuyin/pi-web-ui#16)",
		edits: [
			{
				find: "const print = (line: string, kind?: InteractiveLineKind) => printLine(safe(line), kind);",
				replace: "const print = (line: string, kind?: InteractiveLineKind) => printLine(line, kind);",
			},
		],
		tests: ["test/pi-races/interactive-chat.test.ts"],
	},
	{
		id: "EH05",
		file: "src/cli/interactive-ui.ts",
		description:
			"settle -i shows an extension's question (confirm, input, select's prompt) with its escape sequences raw",
		edits: [
			{
				find: "questions.ask(safe(text), opts);",
				replace: "questions.ask(text, opts);",
			},
		],
		tests: ["test/pi-races/interactive-chat.test.ts"],
	},
	{
		id: "EF01",
		file: "src/cli/host.ts",
		description:
			"settle --cwd <link> -c no longer looks in the link-named session folder: a session saved there before --cwd was resolved through symlinks (oh-my-pi#941) is not continued, a new one starts",
		edits: [
			{
				find: "const linked = linkFolder ? await findLatestActiveSession(linkFolder.sessionDir, linkFolder.cwd) : null;",
				replace: "const linked: { path: string; modified: Date } | null = null;",
			},
		],
		tests: ["test/cli/cwd-symlink.test.ts"],
	},
	{
		id: "EF02",
		file: "src/cli/session-lookup.ts",
		description:
			"settle --cwd <link> --session <id-prefix> does not look in the link-named session folder: the session saved there is reported as another project's (oh-my-pi#941 follow-up)",
		edits: [
			{
				find: "const link = lookup.linkFolder;\n\tif (!link) return own;",
				replace: "const link = lookup.linkFolder;\n\tif (link || !link) return own;",
			},
		],
		tests: ["test/cli/cwd-symlink.test.ts"],
	},
	{
		id: "EF03",
		file: "src/cli/host.ts",
		description:
			"with --session-dir (or SETTLE_SESSION_DIR, a sessionDir setting), settle --cwd <link> -c still continues a session of the link-named default folder instead of keeping to the folder chosen",
		edits: [
			{
				find: "const linkFolder = chosenSessionDir === undefined ? linkNamedSessionFolder(args, cwd, agentDir) : undefined;",
				replace: "const linkFolder = linkNamedSessionFolder(args, cwd, agentDir);",
			},
		],
		tests: ["test/cli/cwd-symlink.test.ts"],
	},
	{
		id: "EF04",
		file: "src/cli/session-picker.ts",
		description:
			"/resume in settle --cwd <link> -i lists only the real path's folder: the sessions saved under the link path before --cwd was resolved (oh-my-pi#941) are not shown",
		edits: [
			{
				find: "...(linkFolder ? await listCwdSessions(linkFolder.sessionDir, linkFolder.cwd, false) : []),",
				replace: "...[],",
			},
		],
		tests: ["test/cli/cwd-symlink.test.ts"],
	},
	{
		id: "EF05",
		file: "src/cli/interactive-commands.ts",
		description:
			"/resume of a link-named folder's session switches to the link path as the project (its header's cwd): the next /resume no longer lists it as this project's",
		edits: [
			{
				find: "cwdOverride: linkFolder.project,",
				replace: "",
			},
		],
		tests: ["test/cli/cwd-symlink.test.ts"],
	},
	{
		id: "EF06",
		file: "src/cli/interactive-commands.ts",
		description:
			"after /resume of a link-named folder's session (oh-my-pi#941), /resume looks in that session's folder instead of the real path's: the project's own sessions are no longer listed",
		edits: [
			{
				find: "linkFolder && resolve(current) === linkFolder.sessionDir",
				replace: "linkFolder && resolve(current) === linkFolder.sessionDir && false",
			},
		],
		tests: ["test/cli/cwd-symlink.test.ts"],
	},
	{
		id: "EE01",
		file: "src/cli/args.ts",
		description:
			"settle --models big:high,small: the patterns are one pattern (not split on commas as pi does), so nothing matches and there is no scope",
		edits: [
			{
				find: 'result.models = value.split(",").map((pattern) => pattern.trim());',
				replace: "result.models = [value];",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts", "test/cli/pi-differential-args.property.test.ts"],
	},
	{
		id: "EE02",
		file: "src/cli/host.ts",
		description:
			"settle --models big,small: the patterns never reach the runtime factory, so cycle_model goes through every model and the session starts on the default one",
		edits: [
			{
				find: "...(args.models ? { models: args.models } : {}),",
				replace: "...({}),",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts"],
	},
	{
		id: "EE03",
		file: "src/cli/host.ts",
		description:
			"the enabledModels setting is read by nothing again: without --models, cycle_model goes through every model",
		edits: [
			{
				find: "enabledModelsSetting: true,",
				replace: "enabledModelsSetting: false,",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts"],
	},
	{
		id: "EE04",
		file: "src/runtime/factory.ts",
		description:
			"--models without --model: a new session starts on the settings' default model instead of the scope's (pi starts on the first scoped one, with its :thinking)",
		edits: [
			{
				find: "sessionManager.buildSessionContext().messages.length === 0;",
				replace: "false;",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts"],
	},
	{
		id: "EE05",
		file: "src/runtime/factory.ts",
		description:
			"--models is resolved but the session never gets the scope: cycle_model goes through every available model",
		edits: [
			{
				find: "...(scopedModels.length > 0 ? { scopedModels } : {}),",
				replace: "...(options.scopedModels ? { scopedModels: options.scopedModels } : {}),",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts"],
	},
	{
		id: "EE06",
		file: "src/runtime/factory.ts",
		description: "--models nope,...: pi's warning for a pattern matching nothing is dropped",
		edits: [
			{
				find: "diagnostics: [...services.diagnostics, ...warnings]",
				replace: "diagnostics: [...services.diagnostics]",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts"],
	},
	{
		id: "EE07",
		file: "src/runtime/model-scope.ts",
		description:
			"--models big:high: the :thinking suffix finds the model but its level is dropped, so the session does not start (or cycle) at high",
		edits: [
			{
				find: "return inner.warning ? inner : { model: inner.model, thinkingLevel: suffix };",
				replace: "return inner;",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts"],
	},
	{
		id: "EE08",
		file: "src/runtime/model-scope.ts",
		description:
			"--models big,small with defaultModel small in settings: the session starts on big (pi starts on the saved default when it is in the scope)",
		edits: [
			{
				find: "return saved ?? scopedModels[0];",
				replace: "return scopedModels[0];",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts"],
	},
	{
		id: "EE09",
		file: "src/cli/interactive-commands.ts",
		description:
			"settle -i --models small,big: /model lists and picks among every available model, not the scope (pi's /model offers the scoped ones)",
		edits: [
			{
				find: "const available = scoped.length > 0 ? scoped : runtime.services.modelRuntime.getAvailable();",
				replace: "const available = runtime.services.modelRuntime.getAvailable();",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts"],
	},
	{
		id: "EE10",
		file: "src/cli/interactive-mode.ts",
		description:
			"settle -i --models small,big:high: the start-up banner does not say the model scope (pi prints Model scope: ...)",
		edits: [
			{
				find: "if (scope.length > 0) printer.line(",
				replace: "if (scope.length < 0) printer.line(",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts"],
	},
	{
		id: "EE11",
		file: "src/cli/host.ts",
		description:
			"settle --models small --api-key k -p hi: refused as --api-key without a model, where pi takes the scope's start model",
		edits: [
			{
				find: "args.apiKey !== undefined && !args.model && !args.models",
				replace: "args.apiKey !== undefined && !args.model",
			},
		],
		tests: ["test/cli/pi-models-flag.test.ts"],
	},
	{
		id: "EG01",
		file: "src/agent/agent-loop.ts",
		description:
			"a tool call whose streamed arguments were cut off (the body ended without finish_reason) runs with the salvaged prefix: a truncated shell command executes (pi#6284)",
		edits: [
			{
				find: 'if (block?.type === "toolCall" && !isCompleteJson(text)) this.malformedCalls.add(block.id);',
				replace: 'if (block?.type === "toolCall" && !isCompleteJson(text)) void block.id;',
			},
		],
		tests: ["test/pi-races/providers.test.ts"],
	},
	{
		id: "EG02",
		file: "src/llm/provider-env.ts",
		description:
			'a models.json `"apiKey": "$MY_KEY"` is sent as the literal `$MY_KEY` (a 401), not the variable\'s value (pi#9258)',
		edits: [
			{
				find: "return process.env[environmentName(value)] || value;",
				replace: "return process.env[value] || value;",
			},
		],
		tests: ["test/pi-races/providers.test.ts"],
	},
	{
		id: "EG03",
		file: "src/agent/agent-loop.ts",
		description:
			'a tool call whose streamed arguments are `null` is saved and replayed as `null` (every later request sends `"arguments": "null"` / `input: null`) (pi#8386)',
		edits: [
			{
				find: "return { ...block, arguments: {} };",
				replace: "return block;",
			},
		],
		tests: ["test/pi-races/providers.test.ts"],
	},
	{
		id: "EI01",
		file: "src/llm/errors.ts",
		description:
			"a `length` stop below the output cap is taken for a full context even when its input and the cap fit the window: a session at 11% of a 1M window is compacted (pi#9793, pi#8130)",
		edits: [
			{
				find: "if (input === 0 || !(window > 0) || input + cap > window) return true;",
				replace: "return true;",
			},
		],
		tests: ["test/pi-races/compaction-window.test.ts", "test/llm/wire/anthropic-errors.test.ts"],
	},
	{
		id: "EJ01",
		file: "src/runtime/targets.ts",
		description:
			"a switch ignores the sessionDir it is given: `settle --cwd <link> -i`, `/resume` of a session in the link-named folder, then `/new` saves the new session in the link-named folder, not the real path's (oh-my-pi#941 follow-up)",
		edits: [
			{
				find: "SessionManager.open(file, sessionDir, cwdOverride ??",
				replace: "SessionManager.open(file, undefined, cwdOverride ??",
			},
		],
		tests: ["test/cli/cwd-symlink.test.ts"],
	},
	{
		id: "EJ02",
		file: "src/runtime/auth-storage.ts",
		description:
			"an auth.json key written `$NAME` (or braced) is sent as it stands (`Bearer $NAME`, a 401) instead of the variable's value, unlike models.json's `apiKey` (pi#9258)",
		edits: [
			{
				find: "return resolveConfiguredValue(key);",
				replace: 'return key.startsWith("$") ? key : resolveConfiguredValue(key);',
			},
		],
		tests: ["test/pi-races/providers.test.ts"],
	},
	{
		id: "EJ03",
		file: "src/runtime/factory.ts",
		description:
			"`settle --api-key K --models <patterns> -c` on a session that has messages fails (exit 2, apiKey needs a model) instead of giving the key to the model the session resumes on",
		edits: [
			{
				find: "model ?? resumedModel(services.modelRuntime, sessionManager)",
				replace: "model",
			},
		],
		tests: ["test/cli/pi-provider-flags.test.ts"],
	},
	{
		id: "EK01",
		file: "src/cli/args.ts",
		description: "pi's `-r` is not parsed: `settle -r` is refused as an unknown option (piflags5)",
		edits: [{ find: '\t\t\tcase "--resume":\n\t\t\tcase "-r":\n', replace: '\t\t\tcase "--resume":\n' }],
		tests: ["test/cli/pi-resume-flag.test.ts", "test/cli/pi-differential-args.property.test.ts"],
	},
	{
		id: "EK02",
		file: "src/cli/main.ts",
		description: "`settle -i -r` is accepted but the chat never asks which session to continue (piflags5)",
		edits: [
			{
				find: 'const chatInput = mode === "interactive" && args.resume ? new ChatInput() : undefined;',
				replace: "const chatInput = undefined;",
			},
		],
		tests: ["test/cli/pi-resume-flag.test.ts"],
	},
	{
		id: "EK03",
		file: "src/cli/main.ts",
		description: "`settle -r -p …` runs the prompt in a new session, as if -r were not given (piflags5)",
		edits: [{ find: 'if (args.resume && mode !== "interactive") {', replace: 'if (args.resume && mode === "rpc") {' }],
		tests: ["test/cli/pi-resume-flag.test.ts"],
	},
	{
		id: "EK04",
		file: "src/cli/chat-input.ts",
		description:
			"lines piped to `settle -i -r` before its question is asked are not its answers: the question sees the end of input (piflags5)",
		edits: [{ find: "const early = this.unread.shift();", replace: "const early = undefined;" }],
		tests: ["test/cli/pi-resume-flag.test.ts"],
	},
	{
		id: "EK05",
		file: "src/cli/session-picker.ts",
		description: "the start-up picker's numbers are off by one: `2` resumes the newest session (piflags5)",
		edits: [{ find: "shown[Number(choice) - 1]", replace: "shown[Number(choice) - 2]" }],
		tests: ["test/cli/pi-resume-flag.test.ts"],
	},
	{
		id: "EK06",
		file: "src/cli/session-picker.ts",
		description: "`settle -r` with no saved session in any project asks anyway, over an empty list (piflags5)",
		edits: [
			{
				find: '\t\tif (others === 0) {\n\t\t\tout.print("Starting a new session.");\n\t\t\treturn "new";\n\t\t}\n',
				replace: "",
			},
		],
		tests: ["test/cli/pi-resume-flag.test.ts"],
	},
	{
		id: "EN01",
		file: "src/cli/rpc-mode.ts",
		description:
			"`settle --rpc` run by an embedder whose stdin already ended waits on the line reader for an end that came before it: a stall, exit 1 (pi#8587, races35)",
		edits: [
			{
				find: 'for await (const line of state === "ended" ? [] : lines) {',
				replace: "for await (const line of lines) {",
			},
		],
		tests: ["test/pi-races/queue-rpc.test.ts"],
	},
	{
		id: "EN02",
		file: "src/cli/main.ts",
		description:
			"a destroyed stdin is read anyway: `settle -p` says only `Premature close` instead of what happened and what to do (pi#8587, races35)",
		edits: [{ find: 'if (state === "destroyed") throw destroyedStdinError("the piped prompt");', replace: "" }],
		tests: ["test/pi-races/queue-rpc.test.ts"],
	},
	{
		id: "EN03",
		file: "src/cli/rpc-mode.ts",
		description:
			"`settle --rpc` with a destroyed stdin waits on the line reader forever: a stall instead of the error (pi#8587, races35)",
		edits: [{ find: 'if (state === "destroyed") throw destroyedStdinError("RPC commands");', replace: "" }],
		tests: ["test/pi-races/queue-rpc.test.ts"],
	},
	{
		id: "EO01",
		file: "src/cli/args.ts",
		description: "pi's `--theme <name|path>` is not an option again: an unknown one (exit 2)",
		edits: [{ find: '\t"--prompt-template",\n\t"--theme",\n]);', replace: '\t"--prompt-template",\n]);' }],
		tests: ["test/cli/pi-startup-flags.test.ts", "test/cli/pi-differential-args.property.test.ts"],
	},
	{
		id: "EO02",
		file: "src/cli/main.ts",
		description: "`settle -i --theme …` runs without the note that its chat has no themes",
		edits: [{ find: "if (args.themes.length > 0 || args.noThemes) out.stderr(", replace: "if (false) out.stderr(" }],
		tests: ["test/cli/pi-startup-flags.test.ts"],
	},
	{
		id: "EO03",
		file: "src/runtime/auth-storage.ts",
		description:
			"an auth.json key names an environment variable only in upper case (or `$NAME`), not as pi's resolveConfigValue",
		edits: [
			{
				find: "return resolveConfiguredValue(key);",
				replace: "return /^\\$/.test(key) || /^[A-Z_][A-Z0-9_]*$/.test(key) ? resolveConfiguredValue(key) : key;",
			},
		],
		tests: ["test/pi-races/providers.test.ts"],
	},
	{
		id: "EO04",
		file: "src/runtime/sdk.ts",
		description:
			"`--provider TWO --model cod` is not found again: no case-insensitive provider, no pi matching inside it",
		edits: [{ find: "\t\tif (matched) return matched;\n", replace: "" }],
		tests: ["test/cli/pi-provider-flags.test.ts"],
	},
	{
		id: "EM01",
		file: "src/tools/read-window.ts",
		description:
			'read counts the break that ends a file as one more line again: a 10-line file says "6 more lines" after line 5 and reads offset 11 as an empty line (pi#7329)',
		edits: [
			{
				find: "const unterminated = this.lineBytes > 0 || (this.lineIndex === 0 && !this.stopped);",
				replace: "const unterminated = this.lineBytes > 0 || !this.stopped;",
			},
		],
		tests: [
			"test/pi-races/builtin-tools.test.ts",
			"test/tools/pi-compat.test.ts",
			"test/tools/pi-differential.property.test.ts",
		],
	},
	{
		id: "EM02",
		file: "src/tools/read.ts",
		description:
			"read drops the file's final line break from a window that reaches the end: a whole-file read no longer shows the file's bytes (pi#7329 fix)",
		edits: [
			{
				find: "return reply(end === totalLines && window.endsWithBreak ? ",
				replace: "return reply(false ? ",
			},
		],
		tests: ["test/pi-races/builtin-tools.test.ts", "test/tools/read.test.ts"],
	},
	{
		id: "EM03",
		file: "src/tools/ls.ts",
		description:
			'ls leaves out an entry it cannot stat again: a dangling symlink vanishes, a folder holding only one is "(empty directory)" (pi#7977)',
		edits: [
			{
				find: 'it, and called a folder of such entries "(empty directory)").\n',
				replace: 'it, and called a folder of such entries "(empty directory)").\n\t\t\t\t\t\tcontinue;\n',
			},
		],
		tests: ["test/pi-races/builtin-tools.test.ts"],
	},
	{
		id: "EM04",
		file: "src/tools/grep.ts",
		description:
			"grep prints each match's context window whole again: overlapping windows repeat lines, 5 lines shown as 11 (pi#7971)",
		edits: [{ find: "match.lineNumber - contextLines, shownUpTo + 1);", replace: "match.lineNumber - contextLines);" }],
		tests: ["test/pi-races/builtin-tools.test.ts", "test/tools/pi-differential-search.property.test.ts"],
	},
	{
		id: "EM05",
		file: "src/tools/grep.ts",
		description:
			"grep marks a match that falls inside an earlier match's context window as context (`-3-`), not as a match (pi#7971)",
		edits: [{ find: "\t\t\t\tmatchedLines.has(", replace: "\t\t\t\tn === match.lineNumber && matchedLines.has(" }],
		tests: ["test/pi-races/builtin-tools.test.ts"],
	},
	{
		id: "EL01",
		file: "src/extensions/runtime.ts",
		description:
			'pi.registerFlag() accepts a default of the other type: a boolean flag\'s default "false" reads as a truthy string (pi#8064, races33)',
		edits: [
			{
				find: "if (options.default !== undefined && typeof options.default !== options.type) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/pi-races/extension-loading.test.ts"],
	},
	{
		id: "EL02",
		file: "src/tools/registry.ts",
		description:
			"with an allowlist, every tool refresh activates each allowed tool again, one an extension turned off among them (pi#7406, races33)",
		edits: [
			{
				find: "if (allowlist.has(name) && !previous?.has(name)) next.push(name);",
				replace: "if (allowlist.has(name)) next.push(name);",
			},
		],
		tests: ["test/pi-races/extension-loading.test.ts", "test/tools/registry.property.test.ts"],
	},
	{
		id: "EL03",
		file: "src/cli/main.ts",
		description:
			"the CLI does not guard extension errors nothing caught: an extension's throwing timer ends the process (oh-my-pi#5664, races33)",
		edits: [
			{
				find: "const releaseErrors = out === processOutput ? guardExtensionErrors(runtime) : () => {};",
				replace: "const releaseErrors = () => {};",
			},
		],
		tests: ["test/pi-races/extension-loading.test.ts"],
	},
	{
		id: "EL04",
		file: "src/extensions/runner.ts",
		description:
			"reportUncaught finds no extension in a stack: every uncaught extension error ends the process (oh-my-pi#5664, races33)",
		edits: [
			{
				find: "if (owner === undefined) return false;",
				replace: "if (owner !== null) return false;",
			},
		],
		tests: ["test/pi-races/extension-loading.test.ts"],
	},
	{
		id: "EL05",
		file: "src/extensions/runtime.ts",
		description: 'pi.getFlag("--name") looks up the name with its dashes: always undefined (pi#3614, races33)',
		edits: [
			{
				find: 'const key = typeof name === "string" ? name.replace(/^--/, "") : name;',
				replace: "const key = name;",
			},
		],
		tests: ["test/pi-races/extension-loading.test.ts"],
	},
	{
		id: "EL06",
		file: "src/extensions/runner.ts",
		description:
			"ctx.sessionManager hands out the session's own entries: a tool's assignment rewrites what the model is sent (pi#9824, races33)",
		edits: [
			{
				find: "view[method] = ENTRY_METHODS.has(method) ? (...args: unknown[]) => readonlyEntries(call(...args)) : call;",
				replace: "view[method] = call;",
			},
		],
		tests: ["test/pi-races/extension-loading.test.ts"],
	},
	{
		id: "ER01",
		file: "src/resources/skills.ts",
		description:
			'a skill whose front matter does not open the file gets pi\'s bare "description is required", without where the block is (bigpowers#108)',
		edits: [{ find: "descriptionErrors.length > 0 ? misplacedFrontmatterLine(raw) : undefined", replace: "undefined" }],
		tests: ["test/pi-races/settings-resources.test.ts"],
	},
	{
		id: "ER02",
		file: "src/resources/frontmatter.ts",
		description:
			"any `---` line below the first is taken for misplaced front matter, also a horizontal rule in a skill without one (bigpowers#108)",
		edits: [{ find: "if (/^description\\s*:/.test(line)) return start + 1;", replace: "return start + 1;" }],
		tests: ["test/pi-races/settings-resources.test.ts"],
	},
	{
		id: "ES01",
		file: "src/llm/errors.ts",
		description:
			"a 429 body's `retry_after_seconds` is not read as the provider's requested delay: the session retries on its backoff inside the cool-down (pi#7134)",
		edits: [{ find: '/retry[-_]after(?:_seconds)?"?', replace: '/retry[-_]after"?' }],
		tests: ["test/pi-races/provider-wire.test.ts", "test/recovery/errors.test.ts"],
	},
	{
		id: "EQ01",
		file: "src/cli/session-lookup.ts",
		description:
			"`settle --session` / `--fork` / `/resume` with a session file's name (`<timestamp>_<id>`) looks for the id in it (kooky#37)",
		edits: [
			{
				find: "const named = matches.length === 0 ? idOfSessionFileName(given) : undefined;",
				replace: "const named = undefined;",
			},
		],
		tests: ["test/pi-races/session-files.test.ts"],
	},
	{
		id: "EQ02",
		file: "src/store/discovery.ts",
		description:
			"the listing across projects reads a symlinked folder under <agentDir>/sessions like a real one (pi#7497)",
		edits: [{ find: "e.isDirectory() || e.isSymbolicLink()", replace: "e.isDirectory()" }],
		tests: ["test/pi-races/session-files.test.ts"],
	},
	{
		id: "EQ03",
		file: "src/cli/session-lookup.ts",
		description:
			"`settle --session` / `--fork` / `/resume` with a bare session file name (`….jsonl`) not in the cwd take the project's session folder's file (kooky#37)",
		edits: [{ find: "return existsSync(path) ? path : undefined;", replace: "return undefined;" }],
		tests: ["test/pi-races/session-files.test.ts"],
	},
	{
		id: "EP01",
		file: "src/cli/host.ts",
		description:
			"`settle -i -r` no longer picks before the runtime starts: extensions start on a new session nobody asked for and no question is asked",
		edits: [{ find: "if (args.resume && pickSession) {", replace: "if (false && pickSession) {" }],
		tests: ["test/cli/pi-resume-flag.test.ts"],
	},
	{
		id: "EP02",
		file: "src/cli/chat-input.ts",
		description:
			"lines read with -r's answer (piped all at once) are dropped when the chat takes over the input, not run as prompts",
		edits: [{ find: "lines: this.unread.splice(0),", replace: "lines: this.unread.splice(0, 0)," }],
		tests: ["test/cli/pi-resume-flag.test.ts"],
	},
	{
		id: "EP03",
		file: "src/cli/main.ts",
		description:
			"the session `settle -i -r` picked starts without the `Resumed <id> (n messages): <file>` line /resume prints",
		edits: [{ find: "resumedAtStart: host.resumed === true", replace: "resumedAtStart: false" }],
		tests: ["test/cli/pi-resume-flag.test.ts"],
	},
	{
		id: "ET01",
		file: "src/cli/interactive-commands.ts",
		description:
			"settle -i's /model <ref> splits at the slash again: an id holding one (minimaxai/minimax-m2.5) is not found (openclaw#44498)",
		edits: [
			{
				find: "const match = exactModelMatch(args, available, session.settingsManager.getDefaultProvider());",
				replace:
					'const match = available.find((candidate) => (args.includes("/") ? name(candidate) : candidate.id) === args);',
			},
		],
		tests: ["test/pi-races/interactive-commands.test.ts"],
	},
	{
		id: "ET02",
		file: "src/cli/interactive-mode.ts",
		description: "settle -i sends a bare `/` to the model as a prompt again (pi#5135)",
		edits: [{ find: 'if (line.trim() === "/") {', replace: 'if (line.trim() === "/ never") {' }],
		tests: ["test/pi-races/interactive-commands.test.ts"],
	},
	{
		id: "EU01",
		file: "src/llm/errors.ts",
		description:
			'the bare abort sentinel ("Request was aborted") on an error stop is fatal again: the provider-cut turn is not retried (oh-my-pi#5375)',
		edits: [{ find: "\t/^(?:request|(?:the|this) operation) was aborted\\.?$/i,\n", replace: "" }],
		tests: ["test/pi-races/recovery-paths.test.ts"],
	},
	{
		id: "EU02",
		file: "src/llm/errors.ts",
		description:
			'the abort sentinel matched anywhere in the text: a longer error that only mentions "Request was aborted" is retried (oh-my-pi#5375)',
		edits: [
			{
				find: "\t/^(?:request|(?:the|this) operation) was aborted\\.?$/i,\n",
				replace: "\t/(?:request|(?:the|this) operation) was aborted/i,\n",
			},
		],
		tests: ["test/pi-races/recovery-paths.test.ts"],
	},
	{
		id: "EU03",
		file: "src/session/event-bridge.ts",
		description:
			"the extensions' agent_end leaves out willRetry again: a handler cannot tell a failure Settle retries from a final one (pi#6827)",
		edits: [{ find: "\t\t\t\twillRetry: retrying,\n", replace: "" }],
		tests: ["test/pi-races/recovery-paths.test.ts"],
	},
	{
		id: "EW01",
		file: "src/session/model-registry-view.ts",
		description:
			"a provider-level `compat` in pi.registerProvider() is dropped again; only each model's own applies (pi#5349)",
		edits: [
			{
				find: "...(model.compat || config.compat ? { compat: mergeCompat(config.compat, model.compat) } : {}),",
				replace: "...(model.compat ? { compat: model.compat } : {}),",
			},
		],
		tests: ["test/pi-races/extension-providers.test.ts"],
	},
	{
		id: "EV01",
		file: "src/session/agent-session.ts",
		description:
			"session.dispose() without a runtime tells the extensions nothing: their child processes leak (pi-web#546, pi-subagents#170)",
		edits: [
			{
				find: "if (this.runnerInstance.awaitingShutdown && ",
				replace: "if (false && this.runnerInstance.awaitingShutdown && ",
			},
		],
		tests: ["test/pi-races/sdk-embedding.test.ts"],
	},
	{
		id: "EV02",
		file: "src/extensions/runner.ts",
		description:
			"session.dispose() tells session_shutdown to extensions that never heard session_start (a rolled-back replacement's)",
		edits: [
			{
				find: "return this.started && this.shutdownDispatch === undefined;",
				replace: "return this.shutdownDispatch === undefined;",
			},
		],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "EV03",
		file: "src/llm/tokens.ts",
		description: "a saved partial usage ({ output: 42 }) makes the context tokens NaN (pi#3425)",
		edits: [
			{
				find: 'return typeof value === "number" && Number.isFinite(value) ? value : 0;\n}\n',
				after: "function tokenCount(value: unknown): number {",
				replace: "return value as number;\n}\n",
			},
		],
		tests: ["test/pi-races/sdk-embedding.test.ts"],
	},
	{
		id: "EY01",
		file: "src/llm/tokens.ts",
		description:
			"a `!!` command's output (never sent) counts in the context estimate: it fills the compaction's kept span and the context usage (openclaw#121147)",
		edits: [{ find: "\t\t\tif (message.excludeFromContext) return 0;\n", replace: "" }],
		tests: ["test/pi-races/bash-user-commands.test.ts", "test/compaction/pi-differential.property.test.ts"],
	},
	{
		id: "EY02",
		file: "src/cli/rpc-mode.ts",
		description:
			"RPC `bash` ignores `excludeFromContext`: the output of a command run as `!!` reaches the model (pi#5039)",
		edits: [
			{
				find: "const options = id !== undefined ? { excludeFromContext, id } : { excludeFromContext };",
				replace: "const options = id !== undefined ? { id } : {};",
			},
		],
		tests: ["test/pi-races/bash-user-commands.test.ts"],
	},
	{
		id: "EY03",
		file: "src/session/bash-runner.ts",
		description:
			"a `user_bash` handler's answer is recorded but not streamed: `settle -i` shows nothing for the `!cmd` it answered (oh-my-pi#185)",
		edits: [{ find: "\t\t\t\tthis.stream(result.output, onChunk, options.id);\n", replace: "" }],
		tests: ["test/pi-races/bash-user-commands.test.ts"],
	},
	{
		id: "EZ01",
		file: "src/resources/discovery.ts",
		description:
			'a README.md without front matter directly in a skills folder is read as a skill again: "description is required" at every start (pi#7805)',
		edits: [
			{
				find: 'entry.name.endsWith(".md") &&\n\t\t\t\tdeclaresSkill(entry.path)',
				replace: 'entry.name.endsWith(".md")',
			},
		],
		tests: ["test/pi-races/skills-discovery.test.ts"],
	},
	{
		id: "EZ02",
		file: "src/resources/resource-loader.ts",
		description:
			"the walk up for .agents/skills compares the user's ~/.agents/skills by spelling: with HOME a symlink, the user's skills count as the project's and win (pi#2472)",
		edits: [
			{
				find: "const userReal = userDir === undefined ? undefined : realPath(userDir);",
				replace: "const userReal = userDir === undefined ? undefined : resolve(userDir);",
			},
			{ find: "realPath(candidate) !== userReal", replace: "resolve(candidate) !== userReal" },
		],
		tests: ["test/pi-races/skills-discovery.test.ts"],
	},
	{
		id: "EZ03",
		file: "src/resources/prompt-templates.ts",
		description:
			"an apostrophe inside a template argument opens a quote again: `/review don't touch the user's API` gives $1 `dont touch the users` (openclaw#90468)",
		edits: [{ find: `(char === "'" && current === "")`, replace: `char === "'"` }],
		tests: ["test/pi-races/prompt-templates-arguments.test.ts"],
	},
	{
		id: "EX01",
		file: "src/compaction/summarize.ts",
		description:
			"`/compact <focus>` is left out of a split turn's prefix request: with no history before the turn, no summarizer sees it (pi#9348)",
		edits: [
			{
				find: "const firstInstructions = withCustomInstructions(TURN_PREFIX_PROMPT, options.customInstructions);",
				replace: "const firstInstructions = TURN_PREFIX_PROMPT;",
			},
		],
		tests: [
			"test/pi-races/compaction-manual.test.ts",
			"test/compaction/pi-differential-regressions.test.ts",
			"test/session/compaction.test.ts",
		],
	},
	{
		id: "FA01",
		file: "src/session/agent-session.ts",
		description: "`await session.dispose()` resolves before the extensions' async session_shutdown handlers finish",
		edits: [
			{
				find: "this.shutdownWait = boundedShutdownWait(runner, this.shutdownTimeoutMs, this.clock);",
				replace: "void boundedShutdownWait(runner, this.shutdownTimeoutMs, this.clock);",
			},
		],
		tests: ["test/pi-races/sdk-embedding.test.ts"],
	},
	{
		id: "FA02",
		file: "src/cli/host.ts",
		description:
			"`settle --provider p --model <id p does not list>` exits 2 again instead of sending pi's custom model id",
		edits: [
			{
				find: "model: cliModelSpec(args), customModelIds: true }",
				replace: "model: cliModelSpec(args) }",
			},
		],
		tests: ["test/cli/pi-provider-flags.test.ts"],
	},
	{
		id: "FC01",
		file: "src/session/input-check.ts",
		description:
			'a prompt\'s streamingBehavior other than "steer" / "followUp" is accepted: over RPC, "follow_up" is queued as a steer into the running run',
		edits: [
			{
				find: 'if (value === undefined || value === "steer" || value === "followUp") return undefined;',
				replace: "return undefined;",
			},
		],
		tests: ["test/pi-races/rpc-prompt-options.test.ts"],
	},
	{
		id: "FB01",
		file: "src/export/index.ts",
		description:
			"an export refuses while the session file is not written yet, though the session has messages: a command's message or a `!` command before the first prompt gives 'Nothing to export yet' (pi-subagents#94)",
		edits: [
			{
				find: "if ((file === undefined || !existsSync(file)) && !source.getEntries().some(isExportedMessage)) {",
				replace: "if (file === undefined || !existsSync(file)) {",
			},
		],
		tests: ["test/pi-races/export-before-first-answer.test.ts"],
	},
	{
		id: "FE01",
		file: "src/runtime/model-scope.ts",
		description:
			"pi#6210: a scope pattern that is a model's literal id with brackets (`custom/model[1m]`) is read as a glob again",
		edits: [
			{
				find: "if (literal) {\n\t\t\tadd(literal.model, literal.thinkingLevel);",
				replace: "if (literal && false) {\n\t\t\tadd(literal.model, literal.thinkingLevel);",
			},
		],
		tests: ["test/pi-races/models-json-config.test.ts"],
	},
	{
		id: "FH01",
		file: "src/llm/errors.ts",
		description:
			'pi#9002: OpenRouter\'s `finish_reason: "error"` ("Provider finish_reason: error", the upstream died mid-stream) is no longer retried: the turn dies on the first attempt',
		edits: [{ find: "/\\bfinish_reason: error$/i,", replace: "/\\bfinish_reason: error-never$/i," }],
		tests: ["test/pi-races/retry-stream-ends.test.ts", "test/recovery/errors.test.ts"],
	},
	{
		id: "FF01",
		file: "src/session/model-registry-view.ts",
		description: "pi#2921: a custom model with a built-in model's id is added beside it instead of replacing it",
		edits: [{ find: "if (index >= 0) models[index] = custom;", replace: "if (false) models[index] = custom;" }],
		tests: ["test/pi-races/models-json-config.test.ts"],
	},
	{
		id: "FF02",
		file: "src/session/model-registry-view.ts",
		description:
			"pi#2921: a custom model of a built-in provider without baseUrl/api does not take the built-in model's",
		edits: [
			{
				find: "const defaults = { api: config.api ?? builtIn[0]?.api, baseUrl: config.baseUrl ?? builtIn[0]?.baseUrl };",
				replace: "const defaults = { api: config.api, baseUrl: config.baseUrl };",
			},
		],
		tests: ["test/pi-races/models-json-config.test.ts"],
	},
	{
		id: "FF03",
		file: "src/session/model-registry-view.ts",
		description: "modelOverrides: the contextWindow override is ignored",
		edits: [
			{
				find: "if (override.contextWindow !== undefined) result.contextWindow = override.contextWindow;",
				replace: "",
			},
		],
		tests: ["test/pi-races/models-json-config.test.ts"],
	},
	{
		id: "FF04",
		file: "src/session/model-registry-view.ts",
		description: "modelOverrides: the maxTokens override is ignored",
		edits: [{ find: "if (override.maxTokens !== undefined) result.maxTokens = override.maxTokens;", replace: "" }],
		tests: ["test/pi-races/models-json-config.test.ts"],
	},
	{
		id: "FF05",
		file: "src/session/model-registry-view.ts",
		description: "modelOverrides: an override's headers do not reach the request",
		edits: [{ find: "...(override?.headers ? resolveHeaders(override.headers) : {})", replace: "...{}" }],
		tests: ["test/pi-races/models-json-config.test.ts"],
	},
	{
		id: "FG01",
		file: "src/tools/write.ts",
		description:
			"claude-code#28376: write through a dangling link whose target folder is missing says File not found again (the target's folder is not made)",
		edits: [
			{
				find: "if (dangling !== undefined) await makeFoldersAsync(dirname(dangling));",
				replace: "if (dangling !== undefined) await makeFoldersAsync(dirname(path));",
			},
		],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "FG02",
		file: "src/tools/read.ts",
		description:
			"pi#7523: the sed command read suggests for a line over 50 KB names a path with a space or a quote unquoted again: the command fails",
		edits: [
			{
				find: "if (/^[\\w%+=:,./-]+$/.test(expanded)) return expanded;",
				replace: "return expanded;",
			},
		],
		tests: ["test/pi-races/file-tools-paths.test.ts", "test/tools/read.test.ts"],
	},
	{
		id: "FG03",
		file: "src/tools/read.ts",
		description: "pi#7523: the bash hint keeps the leading @ of the path argument, naming a file that does not exist",
		edits: [{ find: "const expanded = expandPath(path);", replace: "const expanded = path;" }],
		tests: ["test/tools/read.test.ts"],
	},
	{
		id: "FI01",
		file: "src/cli/interactive-mode.ts",
		description:
			"pi#3305 replay: a line read before a question was asked (piped after the command that asks) waits behind that command again, and the question is cancelled",
		edits: [
			{
				find: "if (!terminal && pending.length > 0) queueMicrotask(answerTypedAhead);",
				replace: "if (!terminal && pending.length < 0) queueMicrotask(answerTypedAhead);",
			},
		],
		tests: ["test/pi-races/interactive-session-commands.test.ts"],
	},
	{
		id: "FI02",
		file: "src/cli/interactive-commands.ts",
		description: 'pi#3305 replay: `/resume "<path>"` looks the quotes up as part of the path again',
		edits: [
			{
				find: 'const reference = /^\\s*["\']/.test(args) ? (pathArgument(args) ?? "") : args.trim();',
				replace: "const reference = args.trim();",
			},
		],
		tests: ["test/pi-races/interactive-session-commands.test.ts"],
	},
	{
		id: "FL01",
		file: "src/session/prompt-pipeline.ts",
		description: "atomic#2074 replay: a steer() / followUp() is queued when its input hooks finish, not in send order",
		edits: [{ find: "\t\tawait order.turn;\n", replace: "" }],
		tests: ["test/pi-races/steer-order.test.ts"],
	},
	{
		id: "FL02",
		file: "src/session/prompt-pipeline.ts",
		description:
			"atomic#2074 replay: a prompt() with streamingBehavior is queued when its input hooks finish, not in send order",
		edits: [{ find: "\t\tawait order?.turn;\n", replace: "" }],
		tests: ["test/pi-races/steer-order.test.ts"],
	},
	{
		id: "FL03",
		file: "src/cli/rpc-mode.ts",
		description: "pi#9803 replay: the RPC steer response no longer says whether an input hook took the steer",
		edits: [
			{
				find: 'return success(id, "steer", { disposition } satisfies RpcQueueResult);',
				replace: 'return success(id, "steer");',
			},
		],
		tests: ["test/pi-races/steer-rpc.test.ts"],
	},
	{
		id: "FL04",
		file: "src/cli/rpc-mode.ts",
		description: "pi#9803 replay: the RPC follow_up response says queued even when an input hook took it",
		edits: [
			{
				find: 'return success(id, "follow_up", { disposition } satisfies RpcQueueResult);',
				replace: 'return success(id, "follow_up", { disposition: "queued" } satisfies RpcQueueResult);',
			},
		],
		tests: ["test/pi-races/steer-rpc.test.ts"],
	},
	{
		id: "FK01",
		file: "src/extensions/runner.ts",
		description:
			"pi#9932 replay: the before_agent_start chain keeps handing the prompt from before a handler's setActiveTools()",
		edits: [
			{
				find: "if (refreshed !== undefined && !promptChanged) currentPrompt = refreshed;",
				replace: "void refreshed;",
			},
		],
		tests: ["test/pi-races/system-prompt-agent-start.test.ts"],
	},
	{
		id: "FK02",
		file: "src/session/prompt-pipeline.ts",
		description: "pi#9932 replay: the operation's prompt options keep the tools active before before_agent_start ran",
		edits: [{ find: "\t}\n\trefreshSystemPrompt();\n", replace: "\t}\n" }],
		tests: ["test/pi-races/system-prompt-agent-start.test.ts"],
	},
	{
		id: "FK03",
		file: "src/session/tool-loadout.ts",
		description:
			"pi-langfuse#12 replay: ctx.getSystemPrompt() during an operation ignores the prompt its before_agent_start options made",
		edits: [
			{
				find: "return (!this.changed && this.operationPrompt) || this.renderedPrompt();",
				replace: "return this.renderedPrompt();",
			},
		],
		tests: ["test/pi-races/system-prompt-agent-start.test.ts"],
	},
	{
		id: "FK04",
		file: "src/session/operation-actors.ts",
		description: "pi-langfuse#12 replay: one operation's prompt is still reported after it settled",
		edits: [{ find: "\ts.loadout.endOperation();\n", replace: "" }],
		tests: ["test/pi-races/system-prompt-agent-start.test.ts"],
	},
	{
		id: "FM01",
		file: "src/session/convert-to-llm.ts",
		description: "piclaw#9 replay: a tool's image block of a type no provider takes inline is sent as it is",
		edits: [
			{
				find: "return options.blockImages ? withoutImages(converted) : withoutUnsendableImages(converted);",
				replace: "return options.blockImages ? withoutImages(converted) : converted;",
			},
		],
		tests: ["test/pi-races/sdk-tools.test.ts"],
	},
	{
		id: "FM02",
		file: "src/session/convert-to-llm.ts",
		description: "openclaw#18212 replay: an image block whose data is not base64 is sent as it is",
		edits: [
			{
				find: "image.data.length % 4 === 1 || !BASE64.test(image.data)",
				replace: "false",
			},
		],
		tests: ["test/pi-races/sdk-tools.test.ts"],
	},
	{
		id: "GC01",
		file: "src/session/convert-to-llm.ts",
		description: "the per-block base64 verdict is reused after the block's data was replaced",
		edits: [
			{
				find: "if (known && known.data === image.data) return known.base64;",
				replace: "if (known) return known.base64;",
			},
		],
		tests: ["test/recovery/convert-to-llm.test.ts"],
	},
	{
		id: "GC02",
		file: "src/llm/errors.ts",
		description: "an empty-bodied 408, 521 or 523 is not retried (pi 0.73.1's status list)",
		edits: [
			{ find: "408|429|500|502|503|504|520|521|522|523|524|529", replace: "429|500|502|503|504|520|522|524|529" },
		],
		tests: ["test/pi-races/retry-stream-ends.test.ts"],
	},
	{
		id: "GC03",
		file: "src/resources/text-file.ts",
		description: "code_puppy#778: a UTF-16 LE context file or prompt template is read as UTF-8",
		edits: [{ find: "return decodeText(readFileSync(path)).text;", replace: 'return readFileSync(path, "utf8");' }],
		tests: ["test/pi-races/context-files.test.ts"],
	},
	{
		id: "GC04",
		file: "src/tools/text-encoding.ts",
		description: "code_puppy#778: a UTF-16 BE context file is read as UTF-8",
		edits: [{ find: 'if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";', replace: "" }],
		tests: ["test/pi-races/context-files.test.ts"],
	},
	{
		id: "GC05",
		file: "src/runtime/models-json.ts",
		description:
			"models.json `models` entries are taken as written again: a negative price or a quoted contextWindow reaches the model",
		edits: [
			{
				find: "checkedModel(model, builtIn.has(name)",
				replace:
					"((kept: Record<string, unknown>, _inCatalog: boolean, _warn: unknown) => kept)(model, builtIn.has(name)",
			},
		],
		tests: ["test/pi-races/models-json-config.test.ts"],
	},
	{
		id: "GC06",
		file: "src/cli/main.ts",
		description: "pilish#196: settle ignores HTTP(S)_PROXY and dials providers directly",
		edits: [{ find: "	await useEnvProxy();\n", replace: "" }],
		tests: ["test/cli/env-proxy.test.ts"],
	},
	{
		id: "GC07",
		file: "src/llm/env-proxy.ts",
		description: "NO_PROXY is ignored: a listed host is dialled through the proxy",
		edits: [{ find: 'noProxy: env.no_proxy ?? env.NO_PROXY ?? "",', replace: 'noProxy: "",' }],
		tests: ["test/cli/env-proxy.test.ts"],
	},
	{
		id: "GC08",
		file: "src/settings/json-file.ts",
		description: "a settings save gives up on another process's lock after half a second again (the old 20 × 25 ms)",
		edits: [{ find: "const LOCK_WAIT_MS = LOCK_STALE_MS + 2_000;", replace: "const LOCK_WAIT_MS = 500;" }],
		tests: ["test/settings/settings-lock-wait.test.ts"],
	},
	{
		id: "GX01",
		file: "machines/prompt-operation.machine.ts",
		description:
			"compact() during a manual compaction aborts it and compacts again: the first caller gets a bare Compaction cancelled, the summary is asked for twice (pi#4203)",
		edits: [
			{
				find: "COMPACT: [joinRunningManualCompaction, refuseOtherInstructions, ...abortWorkingCompaction.COMPACT],",
				replace: "COMPACT: abortWorkingCompaction.COMPACT,",
			},
		],
		tests: ["test/pi-races/compact-twice.test.ts"],
	},
	{
		id: "GX02",
		file: "machines/prompt-operation.machine.ts",
		description:
			"compact() joins any running compaction, an overflow recovery's too: the recovery is not ended and the summary the user asked for never runs (pi#7086)",
		edits: [
			{
				find: '{ guard: "joinsManualCompaction", actions: "joinManualCompaction" }',
				replace: '{ actions: "joinManualCompaction" }',
			},
		],
		tests: ["test/pi-races/compaction-queue.test.ts"],
	},
	{
		id: "GX03",
		file: "machines/prompt-operation.machine.ts",
		description:
			"ctx.compact() during a manual compaction aborts it and compacts again: the first caller gets a bare Compaction cancelled (pi#4203)",
		edits: [
			{
				after: "it joins it as compact() does.",
				find: "joinRunningManualCompaction,",
				replace: '{ target: "aborting", actions: abortThenCompact },',
			},
		],
		tests: ["test/pi-races/compact-twice.test.ts", "test/machines/prompt-operation.test.ts"],
	},
	{
		id: "GR01",
		file: "src/settings/json-file.ts",
		description:
			"a save waits only the bare stale time: a crashed holder's lock dated a second ahead by proper-lockfile's mtime probe goes stale just after the save gave up (pi#4546's test, CI)",
		edits: [{ find: "const LOCK_WAIT_MS = LOCK_STALE_MS + 2_000;", replace: "const LOCK_WAIT_MS = LOCK_STALE_MS;" }],
		tests: ["test/settings/settings-lock-wait.test.ts"],
	},
	{
		id: "FJ01",
		file: "src/runtime/models-json.ts",
		description:
			"models.json: a built-in provider entry without models or modelOverrides takes the override-only route again, which leaves the built-in models' compat as it was",
		edits: [
			{
				find: "if (builtIn.has(name)) {",
				replace: "if (builtIn.has(name) && (models.length > 0 || modelOverrides !== undefined)) {",
			},
		],
		tests: ["test/pi-races/models-json-config.test.ts"],
	},
	{
		id: "FJ02",
		file: "src/runtime/models-json.ts",
		description: "models.json: a provider entry's `compat` no longer reaches the built-in models of that provider",
		edits: [{ find: "if (providerCompat) config.compat = providerCompat;", replace: "" }],
		tests: ["test/pi-races/models-json-config.test.ts"],
	},
	{
		id: "FJ03",
		file: "src/llm/tokens.ts",
		description:
			"pi#8651: the reserve is no longer capped at half the window: an 8192-token model with the default reserve compacts after every prompt",
		edits: [
			{
				find: "Math.min(reserveTokens, Math.floor(contextWindow / 2))",
				replace: "reserveTokens",
			},
		],
		tests: ["test/pi-races/compaction-window.test.ts", "test/compaction/tokens.test.ts"],
	},
	{
		id: "FJ04",
		file: "src/compaction/summarize.ts",
		description:
			"pi#8651: the summary answer budget is 80% of the uncapped reserve again: on an 8192-token model the request asks for more than the window",
		edits: [
			{
				find: "Math.floor(share * effectiveReserveTokens(model.contextWindow, reserveTokens))",
				replace: "Math.floor(share * reserveTokens)",
			},
		],
		tests: ["test/pi-races/compaction-window.test.ts"],
	},
	{
		id: "FJ05",
		file: "src/tools/fs-errors.ts",
		description:
			"file tools: `Permission denied: <path>` says what happened again but neither that nothing was changed nor what to do",
		edits: [
			{
				find: '"Nothing was changed. Check the file\'s permissions (ls -l) or ask the user to change them, or pick a path you can write to."',
				replace: '""',
			},
		],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "FP01",
		file: "src/settings/json-file.ts",
		description:
			"openclaw#88028: the atomic write takes one short write() as done: under a full disk or a file-size limit the cut temp file is renamed over auth.json",
		edits: [
			{
				find: "while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);",
				replace: "written += writeSync(fd, bytes, written, bytes.length - written);",
			},
		],
		tests: ["test/pi-races/providers-auth.test.ts"],
	},
	{
		id: "FP02",
		file: "src/settings/json-file.ts",
		description:
			"openclaw#88028: a failed settings/auth.json write no longer says the file kept its content, nor what to do",
		edits: [{ find: "The file keeps its previous content; $", replace: "$" }],
		tests: ["test/pi-races/providers-auth.test.ts"],
	},
	{
		id: "FO01",
		file: "src/compaction/branch-summary.ts",
		description:
			"pi#8651: the branch summary's budget takes the uncapped reserve again: on an 8192-token model nothing fits and the short branch is not summarized",
		edits: [
			{
				find: "contextWindow - effectiveReserveTokens(contextWindow, reserveTokens)",
				replace: "contextWindow - reserveTokens",
			},
		],
		tests: ["test/pi-races/compaction-window.test.ts"],
	},
	{
		id: "FO02",
		file: "src/runtime/models-json.ts",
		description:
			"models.json modelOverrides: a negative maxTokens or contextWindow is taken again, silently, as the model's cap",
		edits: [
			{
				find: 'return typeof value === "number" && Number.isInteger(value) && value > 0;',
				replace: 'return typeof value === "number" && Number.isInteger(value);',
			},
		],
		tests: ["test/pi-races/models-json-config.test.ts"],
	},
	{
		id: "FO03",
		file: "src/cli/interactive-commands.ts",
		description:
			"settle -i /name before the first message: the confirmation no longer says the name is kept only with a first message",
		edits: [
			{
				find: "const unsaved = file !== undefined && !existsSync(file) && !session.isStreaming;",
				replace: "const unsaved = file === undefined && !existsSync(String(file)) && !session.isStreaming;",
			},
		],
		tests: ["test/pi-races/interactive-session-commands.test.ts"],
	},
	{
		id: "FQ01",
		file: "src/extensions/ui.ts",
		description:
			"pi#9275: a host's copy of a headless UI (`{ ...headless, confirm }`) answers the dialogs but `ctx.hasUI` says false again (headless judged by the copied `headless` flag, not by identity)",
		edits: [
			{
				find: "return madeHere.has(ui);",
				replace: "return (ui as Partial<HeadlessUIContext>).headless === true;",
			},
		],
		tests: ["test/pi-races/extension-ui-modes.test.ts", "test/extensions/host.test.ts"],
	},
	{
		id: "FQ02",
		file: "src/cli/rpc-mode.ts",
		description:
			"pi#8735: `settle --rpc` binds the extensions before it reads stdin again: a `session_start` dialog waits for good for an answer nobody reads",
		edits: [
			{
				find: "const firstBind = bind(runtime.session).then(",
				replace: "const firstBind = await bind(runtime.session).then(",
			},
		],
		tests: ["test/pi-races/extension-ui-modes.test.ts"],
	},
	{
		id: "FQ03",
		file: "src/cli/rpc-ui.ts",
		description:
			"pi#8735: after stdin ended, a dialog a `session_shutdown` handler opens is sent to a host that is gone and waits for good; `settle --rpc` never exits",
		edits: [
			{
				find: "if (closed || options?.signal?.aborted) return Promise.resolve(fallback);",
				replace: "if (options?.signal?.aborted) return Promise.resolve(fallback);",
			},
		],
		tests: ["test/pi-races/extension-ui-modes.test.ts"],
	},
	{
		id: "FS01",
		file: "src/cli/termination.ts",
		description:
			"pi#9709: an extension tool's abort listener rethrows `signal.reason`: the CLI treats Settle's own abort reason as a crash and exits 1",
		edits: [
			{
				find: "if (isIssuedAbortReason(error) || report(error)) return;",
				replace: "if (report(error)) return;",
			},
		],
		tests: ["test/pi-races/tool-execution-aborts.test.ts"],
	},
	{
		id: "FS02",
		file: "src/agent/agent.ts",
		description:
			"pi#9709: the run is aborted with an unmarked reason, so a listener rethrowing it is not recognized as the abort and `settle --rpc` exits 1",
		edits: [
			{
				find: "abortWithIssuedReason(this.activeRun?.controller);",
				replace: "this.activeRun?.controller.abort();",
			},
		],
		tests: ["test/pi-races/tool-execution-aborts.test.ts"],
	},
	{
		id: "FT01",
		file: "src/compaction/request.ts",
		description:
			"pi#8999: summarization requests skip the `before_provider_request` handlers; an extension that maps the model id works for turns and `/compact` fails",
		edits: [
			{
				find: "if (options.onPayload !== undefined) streamOptions.onPayload = options.onPayload;",
				replace: "",
			},
		],
		tests: ["test/pi-races/extension-request-hooks.test.ts", "test/extensions/pi-differential-divergences.test.ts"],
	},
	{
		id: "FT02",
		file: "src/session/tree-navigation.ts",
		description:
			"pi#8999: a branch summary's request skips the `before_provider_request` handlers (compaction keeps them)",
		edits: [{ find: "...summaryPayloadHook(runner),", replace: "" }],
		tests: ["test/pi-races/extension-request-hooks.test.ts"],
	},
	{
		id: "FT03",
		file: "src/session/compaction-runner.ts",
		description:
			"pi#8999: `/compact`'s summary requests skip the `before_provider_request` handlers (branch summaries keep them)",
		edits: [{ find: "...summaryPayloadHook(runner),", replace: "" }],
		tests: ["test/pi-races/extension-request-hooks.test.ts"],
	},
	{
		id: "FR01",
		file: "src/cli/main.ts",
		description:
			"gsd-pi#1293: `settle -p '/verdict'` whose command set `process.exitCode = 21` exits 0: the verdict an extension reports through the exit code is overruled",
		edits: [
			{
				find: "if (code !== 0 || requested === undefined || requested === null) return code;",
				replace: "if (code !== 0 || requested !== null) return code;",
			},
		],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "FR02",
		file: "src/cli/main.ts",
		description:
			"oh-my-pi#7635: `settle --mode json` exits without waiting for a slow reader: the megabytes written as the run ends are cut off mid-line",
		edits: [
			{
				find: "	await processStdout.flushed();\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "FR03",
		file: "src/cli/termination.ts",
		description:
			"oh-my-pi#10965: SIGTERM during a streaming answer exits without aborting the run: the partial answer never reaches the session file",
		edits: [{ find: "\t\t\tawait runtime.session.abort();\n", replace: "" }],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "FR04",
		file: "src/cli/print-mode.ts",
		description:
			"oh-my-pi#10297: `settle -p` drops a `ctx.ui.notify` (a `session_start` warning): nothing on stderr, the user never learns of it",
		edits: [
			{
				after: "onNotify: ({ message, type }, extensionPath) =>",
				find: "out.stderr(",
				replace: "void (",
			},
		],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "FR05",
		file: "src/cli/main.ts",
		description:
			"gsd-pi#1293: `settle --rpc` exits with the `process.exitCode` an extension command set, where pi's RPC mode exits 0",
		edits: [{ find: "const code = requestedExitCode.honoured ? ", replace: "const code = true ? " }],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "FX01",
		file: "src/compaction/branch-summary.ts",
		description:
			"the branch summary asks for 2048 answer tokens whatever the window, as pi 0.73.1: on a 2000-token window the answer alone is more than the window",
		edits: [
			{
				find: "const maxTokens = effectiveReserveTokens(contextWindow, answerTokens);",
				replace: "const maxTokens = answerTokens;",
			},
		],
		tests: ["test/session/tree.test.ts", "test/extensions/pi-compat-exports.test.ts"],
	},
	{
		id: "FX02",
		file: "src/extensions/runner.ts",
		description:
			'a tool_result handler\'s non-boolean isError ("yes", 1) is applied as is again: saved in the tool result and sent to the provider, as pi 0.73.1',
		edits: [
			{
				find: 'if (value.isError !== undefined && typeof value.isError !== "boolean") {',
				replace: "if (false) {",
			},
		],
		tests: ["test/extensions/tool-result-is-error-not-boolean.test.ts"],
	},
	{
		id: "FW01",
		description:
			"a model switch takes the settings' defaultThinkingLevel instead of the live level, so --thinking low becomes high after set_model / cycle_model (pi-llama#24)",
		file: "src/session/agent-session.ts",
		edits: [
			{
				find: "if (current?.reasoning && !this.thinkingFromModelEntry) return { level: this.thinkingLevel, fromModelEntry: false };",
				replace: "",
			},
		],
		tests: ["test/pi-races/thinking-levels.test.ts"],
	},
	{
		id: "FZ01",
		description:
			"the catalogue's prices are taken as they are: openrouter/auto's -1000000 placeholder prices each answer at minus a dollar per token, the session's cost goes negative (pi#7688)",
		file: "src/llm/pi-ai.ts",
		edits: [
			{
				find: "models: models.map((model) => ({ ...model, provider, cost: knownPrices(model.cost) })),",
				replace: "models: models.map((model) => ({ ...model, provider })),",
			},
		],
		tests: ["test/pi-races/usage-tokens.test.ts"],
	},
	{
		id: "GA01",
		description:
			"a session written whole (a fork, a branch, a migration) is built as one string again, so `settle --fork` of a session past 512 MB fails with `Invalid string length` (pi#5231)",
		file: "src/store/session-manager.ts",
		edits: [{ find: "if (text.length >= LINES_PIECE_CHARS) {", replace: "if (text.length < 0) {" }],
		tests: ["test/pi-races/long-sessions.test.ts"],
	},
	{
		id: "GA02",
		description:
			"the JSONL export builds the branch as one string again, so exporting a branch past 512 MB fails with `Invalid string length` (pi#5231)",
		file: "src/session/session-stats.ts",
		edits: [{ find: "if (text.length >= 1 << 20) {", replace: "if (text.length < 0) {" }],
		tests: ["test/pi-races/long-sessions.test.ts"],
	},
	{
		id: "GB01",
		description:
			"settle -r takes `all` for an id prefix: every project's sessions are never listed, another project's session is reached only by its path",
		file: "src/cli/session-picker.ts",
		edits: [{ find: "if (choice.toLowerCase() === ALL_SESSIONS) {", replace: 'if (choice === "never") {' }],
		tests: ["test/pi-races/sessions-resume-list.test.ts"],
	},
	{
		id: "GB02",
		description:
			"settle -r in a project with no saved session starts a new one without asking, though other projects have sessions to resume",
		file: "src/cli/session-picker.ts",
		edits: [{ find: "if (others === 0) {", replace: "if (others >= 0) {" }],
		tests: ["test/pi-races/sessions-resume-list.test.ts"],
	},
	{
		id: "GB03",
		description:
			"with --session-dir, `all` lists the agent folder's sessions of every project (pi 0.73.1's listAll) instead of the chosen folder's",
		file: "src/cli/session-picker.ts",
		edits: [
			{
				find: "const inDefault = resolve(dirname(folders.sessionDir)) === sessionsDir;",
				replace: "const inDefault = true;",
			},
		],
		tests: ["test/pi-races/sessions-resume-list.test.ts"],
	},
	{
		id: "GB04",
		description:
			"after `all`, an id prefix of another project's session listed there is looked up in this project only: refused",
		file: "src/cli/session-picker.ts",
		edits: [
			{
				find: "const listed = numbered ?? (byId?.length === 1 ? byId[0] : undefined);",
				replace: "const listed = numbered ?? (byId?.length === 0 ? byId[0] : undefined);",
			},
		],
		tests: ["test/pi-races/sessions-resume-list.test.ts"],
	},
	{
		id: "GB05",
		description:
			"/resume all in settle -i is taken for a session's id prefix: every project's sessions are never listed",
		file: "src/cli/interactive-commands.ts",
		edits: [{ find: "if (args.trim().toLowerCase() === ALL_SESSIONS) {", replace: 'if (args === "never") {' }],
		tests: ["test/pi-races/sessions-resume-list.test.ts"],
	},
	{
		id: "GB06",
		description:
			"settle -r / /resume list `N msgs` with the system prompt's record counted: one more than the conversation's (and than `Resumed … (N messages)`)",
		file: "src/cli/session-picker.ts",
		edits: [{ find: "conversationMessageCount(info)} msgs", replace: "info.messageCount} msgs" }],
		tests: ["test/cli/pi-resume-flag.test.ts"],
	},
	{
		id: "GB07",
		description: "the conversation's message count of a listed session counts Settle's system-prompt records",
		file: "src/store/discovery.ts",
		edits: [{ find: 'if (message?.role === "system") scan.systemMessages++;', replace: "" }],
		tests: ["test/cli/pi-resume-flag.test.ts"],
	},
	{
		id: "FY01",
		description:
			"a tool's image still over the inline limit after resizing failed is kept as the tool made it, so every later request of the session is refused (pi#2055)",
		file: "src/session/images.ts",
		edits: [{ find: "} else if (overInlineLimit(block)) {", replace: "} else if (false) {" }],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "FY02",
		description:
			"with images.autoResize off a tool's image over the inline limit is kept as it is, so every later request of the session is refused (pi#2055)",
		file: "src/session/images.ts",
		edits: [
			{
				find: "(autoResize ? fitsInline(block) : !overInlineLimit(block))",
				replace: "(autoResize ? fitsInline(block) : true)",
			},
		],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "FY03",
		description:
			"a prompt image with a side over 2000 px is sent as it is, so a capture over 8000 px makes Anthropic refuse this and every later request (oh-my-pi#10633)",
		file: "src/session/prompt-pipeline.ts",
		edits: [{ find: "\t\tpromptImagesNeedFitting(images)\n", replace: "\t\tfalse\n" }],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "FY04",
		description:
			"fitPromptImages keeps the original of an image it resized, so the 8570 px capture is still sent (oh-my-pi#10633)",
		file: "src/session/images.ts",
		edits: [
			{
				find: 'fitted.push({ type: "image", data: outcome.image.data, mimeType: outcome.image.mimeType });',
				replace: "fitted.push(image);",
			},
		],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "FY05",
		description:
			"a tool's image keeps the type it was labelled with, so a PNG labelled image/jpeg makes Anthropic refuse this and every later request (claude-code#12009)",
		file: "src/session/images.ts",
		edits: [
			{
				find: "return actual === undefined || actual === image.mimeType ? image : { ...image, mimeType: actual };",
				replace: "return image;",
			},
		],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "FY06",
		description:
			"a prompt image keeps the type it was labelled with, so a PNG sent as image/jpeg makes Anthropic refuse this and every later request (claude-code#12009)",
		file: "src/session/images.ts",
		edits: [{ find: "else kept.push(labelledByItsBytes(image));", replace: "else kept.push(image);" }],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "GE01",
		file: "src/store/paths.ts",
		description: "pi#9836: a session folder name past 255 bytes is kept whole (ENAMETOOLONG)",
		edits: [
			{ find: 'if (Buffer.byteLength(whole, "utf8") <= NAME_MAX_BYTES) return whole;', replace: "return whole;" },
		],
		tests: ["test/pi-races/working-directory.test.ts"],
	},
	{
		id: "GE02",
		file: "src/store/paths.ts",
		description: "pi#9836: a shortened session folder name hashes nothing of the cwd (two cut paths share one folder)",
		edits: [{ find: 'createHash("sha256").update(resolved)', replace: 'createHash("sha256").update("")' }],
		tests: ["test/pi-races/working-directory.test.ts"],
	},
	{
		id: "GE03",
		file: "src/resources/context-files.ts",
		description: "pi#6617: a nested git worktree's main checkout AGENTS.md is loaded beside the worktree's own",
		edits: [
			{
				find: "if (file && main !== undefined) shadowed = { root: identityOf(main), name: basename(file.path) };",
				replace: "",
			},
		],
		tests: ["test/pi-races/working-directory.test.ts"],
	},
	{
		id: "GD01",
		file: "src/cli/interactive-render.ts",
		description:
			"pi#2843: settle -i prints a custom message's first line only; the rest of an extension command's result is lost",
		edits: [
			{ find: "for (const text of rest) this.line(", replace: "for (const text of rest.slice(0, 0)) this.line(" },
		],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "GD02",
		file: "src/cli/interactive-ui.ts",
		description:
			"pi#5620: settle -i keeps an extension's setEditorText aside: the input line stays empty and Enter sends nothing",
		edits: [{ find: "if (editor) editor.set(text);", replace: "if (false) editor?.set(text);" }],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "GF01",
		description:
			"a steer / follow-up's images are queued unchecked, so a PNG labelled image/jpeg makes Anthropic refuse the run (claude-code#12009)",
		file: "src/session/queues.ts",
		edits: [{ find: "if (entry.unchecked) {", replace: "if (false) {" }],
		tests: ["test/pi-races/images-attachments.test.ts", "test/rpc/rpc-client.test.ts"],
	},
	{
		id: "GF02",
		description:
			"a steer / follow-up's image with a side over 2000 px is queued as it is, so a capture over 8000 px makes Anthropic refuse the run (oh-my-pi#10633)",
		file: "src/session/prompt-pipeline.ts",
		edits: [
			{
				find: "return queuedFittingNeeded(s, images) ? await fitPromptImages(text, images) : { text, images };",
				replace: "return { text, images };",
			},
		],
		tests: ["test/pi-races/images-attachments.test.ts", "test/rpc/rpc-client.test.ts"],
	},
	{
		id: "GF03",
		description:
			"a plain steer is queued at once while an earlier steer's image is still being resized, so it overtakes it",
		file: "src/session/prompt-pipeline.ts",
		edits: [{ find: " && !s.queues.hasOpenTurn(kind)) {", replace: ") {" }],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "GF04",
		description: "a prompt image over the 4.5 MB inline limit is not resized but dropped with a hint, as before",
		file: "src/session/images.ts",
		edits: [
			{
				find: "\tif (image.data.length >= MAX_INLINE_IMAGE_BYTES) return true;\n",
				replace: "\tif (image.data.length >= MAX_INLINE_IMAGE_BYTES) return false;\n",
			},
		],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "GH01",
		file: "src/tools/shell.ts",
		description: "commands run without GIT_EDITOR=true, so git's vi waits for a terminal that never comes (pi#9936)",
		edits: [
			{
				find: "\t\t\t\t\tenv: nonInteractiveEnv(env ?? process.env),\n",
				replace: "\t\t\t\t\tenv: env ?? process.env,\n",
			},
		],
		tests: ["test/pi-races/bash-input-waits.test.ts"],
	},
	{
		id: "GH02",
		file: "src/tools/shell.ts",
		description: "GIT_EDITOR=true replaces a GIT_EDITOR the environment sets (pi#9936)",
		edits: [
			{
				find: 'return env.GIT_EDITOR === undefined ? { ...env, GIT_EDITOR: "true" } : env;',
				replace: 'return { ...env, GIT_EDITOR: "true" };',
			},
		],
		tests: ["test/pi-races/bash-input-waits.test.ts"],
	},
	{
		id: "GH03",
		file: "src/tools/shell.ts",
		description:
			"a command shares settle's controlling terminal, so git's credential prompt waits on it (oh-my-pi#4021)",
		edits: [
			{
				find: '\t\t\t\t\tdetached: process.platform !== "win32",\n\t\t\t\t\tenv: nonInteractiveEnv',
				replace: "\t\t\t\t\tdetached: false,\n\t\t\t\t\tenv: nonInteractiveEnv",
			},
		],
		tests: ["test/pi-races/bash-input-waits.test.ts", "test/pi-races/bash-terminal-prompts.test.ts"],
	},
	{
		id: "GH04",
		file: "src/tools/shell.ts",
		description:
			"a command's stdin is a pipe settle keeps open, so a prompt after a `<` redirect waits forever (claude-code#58938)",
		edits: [
			{
				find: 'stdio: ["ignore", "pipe", "pipe"],\n\t\t\t\t});\n\t\t\t} catch (error) {\n\t\t\t\tthrow noDescriptors(error);',
				replace:
					'stdio: ["pipe", "pipe", "pipe"],\n\t\t\t\t});\n\t\t\t} catch (error) {\n\t\t\t\tthrow noDescriptors(error);',
			},
		],
		tests: ["test/pi-races/bash-input-waits.test.ts"],
	},
	{
		id: "GK01",
		file: "src/cli/host.ts",
		description:
			"a second `settle -c` refused by the busy session's lock is not told it can fork it into a new session (pi#9596)",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source's template text, matched literally
				find: "carry on from what it holds in a new session (--fork ${file}), ",
				replace: "",
			},
		],
		tests: ["test/pi-races/shared-session-files.test.ts"],
	},
	{
		id: "GK02",
		file: "src/runtime/models-json.ts",
		description:
			"a models.json that does not read when /model reads it again (another program saving it) drops its providers: the running session loses its model's key (pi-web#243)",
		edits: [
			{
				find: "the models of its last good read stay until it is fixed.`,\n\t\t\t);\n\t\t\treturn;\n",
				replace: "the models of its last good read stay until it is fixed.`,\n\t\t\t);\n",
			},
		],
		tests: ["test/pi-races/models-json-while-running.test.ts", "test/runtime/pi-sdk-migration.test.ts"],
	},
	{
		id: "GK03",
		file: "src/cli/interactive-commands.ts",
		description: "/model says nothing of a models.json that did not read: its models look missing (pi-web#243)",
		edits: [{ find: "\tif (modelsFileError) host.warn(modelsFileError);\n", replace: "" }],
		tests: ["test/pi-races/models-json-while-running.test.ts"],
	},
	{
		id: "GK04",
		file: "src/cli/interactive-render.ts",
		description:
			"settle -i tells a user whose session file another program wrote to about SessionManager.createBranchedSession, not /clone (oh-my-pi#12624)",
		edits: [{ find: "oneLineText(sessionFileChangedForChat(text) ?? text)", replace: "oneLineText(text)" }],
		tests: ["test/pi-races/shared-session-files.test.ts"],
	},
	{
		id: "GK06",
		file: "src/cli/session-picker.ts",
		description:
			"settle -r opens a listed session whose file another process deleted since: an empty session is made at its path and claimed as resumed (oh-my-pi#11491)",
		edits: [
			{
				find: "if (listed && !existsSync(listed.path)) {",
				replace: "if (listed && !existsSync(listed.path) && false) {",
			},
		],
		tests: ["test/pi-races/shared-session-files.test.ts"],
	},
	{
		id: "GJ01",
		file: "src/compaction/request.ts",
		description:
			"a branch summary cut at its token cap is recorded as if complete (pi#8845): the length stop is not checked",
		edits: [{ find: 'if (response.stopReason === "length") {', replace: "if (false) {" }],
		tests: ["test/pi-races/branch-summary-budget.test.ts", "test/cli/interactive-tree.test.ts"],
	},
	{
		id: "GJ02",
		file: "src/compaction/branch-summary.ts",
		description:
			"the branch budget ignores the answer and the custom instructions, so the request overflows a small window (kdeps#566)",
		edits: [
			{
				find: "Math.min(contextWindow - effectiveReserveTokens(contextWindow, reserveTokens), room)",
				replace: "contextWindow - effectiveReserveTokens(contextWindow, reserveTokens)",
			},
			{
				find: "while (messages.length > 1 && !summaryRequestFits(prompt, maxTokens, { contextWindow })) {",
				replace: "while (false) {",
			},
		],
		tests: ["test/pi-races/branch-summary-budget.test.ts"],
	},
	{
		id: "GJ03",
		file: "src/compaction/branch-summary.ts",
		description:
			'instructions that leave no room for the conversation are not refused: the navigation records "No content to summarize" (kdeps#566)',
		edits: [{ find: "if (room <= 0 && prepareBranchEntries(", replace: "if (false && prepareBranchEntries(" }],
		tests: ["test/pi-races/branch-summary-budget.test.ts"],
	},
	{
		id: "GJ04",
		file: "src/compaction/branch-summary.ts",
		description:
			"the abandoned entries run on past the common ancestor to the root: /tree back past a compaction summarizes the shared history too (chia1104.dev#3011)",
		edits: [
			{
				find: "while (current && current !== commonAncestorId && !seen.has(current)) {",
				replace: "while (current && !seen.has(current)) {",
			},
		],
		tests: ["test/pi-races/tree-past-compaction.test.ts"],
	},
	{
		id: "GJ05",
		file: "src/session/compaction-runner.ts",
		description:
			"a compaction prepares from every entry of the file, not the active branch: after /tree back past a compaction it updates the abandoned branch's summary (chia1104.dev#3011)",
		edits: [
			{
				find: "\t\tbranchEntries = s.sessionManager.getBranch();",
				replace: "\t\tbranchEntries = s.sessionManager.getEntries();",
			},
		],
		tests: ["test/pi-races/tree-past-compaction.test.ts"],
	},
	{
		id: "GJ06",
		file: "src/session/tree-navigation.ts",
		description:
			"a plain /tree move keeps the live context of the branch left: the next turn after /tree to between two compactions sends the later compaction's summary (oh-my-pi#4090)",
		edits: [{ find: "\t\trestoreContext(s);\n", replace: "" }],
		tests: ["test/pi-races/tree-past-compaction.test.ts"],
	},
	{
		id: "GJ07",
		file: "src/session/tree-navigation.ts",
		description:
			"session_tree reports the leaf the user left as the new one: a handler's label lands on the abandoned branch (oh-my-pi#821)",
		edits: [{ find: "newLeafId: sessionManager.getLeafId(),", replace: "newLeafId: oldLeafId," }],
		tests: ["test/pi-races/tree-navigation.test.ts"],
	},
	{
		id: "GJ08",
		file: "src/session/tree-navigation.ts",
		description:
			"session_tree is not emitted after a navigation: what its handlers write never lands on the new branch (oh-my-pi#821)",
		edits: [{ find: 'if (runner.hasHandlers("session_tree")) {', replace: "if (false) {" }],
		tests: ["test/pi-races/tree-navigation.test.ts"],
	},
	{
		id: "GJ09",
		file: "src/compaction/branch-summary.ts",
		description:
			'a newest abandoned message larger than the budget on its own leaves "No content to summarize" instead of its start cut to fit (kdeps#566)',
		edits: [
			{
				find: 'if (text === "") return { summary: EMPTY_BRANCH_SUMMARY, details };',
				replace: "return { summary: EMPTY_BRANCH_SUMMARY, details };",
			},
		],
		tests: ["test/pi-races/branch-summary-budget.test.ts"],
	},
	{
		id: "GL01",
		file: "src/session/queues.ts",
		description:
			"a queued message's images are not checked against the model it is sent to: after a switch to a text-only model the file keeps the image and the model gets no hint (paseo#1930)",
		edits: [
			{
				find: "normalizePromptImages(entry.unchecked.text, entry.unchecked.images, this.currentModel())",
				replace: "normalizePromptImages(entry.unchecked.text, entry.unchecked.images, undefined)",
			},
		],
		tests: ["test/pi-races/provider-switch-history.test.ts"],
	},
	{
		id: "GL02",
		file: "src/session/prompt-pipeline.ts",
		description:
			"a queued image is resized only when the current model takes images: steered on a text-only model, then switched to a vision one, a 300×2400 image is sent as it is",
		edits: [
			{
				find: "return images !== undefined && s.settingsManager.getImageAutoResize() && promptImagesNeedFitting(images);",
				replace:
					'return images !== undefined && s.model()?.input.includes("image") === true && s.settingsManager.getImageAutoResize() && promptImagesNeedFitting(images);',
			},
		],
		tests: ["test/pi-races/provider-switch-history.test.ts"],
	},
	{
		id: "GL03",
		file: "src/session/agent-session.ts",
		description:
			"createAgentSession's thinkingLevel (the SDK's, or settle --thinking on a resumed or switched-to session) over the file's recorded level is not recorded: the turns run at it, a later resume comes back on the old level",
		edits: [
			{
				find: "(config.thinkingLevel !== undefined && thinkingLevel !== context.thinkingLevel)",
				replace: "(config.thinkingLevel !== undefined && thinkingLevel === context.thinkingLevel)",
			},
		],
		tests: ["test/pi-races/thinking-levels.test.ts"],
	},
	{
		id: "GL04",
		file: "src/session/agent-session.ts",
		description:
			"settle -c --model <other> records the model only by the answer: interrupted before it, the file stays on the old model and the next settle -c comes back on it",
		edits: [
			{
				find: "sessionManager.appendModelChange(hostModel.provider, hostModel.id, { deferWrite: true });",
				replace: "void hostModel;",
			},
		],
		tests: ["test/pi-races/provider-switch-history.test.ts"],
	},
	{
		id: "GL05",
		file: "src/cli/interactive-ui.ts",
		description: "settle -i prints an unchanged status again each time an extension sets it, filling the chat",
		edits: [{ find: "if (text === last) return;", replace: "" }],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "GL06",
		file: "src/cli/interactive-mode.ts",
		description: "settle -i writes the title escape (OSC 0) on a pipe too: noise in a transcript a wrapper reads",
		edits: [
			{
				find: "process.stdout.isTTY && takesEscapes(process.env) ? (title) =>",
				replace: "takesEscapes(process.env) ? (title: string) =>",
			},
		],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "GL07",
		file: "src/cli/interactive-ui.ts",
		description:
			"settle -i passes an extension's title with its control characters: a BEL ends the escape early and the rest is printed",
		edits: [{ find: '[...title].filter((char) => !isControl(char)).join("")', replace: "title" }],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "GL08",
		file: "src/cli/interactive-ui.ts",
		description: "settle -i does not say a status was cleared: the last [key] line reads as still current",
		edits: [{ after: "shown.delete(id);", find: "(cleared)", replace: "" }],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "GM01",
		file: "src/testing/queue-invariants.ts",
		description:
			"queueViolations reports a queued message lost when its image was resized or dropped: the log's text carries the image's note",
		edits: [
			{
				find: "(accounts.get(text) ?? accounts.get(withoutImageNotes(text)))?.delivered.push(position)",
				replace: "accounts.get(text)?.delivered.push(position)",
			},
		],
		tests: ["test/testing/queue-accounting.test.ts"],
	},
	{
		id: "GM02",
		file: "src/resources/discovery.ts",
		description:
			"a skill saved as UTF-16 directly in a skills folder is read as UTF-8 to look for front matter, finds none and is skipped as documentation (code_puppy#778)",
		edits: [{ find: "text = readTextFile(path);", replace: 'text = readFileSync(path, "utf-8");' }],
		tests: ["test/pi-races/context-files.test.ts"],
	},
	{
		id: "GI01",
		file: "src/resources/resource-loader.ts",
		description: "an untrusted project's packages load (their skills and templates reach the model)",
		edits: [{ find: 'if (layer.scope === "project" && !this.isProjectTrusted()) continue;', replace: "" }],
		tests: ["test/resources/packages-loading.test.ts"],
	},
	{
		id: "GI02",
		file: "src/resources/packages.ts",
		description: "an empty per-kind filter in a package entry loads all of that kind instead of none",
		edits: [
			{
				find: "patterns.length === 0 ? [] : applyFilters(allowed, patterns, root, true)",
				replace: "applyFilters(allowed, patterns, root, true)",
			},
		],
		tests: ["test/resources/packages-loading.test.ts"],
	},
	{
		id: "GI03",
		file: "src/resources/packages.ts",
		description: "a plain path in a package entry's filter is not an include (every file of the kind loads)",
		edits: [
			{
				find: "patterns.length === 0 ? [] : applyFilters(allowed, patterns, root, true)",
				replace: "patterns.length === 0 ? [] : applyFilters(allowed, patterns, root)",
			},
		],
		tests: ["test/resources/packages-loading.test.ts"],
	},
	{
		id: "GI04",
		file: "src/resources/packages.ts",
		description: "the same package in global and project settings loads twice (no project-over-global dedupe)",
		edits: [
			{
				find: "const identity = packageIdentity(packageSourceOf(item.entry), item.scope, roots);",
				replace: "const identity = item.scope + packageIdentity(packageSourceOf(item.entry), item.scope, roots);",
			},
		],
		tests: ["test/resources/packages-loading.test.ts"],
	},
	{
		id: "GI05",
		file: "src/resources/resource-loader.ts",
		description: "a listed package that is not installed is skipped in silence (no install command named)",
		edits: [
			{
				find: "			if (!existsSync(root)) {\n				const message =",
				replace: "			if (false) {\n				const message =",
			},
		],
		tests: ["test/resources/packages-loading.test.ts"],
	},
	{
		id: "GI06",
		file: "src/cli/package-commands.ts",
		description: "settle update moves a package pinned to a ref or version (pi leaves pinned packages alone)",
		edits: [
			{
				find: 'if (parsed.pinned && !(parsed.type === "git" && this.followsBranch(parsed, target.scope))) continue;',
				replace: "",
			},
		],
		tests: ["test/cli/package-commands.test.ts"],
	},
	{
		id: "GI07",
		file: "src/cli/package-commands.ts",
		description: "settle install -l installs globally and writes the global settings file",
		edits: [
			{
				find: 'if (command === "install") return await manager.install(source!, local ? "project" : "user");',
				replace: 'if (command === "install") return await manager.install(source!, "user");',
			},
		],
		tests: ["test/cli/package-commands.test.ts"],
	},
	{
		id: "GI08",
		file: "src/cli/package-commands.ts",
		description:
			"a local path is written as typed (relative to the cwd), so it resolves elsewhere from the settings folder",
		edits: [
			{
				find: '			parsed.type === "local"\n				? relative(',
				replace: '			parsed.type !== "local"\n				? relative(',
			},
		],
		tests: ["test/cli/package-commands.test.ts"],
	},
	{
		id: "GI09",
		file: "src/resources/resource-loader.ts",
		description: "an npm package installed at another version than the pinned one loads without a word",
		edits: [
			{
				find: 'const pinnedElsewhere = parsed.type === "npm" ? installedVersionMismatch(parsed.spec, root) : undefined;',
				replace: "const pinnedElsewhere = undefined as string | undefined;",
			},
		],
		tests: ["test/resources/packages-loading.test.ts"],
	},
	{
		id: "GI10",
		file: "src/resources/packages.ts",
		description:
			"a package whose pi manifest names only some kinds also loads the other kinds' conventional folders (pi: the manifest decides)",
		edits: [{ find: ": manifest && !filter\n", replace: ": manifest && filter\n" }],
		tests: ["test/resources/packages-loading.test.ts"],
	},
	{
		id: "GN01",
		file: "src/compaction/chunks.ts",
		description:
			"a window that cannot hold the instructions (a long /compact focus, a long previous summary) and the answer budget with room for a chunk gets pi's doomed one request and the provider's rejection instead of the error that says what to change",
		edits: [
			{
				find: "if (!summaryRequestFits(promptText, options.maxTokens, options.model)) return summarizeInChunks(messages, options);",
				replace:
					"if (!summaryRequestFits(promptText, options.maxTokens, options.model) && chunkBudgetChars(options.model, options.maxTokens, options.previousSummary !== undefined ? options.updateInstructions : options.firstInstructions, options.previousSummary) >= MIN_CHUNK_CHARS) return summarizeInChunks(messages, options);",
			},
		],
		tests: ["test/compaction/summary-chunks.test.ts"],
	},
	{
		id: "GN02",
		file: "src/compaction/chunks.ts",
		description:
			"a summarizer model without a context window whose provider rejects the summary as too long fails with 'context window (0 tokens) cannot hold' instead of being split in halves",
		edits: [{ find: "if (!model.contextWindow) return Number.POSITIVE_INFINITY;", replace: "" }],
		tests: ["test/compaction/summary-chunks-dense.test.ts"],
	},
	{
		id: "GN03",
		file: "src/compaction/request.ts",
		description:
			"a compaction summary cut at its output cap (stopReason length) is committed as the checkpoint again, as in pi 0.73.1 (pi#7048, openclaw#127987); only branch summaries refuse it",
		edits: [
			{
				find: 'if (response.stopReason === "length") {',
				replace: 'if (response.stopReason === "length" && whenCut.includes("navigate")) {',
			},
		],
		tests: ["test/pi-races/compaction-summary-cut.test.ts"],
	},
	{
		id: "GO01",
		file: "src/tools/file-mutation-queue.ts",
		description:
			"a file not created yet is keyed by the path as given: a write to alias/new.md and an edit to target/new.md run at once and the edit finds no file (pi#9389)",
		edits: [{ find: "missing.unshift(basename(existing));", replace: "return absolute;" }],
		tests: ["test/pi-races/parallel-file-mutations.test.ts"],
	},
	{
		id: "GO02",
		file: "src/agent/agent-loop.ts",
		description:
			"a parallel batch's results are saved and sent in completion order (a blocked call first): the model pairs results with the wrong calls (pi#3468, oh-my-pi#11179)",
		edits: [{ find: "slots[index] = entry;", replace: "slots.splice(index, 1);\n\t\t\t\tslots.push(entry);" }],
		tests: ["test/pi-races/parallel-tool-batches.test.ts"],
	},
	{
		id: "GO03",
		file: "src/agent/agent-loop.ts",
		description:
			"a parallel call's tool_execution_end waits for the whole batch: a finished call is shown running until its slowest sibling ends (pi#3503)",
		edits: [
			{ find: "await this.emitToolEnd(entry, true);\n", replace: "" },
			{
				find: "if (failure) throw failure.reason;",
				replace:
					"if (failure) throw failure.reason;\n\t\tfor (const { index } of preparedCalls) await this.emitToolEnd(slots[index] as Finalized);",
			},
		],
		tests: ["test/pi-races/parallel-tool-batches.test.ts"],
	},
	{
		id: "GO04",
		file: "src/agent/agent-loop.ts",
		description:
			"a parallel call that fails before running (a wrong argument) cancels its siblings: pwd, echo and a write of the same answer come back aborted (claude-code#64346)",
		edits: [
			{
				find: "await this.emitToolEnd(preparation);",
				replace: 'await this.emitToolEnd(preparation);\n\t\t\t\tbatch.abort(new Error("Sibling tool call errored"));',
			},
		],
		tests: ["test/pi-races/parallel-tool-batches.test.ts"],
	},
	{
		id: "GO05",
		file: "src/agent/agent-loop.ts",
		description:
			"a tool_result handler's content is dropped when the call failed and stays a failure: the model gets the raw error, not the handler's text (oh-my-pi#5302)",
		edits: [
			{
				find: "content: override.content ?? result.content,",
				replace: "content: isError && override.isError ? result.content : (override.content ?? result.content),",
			},
		],
		tests: ["test/pi-races/parallel-tool-batches.test.ts"],
	},
	{
		id: "GO06",
		file: "src/tools/read.ts",
		description:
			"read stays out of the per-file queue: a read put before an edit of the same file in one answer gets the edited text (gemini-cli#29244)",
		edits: [{ find: "await withFileMutationQueue(absolutePath, load);", replace: "await load();" }],
		tests: ["test/pi-races/parallel-file-mutations.test.ts"],
	},
	{
		id: "GO07",
		file: "src/session/agent-session.ts",
		description:
			'"toolExecution": "sequential" in settings.json is not handed to the agent: an answer\'s dependent bash calls still start together (little-coder#99)',
		edits: [{ find: "toolExecution: settingsManager.getToolExecution(),", replace: "" }],
		tests: ["test/pi-races/sequential-tool-setting.test.ts"],
	},
	{
		id: "GO08",
		file: "src/settings/settings-manager.ts",
		description:
			"without a toolExecution setting the calls of one answer run one after another: parallel is no longer the default (as pi)",
		edits: [
			{
				find: 'return this.settings.toolExecution ?? "parallel";',
				replace: 'return this.settings.toolExecution ?? "sequential";',
			},
		],
		tests: ["test/pi-races/sequential-tool-setting.test.ts"],
	},
	{
		id: "GO09",
		file: "src/agent/agent-loop.ts",
		description:
			"two tool calls of one answer keep the same id: the next request repeats it and the provider refuses the session (oh-my-pi#2055)",
		edits: [{ find: "final = withUniqueToolCallIds(final);", replace: "" }],
		tests: ["test/pi-races/parallel-tool-batches.test.ts"],
	},
	{
		id: "GO10",
		file: "src/session/agent-session.ts",
		description:
			"a toolExecution setting changed while settle runs is not picked up by a reload: the next answer's calls still start together (little-coder#99)",
		edits: [{ find: "this.agent.toolExecution = this.settingsManager.getToolExecution();", replace: "" }],
		tests: ["test/pi-races/sequential-tool-setting.test.ts"],
	},
	{
		id: "GO11",
		file: "src/tools/edit.ts",
		description:
			"an edit queued behind another mutation of its file runs after an abort: the aborted edit lands once the queue reaches it (qwen-code#8493)",
		edits: [
			{ find: "throwIfAborted(signal);", replace: "", after: "const mutation = async (): Promise<" },
			{ find: "throwIfAborted(signal);", replace: "", after: "const mutation = async (): Promise<" },
			{ find: "throwIfAborted(signal);", replace: "", after: "const mutation = async (): Promise<" },
		],
		tests: ["test/pi-races/parallel-file-mutations.test.ts"],
	},
	{
		id: "GO12",
		file: "src/tools/write.ts",
		description:
			"a write queued behind another mutation of its file runs after an abort: the aborted write replaces the file once the queue reaches it (qwen-code#8493)",
		edits: [
			{ find: "throwIfAborted(signal);", replace: "", after: "const mutation = async () => {" },
			{ find: "throwIfAborted(signal);", replace: "", after: "const mutation = async () => {" },
		],
		tests: ["test/pi-races/parallel-file-mutations.test.ts"],
	},
	{
		id: "GP01",
		file: "src/session/agent-session.ts",
		description:
			"a prompt() / sendUserMessage() request takes its place in its queue only once the machine hands it to the busy preflight: a steer() sent right after it from an agent_start listener overtakes it",
		edits: [
			{
				find: 'if (payload.kind === "text" && payload.streamingBehavior) {\n\t\t\tconst command',
				replace: "if (false) {\n\t\t\tconst command",
			},
		],
		tests: ["test/pi-races/steer-order.test.ts", "test/pi-races/queue-races.property.test.ts"],
	},
	{
		id: "GP02",
		file: "src/session/agent-session.ts",
		description:
			"a deferred prompt keeps its queue place until its own preflight: a steer() sent after it waits for the running operation to settle",
		edits: [{ find: "\t\t\t\t\tthis.queues.releaseReservedTurn(event.requestId);\n", replace: "" }],
		tests: ["test/pi-races/steer-order.test.ts"],
	},
	{
		id: "GP03",
		file: "src/session/agent-session.ts",
		description:
			"dispose keeps the queue places of the requests its machine never handled: a steer() sent after one never settles",
		edits: [{ find: "\t\tthis.queues.releaseReservedTurns();\n", replace: "" }],
		tests: ["test/pi-races/steer-order.test.ts"],
	},
	{
		id: "GP04",
		file: "src/session/prompt-pipeline.ts",
		description:
			"a prompt that becomes an operation keeps its queue place: after prompt(text, { streamingBehavior }) while idle, every steer() waits forever",
		edits: [{ find: "\ts.queues.releaseReservedTurn(request.requestId);\n", replace: "" }],
		tests: ["test/pi-races/steer-order.test.ts"],
	},
	{
		id: "GP05",
		file: "src/session/prompt-pipeline.ts",
		description:
			"an extension command sent with streamingBehavior keeps its queue place while it runs: a steer() sent after it waits for the command",
		edits: [
			{
				find: "\t\t\torder?.done();\n\t\t\tawait runner.dispatchCommand",
				replace: "\t\t\tawait runner.dispatchCommand",
			},
		],
		tests: ["test/pi-races/steer-order.test.ts"],
	},
	{
		id: "GP06",
		file: "src/session/queues.ts",
		description:
			"a message's turn waits only for the one submitted just before it: when that one is handled by an input hook, a later message overtakes an earlier one still in its hook",
		edits: [{ find: "this.submitted[kind] = own.waitFor.then(() => mine);", replace: "this.submitted[kind] = mine;" }],
		tests: ["test/pi-races/steer-order.test.ts", "test/session"],
	},
	{
		id: "GP07",
		file: "src/session/queues.ts",
		description: "a finished turn is not counted off: every later steer() / followUp() takes the slow path",
		edits: [{ find: "\t\t\tthis.openTurns[kind]--;\n", replace: "" }],
		tests: ["test/pi-races/steer-order.test.ts", "test/session"],
	},
	{
		id: "GP08",
		file: "src/session/queues.ts",
		description:
			"a turn finished twice counts off twice: after a command sent with streamingBehavior, a plain steer() overtakes one whose screenshot is still being resized",
		edits: [{ find: "\t\t\tif (own.finished) return;\n", replace: "" }],
		tests: ["test/pi-races/steer-order.test.ts", "test/session"],
	},
	{
		id: "GQ01",
		file: "src/cli/interactive-tree.ts",
		description:
			"/tree prints entry ids read from the file raw (an entry's own, a label's or context edit's target): a hand-edited id's escape sequences reach the terminal",
		edits: [
			{
				find: "return terminalSafe(id.slice(0, SHORT_ID_CHARS));",
				replace: "return id.slice(0, SHORT_ID_CHARS);",
			},
		],
		tests: ["test/cli/interactive-tree.property.test.ts"],
	},
	{
		id: "GU01",
		file: "src/cli/rpc-mode.ts",
		description:
			"the RPC bash command's bash_execution_update deltas lose the request id: two commands running side by side stream output a host cannot attribute (pi#6703)",
		edits: [
			{
				find: "const options = id !== undefined ? { excludeFromContext, id } : { excludeFromContext };",
				replace: "const options = { excludeFromContext };",
			},
		],
		tests: ["test/pi-races/rpc-bash-output.test.ts"],
	},
	{
		id: "GU02",
		file: "src/cli/rpc-mode.ts",
		description:
			"an RPC prompt with its text under content or text is refused without naming the field it used: the client is not told where the text goes (pi#2461, pi#9465)",
		edits: [
			{
				find: `if (alias) got += \`; the text goes in "message", not "\${alias}"\`;`,
				replace: 'if (alias) got += "";',
			},
		],
		tests: ["test/pi-races/rpc-prompt-fields.test.ts"],
	},
	{
		id: "GT01",
		file: "src/cli/package-commands.ts",
		description:
			"a git install clones straight into the package's folder and leaves it when the checkout fails: the next install takes the half-made clone for the package, at the wrong commit (pi#7189)",
		edits: [
			{
				find: "const staging = stagingFolderOf(target);",
				replace: "const staging = target;",
			},
			{
				find: "\t\t\trmSync(staging, { recursive: true, force: true });\n\t\t\tpruneEmptyParents(target, gitRoot);\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/package-installs.test.ts"],
	},
	{
		id: "GT02",
		file: "src/cli/package-commands.ts",
		description:
			"an existing clone folder counts as installed even with no commit checked out (an interrupted clone): install records the package and it never loads (pi#7189)",
		edits: [{ find: "if (!isInterruptedClone(target)) return;", replace: "return;" }],
		tests: ["test/pi-races/package-installs.test.ts"],
	},
	{
		id: "GT03",
		file: "src/cli/package-commands.ts",
		description:
			"settle update skips a git package at a branch ref as pinned: the branch's new commits never come (pi#2592)",
		edits: [
			{
				find: 'if (parsed.pinned && !(parsed.type === "git" && this.followsBranch(parsed, target.scope))) continue;',
				replace: "if (parsed.pinned) continue;",
			},
		],
		tests: ["test/pi-races/package-updates.test.ts"],
	},
	{
		id: "GT04",
		file: "src/cli/package-commands.ts",
		description:
			"settle update reinstalls an npm package already at the latest version (npm install -g runs on every update, pi#3000)",
		edits: [
			{
				find: 'if (parsed.type === "npm" && (await this.npmIsLatest(parsed, target.scope))) continue;',
				replace: "",
			},
		],
		tests: ["test/pi-races/package-updates.test.ts"],
	},
	{
		id: "GT05",
		file: "src/cli/package-commands.ts",
		description:
			"settle update re-runs npm install <name> without @latest: a project's .pi/npm lockfile keeps the old version (pi#2459)",
		edits: [
			{
				find: "@latest`, target.scope);",
				replace: "`, target.scope);",
			},
		],
		tests: ["test/pi-races/package-updates.test.ts"],
	},
	{
		id: "GT06",
		file: "src/cli/package-commands.ts",
		description:
			"settle remove without -l of a package only the project lists runs npm uninstall -g first: the global copy pi still lists is gone (pi#5966)",
		edits: [
			{
				find: "\t\tif (next.length === current.length) {\n\t\t\tconst other",
				replace:
					'\t\tif (parsed.type === "npm" && scope === "user") await this.npm(["uninstall", "-g", parsed.name]);\n\t\tif (next.length === current.length) {\n\t\t\tconst other',
			},
		],
		tests: ["test/pi-races/package-removal.test.ts"],
	},
	{
		id: "GT07",
		file: "src/cli/package-commands.ts",
		description:
			"settle remove of a package the other settings file lists no longer names that file and the command with or without -l (pi#5966)",
		edits: [{ find: "const hint = listedThere", replace: "const hint = false" }],
		tests: ["test/pi-races/package-removal.test.ts"],
	},
	{
		id: "GT08",
		file: "src/settings/settings-manager.ts",
		description:
			"updatePackages changes the packages list this manager read at start, not the file's under the lock: of two installs at once, the second save drops the first one's package (pi#8215)",
		edits: [
			{
				find: "const listed = Array.isArray(current.packages) ? (current.packages as PackageSource[]) : [];",
				replace: 'const listed = (scope === "global" ? this.globalSettings : this.projectSettings).packages ?? [];',
			},
		],
		tests: ["test/pi-races/package-installs.test.ts"],
	},
	{
		id: "GW01",
		file: "src/resources/resource-loader.ts",
		description:
			"a package folder listed by its path and again through a symlink loads each of its files twice (pi keeps one per real path)",
		edits: [{ find: "if (seen.has(real)) return false;", replace: "" }],
		tests: ["test/resources/packages-loading.test.ts"],
	},
	{
		id: "GW02",
		file: "src/resources/resource-loader.ts",
		description:
			"files reached by two paths are counted once only among the enabled ones: a disabled registration first in precedence no longer turns off the other path's (pi drops both)",
		edits: [
			{
				find: "\t\t.sort((a, b) => rank(a) - rank(b))\n\t\t.filter((found) => {",
				replace:
					"\t\t.sort((a, b) => rank(a) - rank(b))\n\t\t.filter((found) => found.enabled)\n\t\t.filter((found) => {",
			},
		],
		tests: ["test/resources/packages-loading.test.ts"],
	},
	{
		id: "GW03",
		file: "src/resources/resource-loader.ts",
		description:
			"files are told apart by the path as written, not the real path: a symlinked package folder's files load twice",
		edits: [{ find: "const real = realPath(found.path);", replace: "const real = found.path;" }],
		tests: ["test/resources/packages-loading.test.ts"],
	},
	{
		id: "GW04",
		file: "src/resources/extensions.ts",
		description:
			"extension modules are told apart by the path as written: an -e path through a symlink to a discovered extension loads it twice (pi once)",
		edits: [{ find: "const real = realPathOrSelf(candidate.path);", replace: "const real = candidate.path;" }],
		tests: ["test/resources/extensions.test.ts"],
	},
	{
		id: "GW05",
		file: "src/session/compaction-runner.ts",
		description:
			"compact() on a reopened branch that ends with a compaction, under a host's thinking level recorded on open, summarizes the kept messages again (pi: Already compacted)",
		edits: [
			{
				find: 'if (branchEntries.filter((entry) => !hostRecorded.includes(entry)).at(-1)?.type === "compaction")',
				replace: "if (false)",
			},
		],
		tests: ["test/compaction/pi-differential-session.property.test.ts"],
	},
	{
		id: "GW06",
		file: "src/store/session-manager.ts",
		description:
			"an entry appended with deferWrite is not known as unwritten: compact() after reopening a compacted file under another host level summarizes again",
		edits: [{ find: "this.deferredIds.add(entry.id);", replace: "" }],
		tests: ["test/compaction/pi-differential-session.property.test.ts"],
	},
	{
		id: "GW07",
		file: "src/session/compaction-runner.ts",
		description:
			"every unwritten thinking level counts as no activity, also the one pi writes too when the file records none: a lone compaction says Already compacted where the branch no longer ends with it",
		edits: [
			{
				find: '(entry.type === "thinking_level_change" &&\n\t\t\t\t\t\tbranchEntries.slice(0, at).some((before) => before.type === "thinking_level_change"))),',
				replace: '(entry.type === "thinking_level_change" && at >= 0)),',
			},
		],
		tests: ["test/compaction/pi-differential-session.property.test.ts"],
	},
	{
		id: "GV01",
		file: "src/session/agent-session.ts",
		description:
			"createAgentSession's model over a resumed session is recorded also when the file already records it: every resume on the same model adds a model_change",
		edits: [
			{
				find: "if (hostModel && selection && (selection.provider !== hostModel.provider || selection.modelId !== hostModel.id)) {",
				replace: "if (hostModel && selection) {",
			},
		],
		tests: ["test/pi-races/provider-switch-history.test.ts"],
	},
	{
		id: "GV02",
		file: "src/session/agent-session.ts",
		description:
			"createAgentSession's model over a resumed session's model is written at opening: merely resuming rewrites the file (oh-my-pi#528)",
		edits: [
			{
				find: "sessionManager.appendModelChange(hostModel.provider, hostModel.id, { deferWrite: true });",
				replace: "sessionManager.appendModelChange(hostModel.provider, hostModel.id, { deferWrite: false });",
			},
		],
		tests: ["test/pi-races/provider-switch-history.test.ts"],
	},
	{
		id: "GV03",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p on a session file another program wrote to or deleted prints the SDK's way out (SessionManager.createBranchedSession) instead of --session / --fork",
		edits: [{ find: ": cause && sessionFileChangedForCli(cause);", replace: ": undefined;" }],
		tests: ["test/pi-races/shared-session-files.test.ts"],
	},
	{
		id: "GV04",
		file: "src/cli/host.ts",
		description:
			"settle -p on a session file another program deleted says to run again with --session <file>, which names a file that is gone",
		edits: [{ find: 'reason === "deleted"\n', replace: 'reason === "removed"\n' }],
		tests: ["test/pi-races/shared-session-files.test.ts"],
	},
	{
		id: "GV05",
		file: "src/resources/resource-loader.ts",
		description:
			"the not-installed hint of a package listed in a non-default agent folder leaves out --agent-dir: the copied line installs into the default folder, which the run does not read",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "return `settle install ${source} --agent-dir ${shellWord(this.agentDir)}`;",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "return `settle install ${source}`;",
			},
		],
		tests: ["test/cli/package-commands.test.ts"],
	},
	{
		id: "GV06",
		file: "src/resources/resource-loader.ts",
		description:
			"the not-installed hint's --agent-dir folder is not quoted: a folder with a space splits into two words",
		edits: [{ find: "shellWord(this.agentDir)", replace: "this.agentDir" }],
		tests: ["test/cli/package-commands.test.ts"],
	},
	{
		id: "GV07",
		file: "src/resources/packages.ts",
		description:
			"a listed global npm package makes every start-up run npm root -g (about 0.3 s) even where npm_config_prefix already says where it is",
		edits: [{ find: "? derivedNpmRoot() : undefined;", replace: "? undefined : undefined;" }],
		tests: ["test/cli/package-commands.test.ts"],
	},
	{
		id: "GV08",
		file: "src/resources/packages.ts",
		description:
			"npm's global folder is worked out without reading ~/.npmrc: a prefix set there is missed and a package installed under it is not found",
		edits: [
			{
				find: 'if (!home || setsPrefix(join(home, ".npmrc"))) return undefined;',
				replace: "if (!home) return undefined;",
			},
		],
		tests: ["test/cli/package-commands.test.ts"],
	},
	{
		id: "GV09",
		file: "src/compaction/branch-summary.ts",
		description:
			'a branch summary sizes images it never sends: an images-only newest abandoned message fills the budget and the summary is "No content to summarize"',
		edits: [
			{
				find: "prepareBranchEntries(entries, budget, estimateBranchMessageTokens, options.toolResults);",
				replace: "prepareBranchEntries(entries, budget, estimateMessageTokens, options.toolResults);",
			},
		],
		tests: ["test/pi-races/branch-summary-budget.test.ts"],
	},
	{
		id: "GY01",
		file: "src/session/compaction-runner.ts",
		description:
			'a host\'s model recorded over a resumed compacted file counts as activity: compact() summarizes again or says there is nothing to compact instead of "Already compacted"',
		edits: [{ find: '(entry.type === "model_change" ||', replace: "(false ||" }],
		tests: ["test/pi-races/provider-switch-history.test.ts"],
	},
	{
		id: "HE01",
		file: "src/tools/paths.ts",
		description:
			"a path holding U+00A0 / U+202F is looked up with plain spaces only: the exact name given is not found, or its plain-space twin is read and edited instead (pi#8877, oh-my-pi#12805)",
		edits: [{ find: "return entryExists(exactPath) ? exactPath : normalized;", replace: "return normalized;" }],
		tests: ["test/pi-races/unicode-space-paths.test.ts"],
	},
	{
		id: "HE02",
		file: "src/tools/paths.ts",
		description:
			"read of a name typed with plain spaces no longer finds the one file that has U+00A0 there (claude-code#59381)",
		edits: [{ find: "return siblingWithUnicodeSpaces(resolved) ?? resolved;", replace: "return resolved;" }],
		tests: ["test/pi-races/unicode-space-paths.test.ts"],
	},
	{
		id: "HE03",
		file: "src/tools/paths.ts",
		description: "a plain-space name that folds to two entries guesses the first instead of saying not found",
		edits: [{ find: "return matches.length === 1 ?", replace: "return matches.length >= 1 ?" }],
		tests: ["test/pi-races/unicode-space-paths.test.ts"],
	},
	{
		id: "HE04",
		file: "src/tools/read.ts",
		description:
			"read opens a FIFO (or a device) like a file: the call waits for a writer forever, in a pool thread no abort reaches (hermes-agent#82792)",
		edits: [{ find: 'await refuseSpecialFile(path, "read");', replace: "" }],
		tests: ["test/pi-races/special-files.test.ts"],
	},
	{
		id: "HE05",
		file: "src/tools/write.ts",
		description: "write opens a FIFO for writing and waits for a reader forever (openai-agents-python#4891)",
		edits: [{ find: 'await refuseSpecialFile(path, "write");', replace: "" }],
		tests: ["test/pi-races/special-files.test.ts"],
	},
	{
		id: "HE06",
		file: "src/tools/edit.ts",
		description: "edit reads a FIFO to change it and waits for a writer forever (openai-agents-python#4891)",
		edits: [{ find: 'await refuseSpecialFile(path, "edit");', replace: "" }],
		tests: ["test/pi-races/special-files.test.ts"],
	},
	{
		id: "HE07",
		file: "src/tools/fs-errors.ts",
		description: "a character device such as /dev/zero passes as a file: read never ends (hermes-agent#82792)",
		edits: [{ find: 'if (stats.isCharacterDevice()) return "a character device";', replace: "" }],
		tests: ["test/pi-races/special-files.test.ts"],
	},
	{
		id: "HE08",
		file: "src/tools/truncate.ts",
		description:
			"a listing cut at 50 KB says only that the byte limit was reached: a model shown 112 of 1000 matches, told to raise the limit, takes them for all (code_puppy#903)",
		edits: [
			{
				find: "notices.push({ text: byteLimitNotice(truncation), details",
				replace: 'notices.push({ text: "50.0KB limit reached", details',
			},
		],
		tests: ["test/pi-races/search-byte-limit.test.ts"],
	},
	{
		id: "HB01",
		file: "src/shell-word.ts",
		description:
			"a single quote inside a quoted path is not escaped: a hint's command for a folder named like other's agent does not run when pasted into a shell",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the find text is source holding a template literal
		edits: [{ find: "`'${value.replace(/'/g, \"'\\\\''\")}'`", replace: "`'${value}'`" }],
		tests: ["test/cli/package-commands.test.ts"],
	},
	{
		id: "HB02",
		file: "src/shell-word.ts",
		description:
			"every path is taken as safe and left unquoted: a hint's command for a folder with a space splits it into two words",
		edits: [{ find: "/^[\\w@%+=:,./-]+$/.test(value) ?", replace: "true ?" }],
		tests: ["test/cli/package-commands.test.ts"],
	},
	{
		id: "HH01",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p whose session file another program deleted or wrote to while the model answered prints only the error: the answer that arrived (and was paid for) is on no screen and in no file",
		edits: [
			{ find: "const unsaved = refusedFile ? arrivedAnswer : undefined;", replace: "const unsaved = undefined;" },
		],
		tests: ["test/pi-races/shared-session-files.test.ts"],
	},
	{
		id: "HH02",
		file: "machines/prompt-operation.machine.ts",
		description:
			"compact() / ctx.compact() with other instructions while a manual compaction summarizes joins it: answered with a summary that did not follow what it asked (pi#4203)",
		edits: [
			{
				find: '{ guard: "joinsManualCompaction", actions: "joinManualCompaction" }',
				replace: '{ guard: "isManualCompaction", actions: "joinManualCompaction" }',
			},
		],
		tests: ["test/pi-races/compact-twice.test.ts"],
	},
	{
		id: "HH03",
		file: "src/session/agent-session.ts",
		description:
			"a compact() refused for other instructions rejects with an INTERNAL 'Compaction produced no result' instead of BUSY saying what runs and what to do",
		edits: [
			{
				find: 'pending.reject(new SettleError("BUSY", COMPACTION_OTHER_INSTRUCTIONS));',
				replace: 'pending.reject(new SettleError("INTERNAL", "Compaction produced no result"));',
			},
		],
		tests: ["test/pi-races/compact-twice.test.ts"],
	},
	{
		id: "HH04",
		file: "machines/prompt-operation.machine.ts",
		description:
			"a ctx.compact() with other instructions from a command's dispatch joins the dispatch compaction running: its instructions dropped",
		edits: [{ find: "if (running && !sameCompactionRequest(running, event)) {", replace: "if (false) {" }],
		tests: ["test/machines/prompt-operation.test.ts"],
	},
	{
		id: "HH05",
		file: "machines/prompt-operation.machine.ts",
		description:
			"compact() without instructions while compact(focus) summarizes is refused instead of joining it (it asked for no focus)",
		edits: [
			{
				find: "return event.payload === undefined || JSON.stringify(event.payload) === JSON.stringify(running.payload);",
				replace: "return JSON.stringify(event.payload) === JSON.stringify(running.payload);",
			},
		],
		tests: ["test/pi-races/compact-twice.test.ts"],
	},
	{
		id: "HH06",
		file: "src/resources/resource-loader.ts",
		description:
			"session.reload() reads the settings files twice (itself, then the resource loader): each settings problem is reported twice, and a file saved between the reads mixes two versions",
		edits: [
			{
				find: ".then(() => this.load(options.settingsReloaded !== this.settingsManager))",
				replace: ".then(() => this.load(true))",
			},
		],
		tests: ["test/pi-races/reload-lifecycle.test.ts"],
	},
	{
		id: "HH07",
		file: "src/runtime/services.ts",
		description:
			"createAgentSessionServices reads the settings it just made again through the resource loader: each settings problem is reported twice by drainErrors()",
		edits: [
			{
				find: "await resourceLoader.reload(options.settingsManager ? {} : { settingsReloaded: settingsManager });",
				replace: "await resourceLoader.reload();",
			},
		],
		tests: ["test/pi-races/reload-lifecycle.test.ts"],
	},
	{
		id: "HH08",
		file: "src/runtime/sdk.ts",
		description:
			"createAgentSession reads the settings it just made again through the resource loader: each settings problem is reported twice by drainErrors()",
		edits: [
			{
				find: "await resourceLoader.reload(options.settingsManager ? {} : { settingsReloaded: settingsManager });",
				replace: "await resourceLoader.reload();",
			},
		],
		tests: ["test/pi-races/reload-lifecycle.test.ts"],
	},
	{
		id: "HF01",
		file: "src/cli/interactive-mode.ts",
		description:
			"a resumed session's prompts are not put on the input line's history: after --continue or /resume, Up recalls nothing (pi#6066)",
		edits: [{ find: "if (terminal) rememberPrompts(rl, target);", replace: "" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HF02",
		file: "src/cli/interactive-mode.ts",
		description:
			"a bracketed paste's line breaks are taken for Enter: a pasted block is one message per line, the rest steering the run the first started (hermes-agent#10994)",
		edits: [{ find: "const lineBreak = lines.pasting || ", replace: "const lineBreak = " }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HF03",
		file: "src/cli/chat-input.ts",
		description:
			"the terminal is not asked for bracketed paste: a real terminal sends pasted line breaks as bare Enter (hermes-agent#10994)",
		edits: [{ find: "process.stdout.write(BRACKETED_PASTE_ON);", replace: "" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HF04",
		file: "src/cli/interactive-mode.ts",
		description: "a line ended with `\\` is sent as it is: the chat has no way to type a line break (pi#4520)",
		edits: [{ find: 'const continues = lineBreak || read.endsWith("\\\\")', replace: "const continues = lineBreak" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HF05",
		file: "src/cli/interactive-mode.ts",
		description:
			"Ctrl+C on a message's continuation line keeps its held lines: the next message sent starts with the dropped text (pi#4520)",
		edits: [{ find: "(rl.line.length > 0 || held.length > 0)", replace: "rl.line.length > 0" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HF06",
		file: "src/cli/interactive-mode.ts",
		description:
			"Ctrl+C during a run only lists the queued steers as not sent: the user types them again, pi's Esc puts them back in the editor (atomic#2152)",
		edits: [
			{
				find: "if (terminal && undelivered.length > 0) putBack(undelivered);",
				replace: "if (false) putBack(undelivered);",
			},
		],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HD01",
		file: "src/inspect/lifecycle-inspector.ts",
		description:
			"a child stopped by its parent stays known: the trace of a session disposed while it compacts says the compaction stopped twice",
		edits: [
			{
				find: 'this.children.delete(child.sessionId);\n\t\t\t\tthis.emit({ kind: "actor", phase: "stopped", id: known.id, src: known.src });',
				replace: 'this.emit({ kind: "actor", phase: "stopped", id: known.id, src: known.src });',
			},
		],
		tests: ["test/inspect/lifecycle-inspector.test.ts"],
	},
	{
		id: "HI01",
		file: "src/resources/context-files.ts",
		description:
			"each context file is read once per process and served from memory after: a session resumed, switched to or forked after AGENTS.md was edited gets the old rules (codex#27473, kimi-cli#2420)",
		edits: [
			{
				find: "function loadFromDir(dir: string, diagnostics: ResourceDiagnostic[]): ContextFile | null {",
				replace:
					"const readOnce = new Map<string, string>();\nfunction loadFromDir(dir: string, diagnostics: ResourceDiagnostic[]): ContextFile | null {",
			},
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "return { path, content: readPromptTextFile(path, `context file ${name}`, diagnostics) };",
				replace:
					// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
					"return { path, content: readOnce.get(path) ?? readOnce.set(path, readPromptTextFile(path, `context file ${name}`, diagnostics)).get(path)! };",
			},
		],
		tests: ["test/pi-races/resumed-session-context-files.test.ts"],
	},
	{
		id: "HI02",
		file: "src/session/prompt-pipeline.ts",
		description:
			"`/name` expands the template body loaded at start-up: a template edited since runs its old text until /reload (claude-code#11745)",
		edits: [
			{
				find: "s.resourceLoader.getPrompts().prompts, templateBodyOnDisk);",
				replace: "s.resourceLoader.getPrompts().prompts);",
			},
		],
		tests: ["test/pi-races/prompt-templates-edited.test.ts"],
	},
	{
		id: "HI03",
		file: "src/resources/prompt-templates.ts",
		description:
			"a template whose front matter no longer parses expands to the broken file's body instead of the body it was loaded with (claude-code#11745)",
		edits: [{ find: "return error ? template.content : body;", replace: "return body;" }],
		tests: ["test/pi-races/prompt-templates-edited.test.ts"],
	},
	{
		id: "HI04",
		file: "src/runtime/services.ts",
		description:
			'a skill or template name collision is reported as "collision" and the skipped file only: the user cannot tell which file `/skill:name` runs (gemini-cli#16022)',
		edits: [
			{
				find: '\tif (problem.type === "collision" && problem.collision) {',
				replace: '\tif (problem.type === "collision" && problem.collision && problem.path === undefined) {',
			},
		],
		tests: ["test/pi-races/skills-same-name.test.ts"],
	},
	{
		id: "HI05",
		file: "src/cli/host.ts",
		description:
			'/reload in settle -i reports a name collision as "collision" and the skipped file only, not the file used (gemini-cli#16022)',
		edits: [
			{
				find: "].map(resourceDiagnosticText);",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: '].map((diagnostic) => `${diagnostic.message}${diagnostic.path ? ` (${diagnostic.path})` : ""}`);',
			},
		],
		tests: ["test/pi-races/skills-same-name.test.ts"],
	},
	{
		id: "HI06",
		file: "src/resources/context-files.ts",
		description:
			"a context file is cut at 12,000 characters without a word: the rules at the end of a large AGENTS.md never reach the model (openclaw#69480)",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "return { path, content: readPromptTextFile(path, `context file ${name}`, diagnostics) };",
				replace:
					// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
					"return { path, content: readPromptTextFile(path, `context file ${name}`, diagnostics).slice(0, 12_000) };",
			},
		],
		tests: ["test/pi-races/context-files-large.test.ts"],
	},
	{
		id: "HJ01",
		file: "src/store/discovery.ts",
		description:
			"settle -c takes the session file modified last again: an old session whose mtime a sync or a copy bumped is continued instead of the one -r lists first (claude-code#79572)",
		edits: [
			{
				find: "if (!best || modified.getTime() > best.modified.getTime()) best = { path, modified, read };",
				replace: "if (!best) best = { path, modified, read };",
			},
		],
		tests: ["test/pi-races/continue-latest.test.ts"],
	},
	{
		id: "HJ02",
		file: "src/store/discovery.ts",
		description:
			"settle -c stops at the file modified last: the search for the latest message never looks past it (claude-code#79572)",
		edits: [
			{
				find: "if (best && mtime < best.modified.getTime()) break;",
				replace: "if (best) break;",
			},
		],
		tests: ["test/pi-races/continue-latest.test.ts"],
	},
	{
		id: "HJ03",
		file: "src/cli/session-lookup.ts",
		description: "--session <name> finds no session by its name again: only ids are looked up (pi#5018)",
		edits: [
			{
				find: "if (named !== undefined) return named;\n\t}",
				replace: "if (named !== undefined && named === null) return named;\n\t}",
			},
		],
		tests: ["test/pi-races/session-by-name.test.ts"],
	},
	{
		id: "HJ04",
		file: "src/cli/session-lookup.ts",
		description:
			"--session <name> shared by two sessions (a fork keeps its name) appends to the newest instead of refusing (pi#5018)",
		edits: [
			{
				find: "if (named.length <= 1) return named[0];",
				replace: "if (named.length >= 1) return named[0];",
			},
		],
		tests: ["test/pi-races/session-by-name.test.ts"],
	},
	{
		id: "HK01",
		file: "machines/prompt-operation.machine.ts",
		description:
			"compact() / ctx.compact() with other instructions while a compaction waits to start joins it: answered with a summary that did not follow what it asked (pi#4203)",
		edits: [{ find: "!sameCompactionRequest(context.deferredCompaction, event),", replace: "false," }],
		tests: ["test/pi-races/compact-twice.test.ts", "test/machines/prompt-operation.test.ts"],
	},
	{
		id: "HK02",
		file: "machines/prompt-operation.machine.ts",
		description:
			"compact() with other instructions while ctx.compact() waits for the run aborts the run and takes the waiting compaction over: the first caller's instructions dropped",
		edits: [
			{
				find: `			if (waiting) {
				const joined`,
				replace: `			if (waiting && event.type === "COMPACT_WHEN_SETTLED") {
				const joined`,
			},
			{
				find: `						COMPACT: [refuseOtherThanWaiting, { target: "aborting", actions: abortThenCompact }],
						// agent_end`,
				replace: `						COMPACT: { target: "aborting", actions: abortThenCompact },
						// agent_end`,
			},
		],
		tests: ["test/pi-races/compact-twice.test.ts"],
	},
	{
		id: "HK03",
		file: "src/inspect/lifecycle-inspector.ts",
		description:
			"a root stopped while its child machine's own actor runs: the trace never says that grandchild stopped (only the root's children are reported by XState)",
		edits: [
			{
				find: 'for (const child of this.children.values())\n\t\t\tthis.emit({ kind: "actor", phase: "stopped", id: child.id, src: child.src });',
				replace: "",
			},
		],
		tests: ["test/inspect/lifecycle-inspector.test.ts"],
	},
	{
		id: "HK04",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p whose lock another writer took over mid-run prints the SDK's 'Nothing was written. Open the session again to continue' instead of saying in flags what the file holds and how to go on",
		edits: [
			{
				find: "const lost = /^Lost the write lock on (.+?) \\((.*)\\); another writer may have taken over\\./s.exec(message);",
				replace: "const lost = null as RegExpExecArray | null;",
			},
		],
		tests: ["test/cli/exit-codes-typed.test.ts"],
	},
	{
		id: "HK05",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p whose lock was taken over while the model answered prints the answer, then says the run stopped at its next write: not that the printed answer is missing from the file",
		edits: [{ find: "if (!arrived) return false;", replace: "return false;" }],
		tests: ["test/cli/exit-codes-typed.test.ts"],
	},
	{
		id: "HO01",
		file: "src/cli/chat-input.ts",
		description:
			"pi#3057: settle -i whose terminal closes mid-command lets readline's close throw EIO: exit 1, the command left running, no session_shutdown",
		edits: [
			{ find: '\t\t\t\tinput.prependListener("end", () => this.checkTerminal(tty as ReadStream));\n', replace: "" },
		],
		tests: ["test/pi-races/terminal-loss.test.ts"],
	},
	{
		id: "HO02",
		file: "src/extensions/exec.ts",
		description:
			"howaboua-pi-stuff#260: pi.exec's SIGKILL still due when settle exits is never sent: a program ignoring SIGTERM runs on under init",
		edits: [{ find: '\t\tif (killsDue.size === 0) process.on("exit", sendDueKillsAtExit);\n', replace: "" }],
		tests: ["test/pi-races/extension-exec-exit.test.ts"],
	},
	{
		id: "HO03",
		file: "src/cli/termination.ts",
		description:
			"letta-code#804: EPIPE on stdout is thrown as an error: settle -p | head -1 dies with a stack trace, exit 1",
		edits: [
			{
				find: 'if (!hungUp && error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;',
				replace: "if (!hungUp) throw error;",
			},
		],
		tests: ["test/pi-races/stdout-closed-early.test.ts"],
	},
	{
		id: "HM01",
		file: "src/session/session-stats.ts",
		description:
			"context edits ignored when judging usage: after an extension pruned a tool output, the meter and the threshold check take the usage of the answer that counted it (modelscope/ms-agent#999)",
		edits: [
			{
				find: 'if (entry.type === "context_edit") editedTargets.add(entry.targetId);',
				replace: 'if (entry.type === "context_edit") void entry;',
			},
		],
		tests: ["test/pi-races/usage-after-pruning.test.ts"],
	},
	{
		id: "HM02",
		file: "src/session/session-stats.ts",
		description:
			"an edited message passed on the way back never leaves the pending set: the usage measured before the edit is rejected too, the whole context estimated (ms-agent#999)",
		edits: [{ find: "\t\teditedTargets.delete(entry.id);\n", replace: "" }],
		tests: ["test/pi-races/usage-after-pruning.test.ts"],
	},
	{
		id: "HM03",
		file: "src/session/agent-session.ts",
		description:
			"getContextUsage() keeps the usage of an answer that counted a since-pruned tool output (ms-agent#999)",
		edits: [{ find: "hasContextEdits ? usageStillCurrent(this.sessionManager) : undefined,", replace: "undefined," }],
		tests: ["test/pi-races/usage-after-pruning.test.ts"],
	},
	{
		id: "HM04",
		file: "src/session/run-outcome.ts",
		description:
			"the post-run threshold check takes the usage of an answer that counted a since-pruned tool output: a compaction the pruning made unneeded (ms-agent#999)",
		edits: [
			{
				find: "isUsageCurrent: s.transcript.hasContextEdits ? usageStillCurrent(s.sessionManager) : undefined,",
				replace: "isUsageCurrent: undefined,",
			},
		],
		tests: ["test/pi-races/usage-after-pruning.test.ts"],
	},
	{
		id: "HM05",
		file: "src/llm/tokens.ts",
		description:
			"estimateContextTokens ignores isUsageCurrent: a stale answer's usage is taken as the context's size (ms-agent#999)",
		edits: [
			{
				find: "if (usage !== undefined && (isUsageCurrent === undefined || isUsageCurrent(message as AssistantMessage))) {",
				replace: "if (usage !== undefined) {",
			},
		],
		tests: ["test/pi-races/usage-after-pruning.test.ts"],
	},
	{
		id: "HM06",
		file: "src/session/model-registry-view.ts",
		description:
			"a built-in model declared again in models.json without a cost is priced at 0 (the catalog's prices dropped): every answer looks free (pi#5544)",
		edits: [
			{
				find: "if (index >= 0) custom.cost = { ...models[index]!.cost, ...definedOnly(entry.cost ?? {}) };",
				replace: "",
			},
		],
		tests: ["test/pi-races/models-json-prices.test.ts"],
	},
	{
		id: "HM07",
		file: "src/session/model-registry-view.ts",
		description: "a built-in model declared again with its own cost is charged the catalog's prices instead (pi#5544)",
		edits: [
			{
				find: "...definedOnly(entry.cost ?? {}) };",
				replace: " };",
			},
		],
		tests: ["test/pi-races/models-json-prices.test.ts"],
	},
	{
		id: "HL01",
		file: "src/llm/virtual-models.ts",
		description:
			"a resumed session whose answers echo the upstream's model name (a relay's `claude-opus-5` for `anthropic/claude-opus-5`) takes the echo, misses it in the catalog and falls back to another model (pi#9243)",
		edits: [{ find: "return echoed ? change : response;", replace: "return response;" }],
		tests: ["test/pi-races/resume-recorded-model.test.ts"],
	},
	{
		id: "HL02",
		file: "src/llm/virtual-models.ts",
		description:
			"a resumed pi 0.73.1 session whose answers came from another catalog model than the last pick (`pi -c --model`) goes back to the pick (pi#9243's fix overreaching)",
		edits: [
			{
				find: "change.provider === response.provider && !getModel(response.provider, response.modelId)",
				replace: "change.provider === response.provider",
			},
		],
		tests: ["test/pi-races/resume-recorded-model.test.ts"],
	},
	{
		id: "HL03",
		file: "src/llm/pi-ai.ts",
		description:
			"tool call ids another provider wrote go to a chat-completions model as they are: over 40 characters behind a proxy, OpenAI refuses every request after the switch (openclaw#31934)",
		edits: [
			{
				find: "\tonContext(replayableToolCallIds),\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/tool-call-ids-across-providers.test.ts"],
	},
	{
		id: "HL04",
		file: "src/llm/tool-call-ids.ts",
		description:
			"a long replayed id is cut (`call_` + its first 35 characters), as pi-ai cuts it at 40: two calls whose ids share their first 40 characters reach OpenAI under one id",
		edits: [
			{
				find: "hash.slice(0, CHAT_COMPLETIONS_TOOL_CALL_ID_LIMIT - 5)",
				replace: "id.slice(0, CHAT_COMPLETIONS_TOOL_CALL_ID_LIMIT - 5)",
			},
		],
		tests: ["test/pi-races/tool-call-ids-across-providers.test.ts"],
	},
	{
		id: "HL05",
		file: "src/llm/tool-call-ids.ts",
		description: "a renamed call's result keeps the old id: the call goes back with no result under its id",
		edits: [
			{
				find: "return { ...message, toolCallId: id };",
				replace: "return message;",
			},
		],
		tests: ["test/pi-races/tool-call-ids-across-providers.test.ts"],
	},
	{
		id: "HL06",
		file: "src/llm/tool-call-ids.ts",
		description:
			"calls of two answers of a model that numbers them anew (`call_0` each time) go to Anthropic under one id: every request after the switch refused (Switchyard#502)",
		edits: [{ find: '"anthropic-messages": anthropicId,', replace: "" }],
		tests: ["test/pi-races/tool-call-ids-across-providers.test.ts"],
	},
	{
		id: "HL07",
		file: "src/llm/tool-call-ids.ts",
		description:
			"an Anthropic id an earlier call of the request already goes under is kept: two tool_use blocks share it",
		edits: [{ find: "if (!taken.has(sent)) return sent;", replace: "return sent;" }],
		tests: ["test/pi-races/tool-call-ids-across-providers.test.ts"],
	},
	{
		id: "HN01",
		file: "src/session/session-stats.ts",
		description:
			"the JSONL export of a branch copies its lines as they are: a label set on a branch turn from another branch is lost, one naming another branch's turn goes along (tau#709)",
		edits: [
			{
				find: "leafId === null ? [] : sessionManager.getBranchedEntries(leafId);",
				replace: "leafId === null ? [] : sessionManager.getBranch();",
			},
		],
		tests: ["test/pi-races/export-branch-labels.test.ts"],
	},
	{
		id: "HN02",
		file: "src/export/page.ts",
		description:
			"the export page pairs a tool result with its call by id alone: when a provider reuses an id in a later turn, the first call shows the later call's output and its own result stands apart (vercel/ai#4936)",
		edits: [{ find: "return JSON.stringify([entryId, callId]);", replace: "return callId;" }],
		tests: ["test/pi-races/export-reused-call-ids.test.ts"],
	},
	{
		id: "HN03",
		file: "src/cli/interactive-commands.ts",
		description:
			'/share in settle -i says only "unknown command": not that Settle uploads nothing, nor that /export writes the page to share (pi#7217)',
		edits: [{ find: 'if (name === "share") {', replace: 'if (name === "share" && name !== name) {' }],
		tests: ["test/pi-races/share-offline.test.ts"],
	},
	{
		id: "HN04",
		file: "src/store/folders.ts",
		description:
			"an export path under a file (notes/page.html, notes a file): the check for a device throws Node's raw ENOTDIR instead of the export's error naming the path and what to do (engram#1085)",
		edits: [{ find: 'if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return false;', replace: "" }],
		tests: ["test/pi-races/export-output-paths.test.ts"],
	},
	{
		id: "HN05",
		file: "src/export/write-file.ts",
		description:
			"a failed export write's cleanup throws ENOTDIR for its temp file under a file, hiding the export's error naming the path and what to do (engram#1085)",
		edits: [{ find: "\t\tremoveTemp(temp);", replace: "\t\trmSync(temp, { force: true });" }],
		tests: ["test/pi-races/export-output-paths.test.ts"],
	},
	{
		id: "HQ01",
		file: "src/tools/write.ts",
		description:
			"write to a path ending in a slash (notes/) drops the slash and creates a file named notes instead of saying the path names a folder",
		edits: [{ find: 'if (!path.endsWith("/")) return;', replace: "return;" }],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "HQ02",
		file: "src/tools/replace-file.ts",
		description:
			"write and edit truncate an existing file and fill it in place: a concurrent reader sees a half-written file, a write cut short leaves it truncated (claude-code#14517)",
		edits: [
			{
				find: 'if (!existing.isFile() || existing.nlink > 1) return writeFile(target, content, "utf-8");',
				replace: 'return writeFile(target, content, "utf-8");',
			},
		],
		tests: ["test/pi-races/atomic-writes.test.ts"],
	},
	{
		id: "HQ03",
		file: "src/tools/replace-file.ts",
		description: "a file with a second hard link is replaced by a new file: the other name keeps the old content",
		edits: [{ find: " || existing.nlink > 1", replace: "" }],
		tests: ["test/pi-races/atomic-writes.test.ts"],
	},
	{
		id: "HQ04",
		file: "src/tools/replace-file.ts",
		description:
			"the replacing file keeps the umask's mode, not the old file's: a group-writable 0775 script becomes 0755",
		edits: [{ find: "await handle.chmod(existing.mode & 0o7777);", replace: "" }],
		tests: ["test/pi-races/atomic-writes.test.ts"],
	},
	{
		id: "HQ05",
		file: "src/tools/replace-file.ts",
		description: "a write that fails after its temp file was made (a full disk) leaves the temp file beside the target",
		edits: [{ find: "await rm(temp, { force: true }).catch(() => {});", replace: "" }],
		tests: ["test/pi-races/atomic-writes.test.ts"],
	},
	{
		id: "HQ06",
		file: "src/tools/replace-file.ts",
		description: "a writable file in a folder where no temp file can be made is refused instead of written in place",
		edits: [
			{
				find: 'if (existing !== undefined && (code === "EACCES" || code === "EPERM" || code === "EROFS")) {',
				replace: "if (false) {",
			},
		],
		tests: ["test/pi-races/atomic-writes.test.ts"],
	},
	{
		id: "HQ07",
		file: "src/tools/write.ts",
		description: "write replaces a symbolic link with a regular file instead of writing its target (claude-code#28376)",
		edits: [{ find: "target = await realpath(path);", replace: "target = path;" }],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "HQ08",
		file: "src/tools/edit.ts",
		description: "edit replaces a symbolic link with a regular file instead of writing its target (claude-code#28376)",
		edits: [
			{
				find: "replaceFileContent(await realpath(path), encodeText(content, encoding))",
				replace: "replaceFileContent(path, encodeText(content, encoding))",
			},
		],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "HQ09",
		file: "src/tools/write.ts",
		description:
			"write replaces a file that changed on disk since the model read it, dropping the other program's change (qwen-code#3839)",
		edits: [{ find: "await options.readStamps?.refuseIfChanged(absolutePath, path);", replace: "" }],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "HQ10",
		file: "src/tools/edit.ts",
		description:
			"edit does not record the file it changed: a later write of a file the model read, then edited, is refused as changed since read",
		edits: [{ find: "await options.readStamps?.record(absolutePath);", replace: "" }],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "HQ11",
		file: "src/tools/write.ts",
		description:
			"write does not record the file it wrote: the model's second write of a file it read is refused as changed since read",
		edits: [{ find: "await options.readStamps?.record(absolutePath);\n", replace: "\n" }],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "HQ12",
		file: "src/tools/read-stamps.ts",
		description:
			"files seen are keyed by the path as given: a file read through a link and changed through its target is overwritten through the target",
		edits: [{ find: "const key = await realpath(absolutePath);", replace: "const key = absolutePath;" }],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "HQ13",
		file: "src/session/tool-loadout.ts",
		description:
			"a session's read records into its own record, not the one its write checks: a file changed since read is overwritten",
		edits: [
			{ find: "read: { autoResizeImages, readStamps: this.readStamps },", replace: "read: { autoResizeImages }," },
		],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "HR01",
		file: "src/resources/prompt-templates.ts",
		description:
			"`/name` reads its template file at use as UTF-8 whatever its byte order mark, so a template saved as UTF-16 expands to NULs (code_puppy#778; the resources differential expands as a prompt does)",
		edits: [
			{
				find: "parseFrontmatter(readTextFile(template.filePath));",
				replace: 'parseFrontmatter(process.getBuiltinModule("node:fs").readFileSync(template.filePath, "utf8"));',
			},
		],
		tests: ["test/resources/pi-differential.property.test.ts"],
	},
	{
		id: "HP01",
		file: "src/store/session-manager.ts",
		description:
			"settle -c reads the session it continues twice again: the read that picked it is thrown away and the open parses the whole file once more (+36–56 ms on a 10,000-message session)",
		edits: [
			{
				find: "const reuse = ahead !== undefined && lock !== undefined && isStillCurrent(ahead);",
				replace: "const reuse = false;",
			},
		],
		tests: ["test/store/discovery.test.ts"],
	},
	{
		id: "HP02",
		file: "src/store/session-manager.ts",
		description:
			"settle -c opens the session from its earlier read even when another process appended to the file since: the appended message is dropped from the session and the next write lands after bytes the session never loaded",
		edits: [
			{
				find: "const reuse = ahead !== undefined && lock !== undefined && isStillCurrent(ahead);",
				replace: "const reuse = ahead !== undefined && lock !== undefined;",
			},
		],
		tests: ["test/store/discovery.test.ts"],
	},
	{
		id: "HP03",
		file: "src/cli/session-lookup.ts",
		description:
			"settle --session <value> (or /resume <value>) that is neither a session's id nor its name says only that no id starts with it: a user who typed a name is not told no session is named so",
		edits: [{ find: `, and none is named \${JSON.stringify(given.trim())} (/name names a session)`, replace: "" }],
		tests: ["test/pi-races/session-by-name.test.ts"],
	},
	{
		id: "HP04",
		file: "src/cli/host.ts",
		description:
			"settle --session <value> that matches no session no longer says settle -r lists the sessions: the user is left guessing ids and names",
		edits: [
			{
				find: '" (settle -r lists them all; settle --continue resumes the latest)."',
				replace: '" (settle --continue resumes the latest)."',
			},
		],
		tests: ["test/pi-races/session-by-name.test.ts"],
	},
	{
		id: "HP05",
		file: "src/resources/resource-loader.ts",
		description:
			"--system-prompt <folder> drops the value after its warning: the model gets Settle's default prompt, not the text the user wrote (pi 0.73.1 keeps it)",
		edits: [{ find: "return given ? input : undefined;", replace: "return undefined;" }],
		tests: ["test/cli/pi-startup-flags.test.ts"],
	},
	{
		id: "HP06",
		file: "src/resources/resource-loader.ts",
		description:
			"--append-system-prompt <folder> is taken for a discovered APPEND_SYSTEM.md: the value is dropped after its warning instead of appended as written",
		edits: [
			{
				after: '"appended system prompt",',
				find: "o.appendSystemPrompt !== undefined,",
				replace: "false,",
			},
		],
		tests: ["test/cli/pi-startup-flags.test.ts"],
	},
	{
		id: "HP07",
		file: "src/cli/chat-input.ts",
		description:
			"Backspace in settle's input line deletes one code point again: an emoji with a skin tone, a flag or a ZWJ sequence takes several presses and half of it is sent",
		edits: [{ find: "for (let n = codePoints(before()); n > 0; n--) left.call(this);", replace: "left.call(this);" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HP08",
		file: "src/cli/chat-input.ts",
		description:
			"Delete in settle's input line deletes one code point of the grapheme cluster after the cursor: half an emoji is left in the message",
		edits: [{ find: "for (let n = codePoints(after()); n > 0; n--) right.call(this);", replace: "right.call(this);" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HP09",
		file: "src/cli/chat-input.ts",
		description:
			"Left in settle's input line steps one code point: the cursor lands inside an emoji, and the next edit splits it",
		edits: [{ find: "oneLeft ? -back.length : oneRight", replace: "oneLeft ? dx : oneRight" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HP10",
		file: "src/cli/chat-input.ts",
		description:
			"Right in settle's input line steps one code point: the cursor lands inside an emoji, and Delete takes its second half",
		edits: [{ find: "oneRight ? ahead.length : dx", replace: "dx" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HS01",
		file: "src/runtime/auth-storage.ts",
		description:
			"a request's key lookup does not read auth.json again: a key rotated or stored while a session runs is not used until restart",
		edits: [
			{
				find: "this.readAgainIfChanged();\n\t\tconst credential = this.data[provider];\n\t\tlet key",
				replace: "const credential = this.data[provider];\n\t\tlet key",
			},
		],
		tests: ["test/pi-races/auth-json-while-running.test.ts"],
	},
	{
		id: "HS02",
		file: "src/runtime/auth-storage.ts",
		description: "auth.json caught mid-save (not JSON yet) while a session runs drops every stored key",
		edits: [
			{
				find: "else return;\n\t\tthis.problem = undefined;",
				replace: "else this.data = {};\n\t\tthis.problem = undefined;",
			},
		],
		tests: ["test/pi-races/auth-json-while-running.test.ts"],
	},
	{
		id: "HS03",
		file: "src/session/agent-session.ts",
		description:
			"pi.registerProvider keeps the session's old model object: a baseUrl set from session_start misses the first request",
		edits: [
			{
				find: "this.extensionProviders.add(name);\n\t\t\t\tthis.refreshModelFromRegistry();",
				replace: "this.extensionProviders.add(name);",
			},
		],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "HS04",
		file: "src/session/model-registry-view.ts",
		description:
			"pi.registerProvider sends every model to the provider's baseUrl, a model's own baseUrl ignored (pi#4063)",
		edits: [
			{
				find: 'baseUrl: model.baseUrl ?? config.baseUrl ?? "",',
				replace: 'baseUrl: config.baseUrl ?? model.baseUrl ?? "",',
			},
		],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "HS05",
		file: "src/runtime/models-json.ts",
		description:
			"a built-in provider's models.json entry with only headers is read without them: its requests lack the headers (pi#3538)",
		edits: [
			{
				find: "if (isRecord(entry.headers)) config.headers = entry.headers as Record<string, string>;",
				replace: "",
			},
		],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "HS06",
		file: "src/session/agent-session.ts",
		description:
			"pi.unregisterProvider keeps the session's model as the extension had re-pointed it: requests still go to the old proxy",
		edits: [
			{
				find: "this.extensionProviders.delete(name);\n\t\t\t\tthis.refreshModelFromRegistry();",
				replace: "this.extensionProviders.delete(name);",
			},
		],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "HT01",
		file: "src/extensions/runtime.ts",
		description:
			"pi.registerTool() accepts a tool without parameters: every Anthropic request of the session fails reading its schema",
		edits: [
			{ find: "if (!isSchemaObject(tool.parameters)) {", replace: "if (false && !isSchemaObject(tool.parameters)) {" },
		],
		tests: ["test/pi-races/extension-tool-definitions.test.ts"],
	},
	{
		id: "HT02",
		file: "src/session/input-check.ts",
		description:
			"an SDK customTools entry without parameters is accepted: every Anthropic request fails reading its schema",
		edits: [
			{
				find: 'if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {',
				replace: 'if (parameters === null && typeof parameters !== "object") {',
			},
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "HT03",
		file: "src/extensions/runtime.ts",
		description:
			"pi.registerTool() accepts a name the Anthropic API refuses (a dot): every request of the session answers 400",
		edits: [{ find: "if (/^[a-zA-Z0-9_-]{1,64}$/.test(name)) return undefined;", replace: "return undefined;" }],
		tests: ["test/pi-races/extension-tool-definitions.test.ts"],
	},
	{
		id: "HT04",
		file: "src/session/input-check.ts",
		description: "an SDK customTools entry named atlas.project_create is accepted: every Anthropic request answers 400",
		edits: [
			{ find: "if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {", replace: "if (!/^[a-zA-Z0-9_.-]{1,64}$/.test(name)) {" },
		],
		tests: ["test/bad-input/sdk-arguments.test.ts"],
	},
	{
		id: "HT05",
		file: "src/extensions/runner.ts",
		description:
			"ctx.signal is undefined in handlers: a tool_result handler's fetch is not cut by abort and the run waits out the hook grace",
		edits: [{ find: "return guard(() => actions().getSignal());", replace: "return guard(() => undefined);" }],
		tests: ["test/pi-races/hook-abort-signal.test.ts"],
	},
	{
		id: "HT06",
		file: "src/session/reload.ts",
		description:
			"reload() never sends session_start again: a tool an extension registers there is gone after the reload",
		edits: [{ find: 'await runner.emit({ type: "session_start", reason: "reload" });', replace: "" }],
		tests: ["test/pi-races/reload-tools.test.ts"],
	},
	{
		id: "HV01",
		file: "src/cli/chat-input.ts",
		description:
			"Keys that come in one read are appended at the end of settle's input line: `ab`, Left, `m` sends `abm`",
		edits: [{ find: "\t\t\tinsertAtCursor(this.rl);\n", replace: "" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HV02",
		file: "src/cli/chat-input.ts",
		description:
			"The input line keeps readline's paste flag when inserting: every key of a read but the last goes to the line's end",
		edits: [{ find: "editor.isCompletionEnabled = true;", replace: "editor.isCompletionEnabled = enabled;" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HV03",
		file: "src/cli/chat-input.ts",
		description:
			"A multi-line message goes on the input line's history with raw line breaks: Up moves the terminal's cursor off the prompt",
		edits: [{ find: 'return message.replaceAll("\\n", LINE_BREAK_MARK);', replace: "return message;" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HV04",
		file: "src/cli/chat-input.ts",
		description: "A multi-line message recalled with Up is sent with \u21b5 marks where its line breaks were",
		edits: [{ find: 'return recalled ? read.replaceAll(LINE_BREAK_MARK, "\\n") : read;', replace: "return read;" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HV05",
		file: "src/cli/interactive-mode.ts",
		description: "A resumed session's multi-line prompts go on the input line's history with raw line breaks",
		edits: [
			{
				find: "ChatInput.historyEntry(userMessageText(message.content as never).trim())",
				replace: "userMessageText(message.content as never).trim()",
			},
		],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HV06",
		file: "src/cli/interactive-mode.ts",
		description: "A multi-line message typed in the chat goes on the input line's history with raw line breaks",
		edits: [{ find: "history.unshift(ChatInput.historyEntry(message));", replace: "history.unshift(message);" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HV07",
		file: "src/cli/chat-input.ts",
		description: "A \u21b5 typed on a line that was not recalled from the history is sent as a line break",
		edits: [{ find: "const recalled = this.recalledBreaks;", replace: "const recalled = true;" }],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "HV08",
		file: "src/cli/interactive-mode.ts",
		description:
			"An extension's getEditorText reads a multi-line message recalled with Up with \u21b5 marks instead of its line breaks",
		edits: [{ find: "draft : lines.editedText),", replace: "draft : rl.line)," }],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "HW01",
		file: "src/session/convert-to-llm.ts",
		description:
			"a tool's image/png block whose bytes are a server's JSON error (no image magic bytes) is sent on, so the provider refuses this and every later request, not replaced by a note in the request",
		edits: [{ find: "return isImageData(image) ? undefined : NOT_AN_IMAGE_TEXT;", replace: "return undefined;" }],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "HW02",
		file: "src/session/images.ts",
		description:
			"a prompt's image whose bytes are no PNG, JPEG, GIF or WebP is saved in the session file, not left out with a hint in the prompt's text",
		edits: [
			{
				find: 'if (detectImageMimeType(Buffer.from(image.data.slice(0, 24), "base64")) === undefined) {',
				replace: "if (false) {",
			},
		],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "HW03",
		file: "src/tools/read.ts",
		description:
			"read trusts a .png file name over its bytes: a .png holding a 404 JSON body is treated as an image, not given to the model as its text",
		edits: [
			{
				find: "detectImageMimeType: detectImageMimeTypeFromFile,",
				replace:
					'detectImageMimeType: async (path: string) => (path.endsWith(".png") ? "image/png" : detectImageMimeTypeFromFile(path)),',
			},
		],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "HW04",
		file: "src/tools/read.ts",
		description:
			"read sends a PNG it could not decode (cut short after its header) as it is, so the provider refuses this and every later request, instead of a note in its place",
		edits: [
			{
				find: "return textOnly(UNDECODABLE_IMAGE_NOTE);",
				replace: 'return unresized(buffer, data, mimeType, "it could not be decoded", header);',
			},
		],
		tests: ["test/pi-races/images-attachments.test.ts"],
	},
	{
		id: "HU01",
		file: "src/cli/main.ts",
		description:
			"the signal handlers are removed before the runtime is disposed: a signal during session_shutdown kills settle mid-cleanup",
		edits: [
			{
				find: "await runtime.dispose();\n\t\t\t\treleaseShutdown();\n\t\t\t\trelease();",
				replace: "release();\n\t\t\t\tawait runtime.dispose();\n\t\t\t\treleaseShutdown();",
			},
		],
		tests: ["test/cli/termination.test.ts"],
	},
	{
		id: "HU02",
		file: "src/compaction/prepare.ts",
		description:
			"a compaction's tokensBefore takes the last answer's usage though a context edit made it stale: it over-reports after pruning",
		edits: [
			{
				find: "estimateContextTokens(contextMessages, isUsageCurrent)",
				replace: "estimateContextTokens(contextMessages)",
			},
		],
		tests: ["test/pi-races/usage-after-pruning.test.ts"],
	},
	{
		id: "HU03",
		file: "src/tools/fs-errors.ts",
		description:
			"a write over the file-size limit says only 'Cannot access …: EFBIG', not that the limit was hit, the file is unchanged, and what to do",
		edits: [{ find: '\t\tcase "EFBIG":\n\t\t\treturn outOfSpace', replace: "\t\t\treturn outOfSpace" }],
		tests: ["test/pi-races/atomic-writes.test.ts"],
	},
	{
		id: "HU04",
		file: "src/export/write-file.ts",
		description:
			"an export path under a file quotes Node's mkdir ENOTDIR wording instead of naming the file in the way",
		edits: [{ find: '=== "ENOTDIR" ? fileAbove(target)', replace: '=== "ENOTDIR!" ? fileAbove(target)' }],
		tests: ["test/pi-races/export-output-paths.test.ts"],
	},
	{
		id: "HU05",
		file: "src/cli/interactive-commands.ts",
		description: "/copy counts the answer in UTF-16 units: an emoji shows as two characters (or four)",
		edits: [{ find: "characterCount(text)} characters;", replace: "text.length} characters;" }],
		tests: ["test/cli/interactive-pty.test.ts"],
	},
	{
		id: "HX01",
		file: "src/llm/faux.ts",
		description:
			'the faux provider cuts a delta between the halves of a surrogate pair again: an emoji past the first chunk prints as two "�"',
		edits: [{ find: "if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end++;", replace: "" }],
		tests: ["test/llm/faux.test.ts"],
	},
	{
		id: "HZ01",
		file: "src/cli/args.ts",
		description:
			'a bare `--` no longer ends the options: `settle -p -- "-v …"` fails with Unknown option: -- (Margin-Lab/evals#56)',
		edits: [{ find: 'if (arg === "--") {', replace: 'if (arg === "-- ") {' }],
		tests: ["test/pi-races/cli-end-of-options.test.ts"],
	},
	{
		id: "IG01",
		file: "src/tools/shell.ts",
		description:
			"after an aborted command, the check that its processes are gone reads /proc one stat file per event-loop turn again: on a busy event loop it outlasts the 1 s abort grace and Settle's own bash is reported as ignoring the abort (seedhunt7, RPC differential seed -1740213)",
		edits: [
			{
				find: 'let members = process.platform === "linux" ? treeMembersSync(pgid) : null;',
				replace: 'let members = process.platform === "linux" ? await treeMembersOneAtATime(pgid) : null;',
			},
			{
				find: "/** Whether any process of the group still runs (no /proc",
				replace:
					'async function treeMembersOneAtATime(leader: number): Promise<number[]> {\n\tconst { readdir, readFile } = await import("node:fs/promises");\n\tconst members: number[] = [];\n\tfor (const entry of await readdir("/proc")) {\n\t\tif (!/^\\d+$/.test(entry)) continue;\n\t\tconst stat = await readFile("/proc/" + entry + "/stat", "utf-8").catch(() => undefined);\n\t\tif (stat !== undefined && isTreeMember(stat, leader)) members.push(Number(entry));\n\t}\n\treturn members;\n}\n\n/** Whether any process of the group still runs (no /proc',
			},
		],
		tests: ["test/pi-races/abort-busy-event-loop.test.ts"],
	},
	{
		id: "HZ02",
		file: "src/cli/main.ts",
		description:
			"piped stdin that is not UTF-8 is silently turned into U+FFFD again: the script gets no warning (apfel#397)",
		edits: [
			{
				find: 'new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })',
				replace: 'new TextDecoder("utf-8", { fatal: false, ignoreBOM: true })',
			},
		],
		tests: ["test/pi-races/piped-stdin-encoding.test.ts"],
	},
	{
		id: "HY01",
		file: "src/session/boundaries.ts",
		description:
			"a boundary compaction measures tokensBefore on the live transcript again: a context edit drafted earlier in the same batch is not counted (ms-agent#999)",
		edits: [
			{
				find: "const messages = reshaped ? manager.buildSessionContext().messages : s.agent.state.messages;",
				replace: "const messages = s.agent.state.messages;",
			},
		],
		tests: ["test/pi-races/usage-after-pruning.test.ts"],
	},
	{
		id: "HY02",
		file: "src/session/boundaries.ts",
		description:
			"a boundary compaction takes the last answer's usage as tokensBefore though a context edit made it stale (ms-agent#999)",
		edits: [
			{
				find: "const isUsageCurrent = s.transcript.hasContextEdits ? usageStillCurrent(manager) : undefined;",
				replace: "const isUsageCurrent = undefined;",
			},
		],
		tests: ["test/pi-races/usage-after-pruning.test.ts"],
	},
	{
		id: "HY03",
		file: "src/session/model-registry-view.ts",
		description:
			"a models.json entry that cannot apply alone is forgotten again: an extension registering its provider drops its models (pi#2956)",
		edits: [{ find: "providersOf(runtime).fileModels.set(name, { ...config });", replace: "" }],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "HY04",
		file: "src/session/model-registry-view.ts",
		description:
			"models.json models under an extension's provider no longer take the extension's baseUrl and api: they have none and cannot be requested (senpi#1270)",
		edits: [
			{
				find: "const composed = { ...config, ...definedOnly({ ...file, models: undefined }) };",
				replace: "const composed = { ...file, models: undefined };",
			},
		],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "HY05",
		file: "src/runtime/models-json.ts",
		description:
			"the warning for a models.json provider that cannot apply alone no longer says its models join an extension's provider of that name (pi#2956)",
		edits: [{ find: "const joins = !builtIn.has(name) && models.length > 0;", replace: "const joins = false;" }],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "HY06",
		file: "src/session/model-registry-view.ts",
		description:
			"a models.json model with the id of one an extension registers no longer replaces it: the provider lists the id twice (pi#2956)",
		edits: [{ find: "...models.filter((model) => !fileIds.has(model.id))", replace: "...models" }],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "HX02",
		file: "src/cli/termination.ts",
		description:
			"pi#3057: a write to a terminal that hung up (EIO) is rethrown again: a prompt redrawn before the hang-up's SIGHUP or end of input crashes settle with exit 1",
		edits: [
			{
				find: 'const hungUp = error.code === "EIO" && process.stdout.isTTY === true;',
				replace: "const hungUp = false;",
			},
		],
		tests: ["test/pi-races/terminal-loss.test.ts"],
	},
	{
		id: "IZ01",
		file: "src/agent/agent-loop.ts",
		description:
			"oh-my-pi#2055: streamed message_updates carry a repeated tool-call id as the model sent it, so a host keying calls by id sees one call until the answer ends",
		edits: [{ find: "const shown = withUniqueToolCallIds(partial);", replace: "const shown = partial;" }],
		tests: ["test/pi-races/parallel-tool-batches.test.ts"],
	},
	{
		id: "IZ02",
		file: "src/agent/agent-loop.ts",
		description:
			"oh-my-pi#2055: a streamed toolcall_end event names the repeated id though its partial holds the unique one",
		edits: [
			{
				find: 'toolCall: block?.type === "toolCall" ? block : event.toolCall',
				replace: "toolCall: event.toolCall",
			},
		],
		tests: ["test/pi-races/parallel-tool-batches.test.ts"],
	},
	{
		id: "IB01",
		file: "src/tools/shell.ts",
		description:
			"pi#6181: a timeout over Node's timer limit is passed on unchecked: the timer fires after 1 ms, the command is killed at once and reported as timed out after the huge value",
		edits: [{ find: "\t\t\tcheckTimeout(timeout);\n", replace: "" }],
		tests: ["test/pi-races/bash-timeouts.test.ts"],
	},
	{
		id: "IB02",
		file: "src/tools/shell.ts",
		description: "pi#6181: the longest timeout the timer can hold (2147483 s) is refused too (off by one at the limit)",
		edits: [
			{
				find: "Number.isFinite(timeout) && timeout <= MAX_BASH_TIMEOUT_SECONDS",
				replace: "Number.isFinite(timeout) && timeout < MAX_BASH_TIMEOUT_SECONDS",
			},
		],
		tests: ["test/pi-races/bash-timeouts.test.ts"],
	},
	{
		id: "IB03",
		file: "src/tools/shell.ts",
		description:
			'oh-my-openagent#2220: a command holding a NUL character reaches spawn: the model gets Node\'s "args[1] must be a string without null bytes" instead of a typed refusal saying what to do',
		edits: [{ find: "\t\t\tcheckCommandText(command);\n", replace: "" }],
		tests: ["test/pi-races/bash-nul-bytes.test.ts"],
	},
	{
		id: "IB04",
		file: "src/tools/bash.ts",
		description:
			"dreb#114: the bash tool shows every frame a progress bar redraws with \\r: the frames fill the result and push the command's lines out of the tail",
		edits: [{ find: "redrawCarriageReturns: true,", replace: "redrawCarriageReturns: false," }],
		tests: ["test/pi-races/bash-progress-bars.test.ts"],
	},
	{
		id: "IB05",
		file: "src/tools/output-accumulator.ts",
		description:
			"dreb#114: frames a redraw hides still count against the 50 KB limit: a short output with a long progress bar is reported cut",
		edits: [
			{
				find: "(redrawn || escapesStripped) && !this.tailTrimmed",
				replace: "escapesStripped && !this.tailTrimmed",
			},
		],
		tests: ["test/pi-races/bash-progress-bars.test.ts"],
	},
	{
		id: "IB06",
		file: "src/tools/output-accumulator.ts",
		description:
			"dreb#114: redrawn frames are dropped from the result without a full-output file: the raw output is lost",
		edits: [
			{
				find: "if (truncated || redrawn || escapesStripped || (notUtf8",
				replace: "if (truncated || escapesStripped || (notUtf8",
			},
		],
		tests: ["test/pi-races/bash-progress-bars.test.ts"],
	},
	{
		id: "IB07",
		file: "src/tools/output-accumulator.ts",
		description:
			"lean-ctx#1140: the \\r of a \\r\\n line ending is taken for a redraw: Windows line endings lose their \\r",
		edits: [{ find: 'const ending = line.endsWith("\\r") ? "\\r" : "";', replace: 'const ending = "";' }],
		tests: ["test/pi-races/bash-progress-bars.test.ts"],
	},
	{
		id: "IE01",
		file: "src/tools/read.ts",
		description:
			"pi#9654: the default read operations read text whole again (no readChunks): one line of a 200 MB file costs hundreds of MB, a 5 GB file cannot be read",
		edits: [{ find: "\treadChunks: readFileChunks,\n", replace: "" }],
		tests: ["test/tools/read-large-file.test.ts"],
	},
	{
		id: "IE02",
		file: "src/tools/read.ts",
		description:
			"pi#9654: the first chunks, gathered for the binary sniff, are kept as views instead of copies: a reader that reuses its buffer shows the next chunk's bytes",
		edits: [
			{
				find: "head.push(Buffer.from(next.value));",
				replace: "head.push(Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength));",
			},
		],
		tests: ["test/tools/read-large-file.test.ts"],
	},
	{
		id: "IE03",
		file: "src/tools/read-window.ts",
		description:
			"pi#9654: the pieces of a shown line are kept as views of the chunk instead of copies: a line split over chunks of a reused buffer comes back garbled",
		edits: [
			{
				find: "this.linePieces.push(Buffer.from(bytes.subarray(from, to)));",
				replace: "this.linePieces.push(bytes.subarray(from, to));",
			},
		],
		tests: ["test/tools/read-large-file.test.ts"],
	},
	{
		id: "IE04",
		file: "src/tools/read-window.ts",
		description:
			"pi#9654: the window's byte total also counts a line break before its first line: a truncated read's details.truncation.totalBytes is one more than pi's",
		edits: [
			{
				find: "if (this.lineIndex > this.start) this.windowBytes += 1;",
				replace: "this.windowBytes += 1;",
			},
		],
		tests: ["test/tools/pi-differential.property.test.ts"],
	},
	{
		id: "IE05",
		file: "src/tools/read-window.ts",
		description:
			"pi#9654: a line of the window that cannot be shown (past the caps) still counts as needed until it ends: a 5 GB file of one long line past the first 2000 is read to its end",
		edits: [
			{
				find: "return this.kept.length < DEFAULT_MAX_LINES && this.keptBytes + this.linePieceBytes <= DEFAULT_MAX_BYTES;",
				replace: "return true;",
			},
		],
		tests: ["test/tools/read-large-file.test.ts"],
	},
	{
		id: "IE06",
		file: "src/tools/read-stamps.ts",
		description:
			"mistral-vibe#1064: a file of the same size and modification time is never compared by content: another process's same-size rewrite within one clock tick is overwritten by the model's write",
		edits: [
			{
				find: "return digest !== undefined && digest !== seen.digest;",
				replace: "return false;",
			},
		],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "IE07",
		file: "src/tools/read-stamps.ts",
		description:
			"mistral-vibe#1064: only files modified long before the read keep a content digest (the window test inverted): one changed within the read's tick is compared by size and time alone",
		edits: [
			{
				find: "stamp.mtimeNs > now - SAME_TICK_WINDOW_NS",
				replace: "stamp.mtimeNs < now - SAME_TICK_WINDOW_NS",
			},
		],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "IE08",
		file: "src/tools/read-stamps.ts",
		description:
			"mistral-vibe#1064: an equal digest no longer lets the write through: a file read and left unchanged, modified within the last seconds, is refused as changed",
		edits: [
			{
				find: "return digest !== undefined && digest !== seen.digest;",
				replace: "return digest !== undefined;",
			},
		],
		tests: ["test/pi-races/file-tools-paths.test.ts"],
	},
	{
		id: "ID01",
		file: "src/llm/signed-empty-thinking.ts",
		description:
			"pi#6376: a signed thinking block with empty text is left to pi-ai 0.73.1 again, which drops it: the request after the tool call it preceded is refused",
		edits: [
			{
				find: 'block.redacted || block.thinking.trim() !== "") continue;',
				replace: 'block.redacted || block.thinking.trim() === "") continue;',
			},
		],
		tests: ["test/pi-races/signed-empty-thinking.test.ts"],
	},
	{
		id: "ID02",
		file: "src/llm/signed-empty-thinking.ts",
		description:
			"pi#6376: the stand-in text of a signed empty thinking block is no longer put back: the request carries a thinking text the model never wrote",
		edits: [{ find: "\t\trestoreEmptyThinking(payload, originals);\n", replace: "" }],
		tests: ["test/pi-races/signed-empty-thinking.test.ts"],
	},
	{
		id: "ID03",
		file: "src/llm/signed-empty-thinking.ts",
		description:
			"pi#6376: another model's signed empty thinking block gets the stand-in too: pi-ai sends it to that model as text",
		edits: [
			{
				find: "if (message.provider !== model.provider || message.api !== model.api || message.model !== model.id) return message;",
				replace: "",
			},
		],
		tests: ["test/pi-races/signed-empty-thinking.test.ts"],
	},
	{
		id: "ID04",
		file: "src/cli/interactive-mode.ts",
		description:
			"pi#5909: each Shift+Tab press sets the level at once, as pi's: a burst of presses writes a thinking_level_change per press",
		edits: [
			{
				after: "lines.onShiftTab = () => {",
				find: "\n\t};\n",
				replace: "\n\t\tapplyPickedThinking();\n\t};\n",
			},
		],
		tests: ["test/pi-races/thinking-cycle-key.test.ts"],
	},
	{
		id: "ID05",
		file: "src/cli/interactive-mode.ts",
		description: "oh-my-pi#403: Shift+Tab stops at the model's highest level instead of wrapping to off",
		edits: [
			{
				find: "pickedThinking = levels[(levels.indexOf(from) + 1) % levels.length];",
				replace: "pickedThinking = levels[Math.min(levels.indexOf(from) + 1, levels.length - 1)];",
			},
		],
		tests: ["test/pi-races/thinking-cycle-key.test.ts"],
	},
	{
		id: "ID06",
		file: "src/cli/interactive-mode.ts",
		description:
			"pi#5909: a level picked with Shift+Tab just before the chat ends is dropped: neither the file nor settings.json get it",
		edits: [
			{
				find: "\t\tawait session().waitForIdle();\n\t\tapplyPickedThinking();\n",
				replace: "\t\tawait session().waitForIdle();\n",
			},
		],
		tests: ["test/pi-races/thinking-cycle-key.test.ts"],
	},
	{
		id: "IA01",
		file: "src/session/provider-stream.ts",
		description:
			'dub#1452: a provider request the proxy turned away ends in the bare "Connection error." again (no proxy, no variable, no NO_PROXY hint); a 407 is retried',
		edits: [
			{
				find: "if (proxyInUse()) return withProxyFailuresExplained(unproxied, model, context, options);",
				replace:
					"if (proxyInUse() && !proxyInUse()) return withProxyFailuresExplained(unproxied, model, context, options);",
			},
		],
		tests: ["test/pi-races/proxy-refusals.test.ts"],
	},
	{
		id: "IA02",
		file: "src/llm/env-proxy.ts",
		description:
			"claude-code-router#341: a proxy's 407 is no longer told apart: the error does not say to put the proxy's credentials in the variable",
		edits: [{ find: 'if (status === "407") {', replace: 'if (status === "4070") {' }],
		tests: ["test/pi-races/proxy-refusals.test.ts"],
	},
	{
		id: "IA03",
		file: "src/llm/env-proxy.ts",
		description: "claude-code-router#341: the proxy named in the error keeps the user and password of its variable",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "return `${parsed.protocol}//${parsed.host}`;",
				replace: 'return parsed.href.replace(/\\/$/, "");',
			},
		],
		tests: ["test/pi-races/proxy-refusals.test.ts"],
	},
	{
		id: "IA04",
		file: "src/session/stream-idle.ts",
		description:
			"jcode#976: the stream idle timeout counts pi-ai's events only again: SSE keep-alives through a long prefill are silence, the live request is cut and resent",
		edits: [{ find: "			alive: arm,", replace: "			alive: () => {}," }],
		tests: ["test/pi-races/provider-dropped-connections.test.ts"],
	},
	{
		id: "IA05",
		file: "src/llm/response-activity.ts",
		description:
			"jcode#976: only the response headers count as activity, not the bytes of its event stream: keep-alive comments after them are silence again",
		edits: [{ find: "			watchBody(received, listener);", replace: "" }],
		tests: ["test/pi-races/provider-dropped-connections.test.ts"],
	},
	{
		id: "IF01",
		file: "src/extensions/loader.ts",
		description:
			"pi#3553: an extension tool named as a built-in one replaces it without a word again (no warning diagnostic)",
		edits: [{ find: "diagnostics.push(...builtinToolOverrides(runtime.extensions));", replace: "" }],
		tests: ["test/pi-races/extension-builtin-overrides.test.ts"],
	},
	{
		id: "IF02",
		file: "src/runtime/services.ts",
		description:
			"pi#3553: the built-in override warning is taken as a load error, so an extension overriding bash stops settle from starting",
		edits: [{ find: 'type: problem.type === "warning" ? "warning" : "error",', replace: 'type: "error",' }],
		tests: ["test/pi-races/extension-builtin-overrides.test.ts"],
	},
	{
		id: "IF03",
		file: "src/extensions/loader.ts",
		description: "pi#3553: every extension tool is reported as replacing a built-in one, not only those named as one",
		edits: [{ find: ".filter((name) => builtins.includes(name))", replace: ".filter((name) => name !== builtins[0])" }],
		tests: ["test/pi-races/extension-builtin-overrides.test.ts"],
	},
	{
		id: "IF04",
		file: "src/runtime/services.ts",
		description:
			"pi#2956: the models.json warning for a provider whose models joined an extension's registration is printed again",
		edits: [{ find: "withdrawJoinedProviderWarnings(modelRuntime, registered, diagnostics);", replace: "" }],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "IF05",
		file: "src/runtime/models-json.ts",
		description:
			"pi#2956: every models.json provider waiting for an extension loses its warning, also one no extension registers",
		edits: [{ find: "for (const name of registered) {", replace: "for (const name of [...waiting.keys()]) {" }],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "IF06",
		file: "src/extensions/runtime.ts",
		description:
			"a program an extension started with pi.exec and no signal runs on under init after settle exits: the session's end no longer stops it",
		edits: [{ find: "this.execsEnd.abort();", replace: "" }],
		tests: ["test/pi-races/extension-exec-exit.test.ts"],
	},
	{
		id: "IF07",
		file: "src/extensions/runtime.ts",
		description:
			"pi.exec calls without a signal all listen on the runtime's one signal: a dozen at once make Node print a MaxListenersExceededWarning",
		edits: [
			{
				find: "AbortSignal.any(options?.signal ? [options.signal, this.execsEnd.signal] : [this.execsEnd.signal])",
				replace: "options?.signal ? AbortSignal.any([options.signal, this.execsEnd.signal]) : this.execsEnd.signal",
			},
		],
		tests: ["test/pi-races/extension-exec-exit.test.ts"],
	},
	{
		id: "IF08",
		file: "src/session/agent-session.ts",
		description:
			"session.dispose() ends the extensions' pi.exec programs while their session_shutdown handlers still run: a cleanup command is killed (143)",
		edits: [
			{
				find: "this.runnerInstance.invalidate(STALE_EXTENSION_CONTEXT_MESSAGE, this.shutdownWait);",
				replace: "this.runnerInstance.invalidate(STALE_EXTENSION_CONTEXT_MESSAGE);",
			},
		],
		tests: ["test/pi-races/sdk-embedding.test.ts"],
	},
	{
		id: "IF09",
		file: "src/cli/main.ts",
		description:
			"mise#12925: piped stdin is trimmed of ASCII whitespace only: a leading UTF-8 byte order mark reaches the model and the session file",
		edits: [
			{
				find: "const stdinText = piped?.trim();",
				replace: 'const stdinText = piped?.replace(/^[ \\t\\r\\n]+|[ \\t\\r\\n]+$/g, "");',
			},
		],
		tests: ["test/pi-races/piped-stdin-encoding.test.ts"],
	},
	{
		id: "IC01",
		file: "src/session/prompt-pipeline.ts",
		description:
			"pi#8401: session.continue() on a transcript whose last message is the assistant's answer is no longer refused: it resolves having done nothing, and the host is not told to send a prompt",
		edits: [
			{
				find: 'if (!last || (last.role === "assistant" && !s.agent.hasQueuedMessages())) {',
				replace: "if (!last) {",
			},
		],
		tests: ["test/pi-races/restored-transcript-continue.test.ts"],
	},
	{
		id: "IC02",
		file: "src/session/prompt-pipeline.ts",
		description:
			"pi#8401: session.continue() while an operation runs is not refused BUSY: it falls into the text prompt's pipeline",
		edits: [
			{
				find: 'if (payload.kind === "continue") throw new SettleError("BUSY", CONTINUE_WHILE_BUSY);',
				replace: "",
			},
		],
		tests: ["test/pi-races/restored-transcript-continue.test.ts"],
	},
	{
		id: "IC03",
		file: "src/session/agent-session.ts",
		description:
			"pi#8026: session.continue() runs agent.continue() behind the session's back (as a host calling session.agent.continue()): no retry of a failed attempt, no agent_settled",
		edits: [
			{
				find: 'return this.request({ kind: "continue" });',
				replace: "return this.agent.continue();",
			},
		],
		tests: ["test/pi-races/restored-transcript-continue.test.ts"],
	},
	{
		id: "IC04",
		file: "src/session/public-events.ts",
		description:
			"tiny-emitter#1: unsubscribing removes the listener from the list being delivered: the listener after a one-shot waiter that removed itself misses the event",
		edits: [
			{
				find: "if (index !== -1) this.listeners = [...this.listeners.slice(0, index), ...this.listeners.slice(index + 1)];",
				replace: "if (index !== -1) (this.listeners as AgentSessionListener[]).splice(index, 1);",
			},
		],
		tests: ["test/pi-races/listeners-mid-event.test.ts"],
	},
	{
		id: "IC05",
		file: "src/session/public-events.ts",
		description:
			"argent#870: subscribing adds to the list being delivered: a listener added during an event hears that event too",
		edits: [
			{
				find: "this.listeners = [...this.listeners, listener];",
				replace: "(this.listeners as AgentSessionListener[]).push(listener);",
			},
		],
		tests: ["test/pi-races/listeners-mid-event.test.ts"],
	},
	{
		id: "IC06",
		file: "src/session/agent-session.ts",
		description:
			"opencode#25421: prompt() resolves once its run has started, not after agent_settled: the host takes the turn as over while the answer's deltas and message_end are still to come",
		edits: [
			{
				find: 'if (event.disposition !== "started") {',
				replace: "if (event.disposition !== undefined) {",
			},
		],
		tests: ["test/pi-races/prompt-resolves-last.test.ts"],
	},
	{
		id: "IC07",
		file: "src/tools/paths.ts",
		description:
			"pi#279: a relative tool path resolves against process.cwd(), not the session's cwd: an SDK session's write, edit and read act in the host's folder",
		edits: [
			{
				find: "const normalized = isAbsolute(expanded) ? expanded : resolve(cwd, expanded);",
				replace: "const normalized = isAbsolute(expanded) ? expanded : resolve(expanded);",
			},
		],
		tests: ["test/pi-races/sdk-tools.test.ts"],
	},
	{
		id: "IC08",
		file: "src/tools/bash.ts",
		description: "pi#279: the bash tool spawns in the process's cwd instead of the session's",
		edits: [
			{
				find: "const base: BashSpawnContext = { command: fullCommand, cwd, env: { ...process.env } };",
				replace:
					"const base: BashSpawnContext = { command: fullCommand, cwd: process.cwd(), env: { ...process.env } };",
			},
		],
		tests: ["test/pi-races/sdk-tools.test.ts"],
	},
	{
		id: "IC09",
		file: "src/session/agent-session.ts",
		description:
			"KurrentDB-Client-Dotnet#138: dispose() stays subscribed to the Agent: the answer a transport streams after dispose is still saved to the session file",
		edits: [{ find: "\t\tthis.unsubscribeAgent();\n", replace: "" }],
		tests: ["test/pi-races/sdk-embedding.test.ts"],
	},
	{
		id: "IC10",
		file: "src/session/agent-session.ts",
		description:
			"pi#8401: a host's own session.agent.continue() runs again: the model answers past the session, which says idle and refuses prompts meanwhile",
		edits: [{ find: "\t\trefuseDirectRuns(agent);\n", replace: "" }],
		tests: ["test/pi-races/restored-transcript-continue.test.ts"],
	},
	{
		id: "II01",
		file: "src/cli/rpc-mode.ts",
		description:
			"kotlin-sdk#956: a UTF-8 byte order mark ahead of an RPC command is kept: the command is refused as a parse error without its id",
		edits: [{ find: 'const text = line.startsWith("\\uFEFF") ? line.slice(1) : line;', replace: "const text = line;" }],
		tests: ["test/pi-races/rpc-byte-order-mark.test.ts"],
	},
	{
		id: "II02",
		file: "src/cli/termination.ts",
		description:
			"pi#9328: a SIGTERM exits at once: a settle --rpc run is neither aborted nor saved, and no agent_end reaches the supervisor",
		edits: [{ find: "\t\tending = true;\n", replace: "\t\tending = true;\n\t\texit(code);\n" }],
		tests: ["test/pi-races/rpc-termination.test.ts"],
	},
	{
		id: "II03",
		file: "src/tools/truncate.ts",
		description:
			"claude-code#56064: grep's line cut falls between the halves of an emoji: a lone surrogate in every --mode json line and the session file",
		edits: [
			{
				find: "sliceWholeCharacters(line, maxChars)}... [truncated]",
				replace: "line.slice(0, maxChars)}... [truncated]",
			},
		],
		tests: ["test/pi-races/cut-surrogate-pairs.test.ts"],
	},
	{
		id: "IJ01",
		file: "src/session/queues.ts",
		description:
			"kimchi#34: a message an input hook sends while it handles one of the same kind queues behind it: the hook that awaits it hangs",
		edits: [
			{
				find: "runHooks: (hooks) => hookedTurn.run({ queues: this, turn: own }, hooks),",
				replace: "runHooks: (hooks) => hooks(),",
			},
		],
		tests: ["test/pi-races/steer-order.test.ts"],
	},
	{
		id: "IJ02",
		file: "src/session/queues.ts",
		description:
			"kimchi#34: the message an input hook handles no longer waits for one its hook sent without awaiting it",
		edits: [{ find: "parent.waitFor = parent.waitFor.then(() => mine);", replace: "" }],
		tests: ["test/pi-races/steer-order.test.ts"],
	},
	{
		id: "IJ03",
		file: "src/session/queues.ts",
		description: "kimchi#34: a steer sent after one an input hook handled overtakes the replacement the hook sent",
		edits: [{ find: "resolve(Promise.all(own.ahead).then(() => {}));", replace: "resolve(Promise.resolve());" }],
		tests: ["test/pi-races/steer-order.test.ts"],
	},
	{
		id: "IJ04",
		file: "src/cli/host.ts",
		description:
			"pi#2956: the models.json warning of a provider waiting for an extension is printed at startup, before session_start could register it",
		edits: [{ find: "!held.has(d) &&", replace: "" }],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "IJ05",
		file: "src/cli/main.ts",
		description: "pi#2956: a provider an extension registered in session_start still gets its models.json warning",
		edits: [{ find: "if (!served.has(provider))", replace: "if (served.size >= 0)" }],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "IJ06",
		file: "src/cli/print-mode.ts",
		description: "pi#2956: settle -p never says the models.json warning of a provider no extension registered",
		edits: [{ find: "options.onSessionStarted?.();", replace: "" }],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "IJ07",
		file: "src/cli/main.ts",
		description: "pi#2956: settle --list-models no longer warns of a models.json provider no extension registers",
		edits: [
			{
				find: "for (const warning of [...warnings, ...providerWarnings.values()])",
				replace: "for (const warning of warnings)",
			},
		],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "IH01",
		file: "src/tools/find.ts",
		description:
			"claude-code#46590: find matches case exactly whatever the pattern: `roadmap.md` and `*.md` say no files found for ROADMAP.md and notes.MD, which pi's fd finds",
		edits: [{ find: "nocase: !/\\p{Uppercase}/u.test(pattern)", replace: "nocase: false" }],
		tests: ["test/pi-races/find-case.test.ts"],
	},
	{
		id: "IH02",
		file: "src/tools/find.ts",
		description:
			"claude-code#46590: find ignores case even for a pattern with an uppercase letter: `ROADMAP.md` also lists docs/roadmap.md, `*.MD` every .md file",
		edits: [{ find: "nocase: !/\\p{Uppercase}/u.test(pattern)", replace: "nocase: true" }],
		tests: ["test/pi-races/find-case.test.ts"],
	},
	{
		id: "IH03",
		file: "src/tools/grep.ts",
		description:
			"openclaw-memory-libravdb#317: grep matches lines on the main thread again: `(a+)+$` on a line of a's holds the event loop for seconds, and Esc is seen only once the search has ended",
		edits: [
			{
				find: "const matchLines = await matcher.match(text, limit);",
				replace: 'const matchLines = text.split("\\n").flatMap((line, i) => (regex.test(line) ? [i + 1] : []));',
			},
		],
		tests: ["test/pi-races/grep-backtracking.test.ts"],
	},
	{
		id: "IL01",
		file: "src/session/agent-session.ts",
		description: "subscribe() on a disposed session is accepted silently; the listener never hears anything",
		edits: [
			{
				find: "\t\tthis.assertUsable();\n\t\treturn this.events.subscribe(listener);",
				replace: "\t\treturn this.events.subscribe(listener);",
			},
		],
		tests: ["test/session/disposed-flags.test.ts"],
	},
	{
		id: "IL02",
		file: "src/cli/main.ts",
		description:
			"pi#2956: settle -p with no prompt (after an extension flag) ends without the held models.json warning",
		edits: [
			{
				find: "\t\t\t\t\t\tsayProviderWarnings();\n\t\t\t\t\t\tawait runtime.dispose();",
				replace: "\t\t\t\t\t\tawait runtime.dispose();",
			},
		],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "IL03",
		file: "src/cli/host.ts",
		description: "pi#2956: settle --mode json with an unknown option ends without the held models.json warning",
		edits: [{ find: "if (!served.has(provider)) lines.push(", replace: "if (served.size < 0) lines.push(" }],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "IL04",
		file: "src/cli/main.ts",
		description: "pi#2956: settle -p says the held models.json warning twice: after session_start and again at exit",
		edits: [{ find: "if (providerWarningsSaid) return;", replace: "" }],
		tests: ["test/pi-races/extension-provider-urls.test.ts"],
	},
	{
		id: "IK01",
		file: "src/compaction/serialize.ts",
		description:
			"claude-code#56064: a tool result cut at 2000 characters for a summary request splits an emoji: a lone surrogate goes to the provider",
		edits: [
			{
				find: "const head = sliceWholeCharacters(text, TOOL_RESULT_MAX_CHARS - TOOL_RESULT_TAIL_CHARS);",
				replace: "const head = text.slice(0, TOOL_RESULT_MAX_CHARS - TOOL_RESULT_TAIL_CHARS);",
			},
		],
		tests: ["test/pi-races/cut-surrogate-pairs.test.ts"],
	},
	{
		id: "IK02",
		file: "src/export/page.ts",
		description: "claude-code#56064: the exported page's tree row cut splits an emoji: the row shows a lone half",
		edits: [{ find: "last >= 0xd800 && last <= 0xdbff ? end - 1 : end", replace: "end" }],
		tests: ["test/pi-races/cut-surrogate-pairs.test.ts"],
	},
	{
		id: "IK03",
		file: "src/cli/interactive-render.ts",
		description:
			"claude-code#56064: the chat's clipped line (a tool call's arguments) splits an emoji: the terminal gets a lone half",
		edits: [{ find: "return end > 0 ? text.slice(0, end)", replace: "return end > 0 ? text.slice(0, max)" }],
		tests: ["test/pi-races/cut-surrogate-pairs.test.ts"],
	},
	{
		id: "IK04",
		file: "src/llm/tool-call-ids.ts",
		description:
			"oh-my-pi#2055: a pi session's two calls both call_0 sent to an Anthropic model: both results go under the second call's new id, the first call has none",
		edits: [{ find: "sentIds.get(message.toolCallId)?.shift()", replace: "sentIds.get(message.toolCallId)?.at(-1)" }],
		tests: ["test/pi-races/parallel-tool-batches.test.ts"],
	},
	{
		id: "IY01",
		file: "src/cli/chat-input.ts",
		description:
			"pi#3057: a raw-mode terminal's input that ends is probed again with a mode change: in the moment the kernel ends the read before it fails mode changes, the hang-up is taken for Ctrl+D",
		edits: [{ find: "\t\tif (raw) {\n\t\t\tthis.loseTerminal();\n\t\t\treturn;\n\t\t}\n", replace: "" }],
		tests: ["test/pi-races/terminal-loss.test.ts"],
	},
	{
		id: "IY02",
		file: "src/cli/main.ts",
		description:
			"pi#3057: no signal handlers while settle -i shuts down after its chat ended: a SIGHUP during a slow session_shutdown kills settle by Node's default action, its exit handlers never run",
		edits: [
			{
				find: 'const releaseShutdown = out === processOutput && mode === "interactive" ? guardRuntime(runtime) : () => {};',
				replace: "const releaseShutdown = () => {};",
			},
		],
		tests: ["test/pi-races/terminal-loss.test.ts"],
	},
	{
		id: "IP01",
		file: "src/resources/resource-loader.ts",
		description:
			"pi#6466, pi#4033: one package (its package.json name) from two sources loads twice: the dev checkout's tool and flag collide with the npm install's",
		edits: [
			{
				find: "if (loadedAs && loadedAs.real !== realPath(root)) {",
				replace: "if (loadedAs && loadedAs.real === realPath(root)) {",
			},
		],
		tests: ["test/pi-races/package-same-name.test.ts"],
	},
	{
		id: "IP02",
		file: "src/resources/resource-loader.ts",
		description:
			"pi#4033: the second entry of one settings file naming the same package is skipped without a word; the project's override of the global copy warns instead",
		edits: [{ find: "if (loadedAs.scope === item.scope) {", replace: "if (loadedAs.scope !== item.scope) {" }],
		tests: ["test/pi-races/package-same-name.test.ts"],
	},
	{
		id: "IP03",
		file: "src/resources/resource-loader.ts",
		description:
			"pi#8098: a package folder without a manifest is kept as the folder, not its index.ts: the auto-discovered copy loads too and a bare /viking goes to the model",
		edits: [
			{
				find: "for (const path of extensionEntriesAt(root, absent, unreadable))\n",
				replace: "for (const path of [root])\n",
			},
		],
		tests: ["test/pi-races/package-same-name.test.ts"],
	},
	{
		id: "IP04",
		file: "src/resources/discovery.ts",
		description:
			"maka#4096: a symlinked skill folder is taken as the link's own Dirent (not a folder) and skipped without a word",
		edits: [{ find: "if (dirent.isSymbolicLink()) {", replace: "if (false && dirent.isSymbolicLink()) {" }],
		tests: ["test/pi-races/skills-folders.test.ts"],
	},
	{
		id: "IP05",
		file: "src/resources/discovery.ts",
		description: "codex#31592: a SKILL.md that is a symlink (a Nix / Home Manager install) is not a skill",
		edits: [
			{
				find: "if (isFile(skillFile) && !ig.ignores(",
				replace: "if (isFile(skillFile) && realpathSync(skillFile) === skillFile && !ig.ignores(",
			},
		],
		tests: ["test/pi-races/skills-folders.test.ts"],
	},
	{
		id: "IP06",
		file: "src/resources/skills.ts",
		description:
			"rikkahub#1763: disable-model-invocation ignored: a flagged skill is listed in the system prompt and the model uses it unasked",
		edits: [
			{
				find: "const visible = skills.filter((skill) => !skill.disableModelInvocation);",
				replace: "const visible = skills.filter((skill) => skill.name !== undefined);",
			},
		],
		tests: ["test/pi-races/skills-model-invocation.test.ts"],
	},
	{
		id: "IP07",
		file: "src/session/agent-session.ts",
		description:
			"claude-code#92769: skills the model may not invoke left out of get_commands, so a client never offers them to the user",
		edits: [
			{
				find: "for (const skill of this.resourceLoader.getSkills().skills) {",
				replace:
					"for (const skill of this.resourceLoader.getSkills().skills.filter((s) => !s.disableModelInvocation)) {",
			},
		],
		tests: ["test/pi-races/skills-model-invocation.test.ts"],
	},
	{
		id: "IP08",
		file: "src/resources/skills.ts",
		description:
			"claude-code#43875: /skill:name finds only the skills the model may invoke: a flagged one stays the typed text",
		edits: [
			{
				find: "return skills.find((candidate) => candidate.name === name) ??",
				replace: "return skills.find((candidate) => candidate.name === name && !candidate.disableModelInvocation) ??",
			},
		],
		tests: ["test/pi-races/skills-model-invocation.test.ts"],
	},
	{
		id: "IP09",
		file: "src/cli/package-commands.ts",
		description:
			"Scoop#6143: settle update stops at the first package that cannot update: the packages after it keep their old versions",
		edits: [{ find: "failed.push(target.source);", replace: "throw error;" }],
		tests: ["test/pi-races/package-updates.test.ts"],
	},
	{
		id: "IP10",
		file: "src/cli/package-commands.ts",
		description:
			"Scoop#6143: settle update with a package it could not update exits 0, so a script takes the update as done",
		edits: [
			{
				find: "then run settle update again.\\n`,\n\t\t\t);\n\t\t\treturn EXIT_FAILURE;",
				replace: "then run settle update again.\\n`,\n\t\t\t);\n\t\t\treturn EXIT_OK;",
			},
		],
		tests: ["test/pi-races/package-updates.test.ts"],
	},
	{
		id: "IO01",
		file: "src/store/discovery.ts",
		description:
			"codex#39553: a fork's creation no longer counts as activity: after /fork and quitting, settle -c continues the original and -r lists the fork second",
		edits: [
			{
				find: "const forkedAt = header.parentSession && !Number.isNaN(headerTime) ? headerTime : 0;",
				replace: "const forkedAt = 0;",
			},
		],
		tests: ["test/pi-races/continue-after-fork.test.ts"],
	},
	{
		id: "IO02",
		file: "src/store/discovery.ts",
		description:
			"pi#4122: a session list that shows no search keeps every message's text anyway: settle -r on many long sessions runs out of memory",
		edits: [{ find: "if (scan.withText) scan.texts.push(textContent);", replace: "scan.texts.push(textContent);" }],
		tests: ["test/pi-races/long-sessions.test.ts"],
	},
	{
		id: "IO03",
		file: "src/cli/session-picker.ts",
		description:
			"pi#4122: settle -r's list of the project's sessions keeps every message's text: many long sessions run it out of memory",
		edits: [
			{
				find: "...(await listCwdSessions(sessionDir, cwd, false)),",
				replace: "...(await listCwdSessions(sessionDir, cwd, true)),",
			},
		],
		tests: ["test/pi-races/long-sessions.test.ts"],
	},
	{
		id: "IO04",
		file: "src/cli/session-picker.ts",
		description:
			"pi#4122: settle -r's list of every project's sessions (all) keeps every message's text: many long sessions run it out of memory",
		edits: [
			{
				find: "return listSessionsIn(dirs, undefined, undefined, undefined, false);",
				replace: "return listSessionsIn(dirs, undefined, undefined, undefined, true);",
			},
		],
		tests: ["test/pi-races/long-sessions.test.ts"],
	},
	{
		id: "IO05",
		file: "src/cli/session-lookup.ts",
		description:
			"oh-my-pi#4696: any file or folder named by a bare word is a session path again: --session docs with a docs/ folder fails, an empty notes file is taken over",
		edits: [
			{ find: "return readSessionHeader(resolve(value)) !== null;", replace: "return existsSync(resolve(value));" },
		],
		tests: ["test/pi-races/session-by-name.test.ts"],
	},
	{
		id: "IO06",
		file: "src/cli/host.ts",
		description:
			"oh-my-pi#4696: --session opens any existing path again: a docs/ folder shadows the session named docs",
		edits: [
			{
				find: "if (existsSync(path) && namesSessionFile(args.session)) {",
				replace: "if (existsSync(path)) {",
			},
		],
		tests: ["test/pi-races/session-by-name.test.ts"],
	},
	{
		id: "IO07",
		file: "src/cli/host.ts",
		description: "oh-my-pi#4696: --fork takes any existing path again: a docs/ folder shadows the session named docs",
		edits: [
			{
				find: "if (existsSync(path) && namesSessionFile(fork)) return path;",
				replace: "if (existsSync(path)) return path;",
			},
		],
		tests: ["test/pi-races/session-by-name.test.ts"],
	},
	{
		id: "IO08",
		file: "src/cli/session-picker.ts",
		description: "oh-my-pi#4696: /resume opens any existing path again: a docs/ folder shadows the session named docs",
		edits: [
			{ find: "if (namesSessionFile(args)) {", replace: "if (namesSessionFile(args) || existsSync(resolve(args))) {" },
		],
		tests: ["test/pi-races/session-by-name.test.ts"],
	},
	{
		id: "IR01",
		file: "src/session/agent-session.ts",
		description:
			"claude-code#3003: session.dispose() while a bash call runs leaves the call in the file without a result (a file a strict provider refuses)",
		edits: [{ find: "if (running) this.answerOpenToolCallsAtDispose();", replace: "" }],
		tests: ["test/pi-races/dispose-mid-tool.test.ts"],
	},
	{
		id: "IR02",
		file: "src/session/event-bridge.ts",
		description:
			"claude-code#3003: a tool result whose message_end was under way at dispose is written again after dispose answered its call",
		edits: [{ find: "s.scratch.answeredAtDispose?.has(message.toolCallId)", replace: "false" }],
		tests: ["test/pi-races/dispose-mid-tool.test.ts"],
	},
	{
		id: "IR03",
		file: "src/session/transcript.ts",
		description:
			"claude-code#3003: dispose answers a call whose real result was being delivered as aborted, losing the tool's output",
		edits: [{ find: "const result = this.liveResult(block.id) ?? {", replace: "const result: ToolResultMessage = {" }],
		tests: ["test/pi-races/dispose-mid-tool.test.ts"],
	},
	{
		id: "IR04",
		file: "src/cli/rpc-mode.ts",
		description:
			"helidon#10740: settle --rpc answers a malformed command carrying a numeric id (7, or 0) without it, so a client waiting on that id hangs",
		edits: [
			{
				find: 'typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : undefined',
				replace: 'typeof id === "string" ? id : undefined',
			},
		],
		tests: ["test/pi-races/rpc-protocol.test.ts"],
	},
	{
		id: "IR05",
		file: "src/cli/main.ts",
		description:
			"pi-web#923: settle --rpc writes every event whether or not its reader keeps up: a paused reader's backlog piles up in settle's memory",
		edits: [{ find: "\troom: stdoutRoom,\n", replace: "" }],
		tests: ["test/pi-races/rpc-slow-reader.test.ts"],
	},
	{
		id: "IR06",
		file: "src/cli/interactive-mode.ts",
		description:
			"pi#5909: a thinking level picked with Shift+Tab and not yet used is lost on SIGTERM (and, by a race, when the terminal hangs up); a clean end keeps it",
		edits: [
			{
				find: "(exitCode) => process.exit(exitCode), applyPickedThinking);",
				replace: "(exitCode) => process.exit(exitCode));",
			},
		],
		tests: ["test/pi-races/thinking-cycle-key.test.ts"],
	},
	{
		id: "IS01",
		file: "src/tools/truncate.ts",
		description:
			"claude-code#56064: a cut that ends on an emoji's second half drops that half instead: a tool result in a compaction request ends on a lone first half (the session compaction differential, seed 295344249)",
		edits: [
			{
				find: "last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars",
				replace: "last >= 0xdc00 && last <= 0xdfff ? maxChars - 1 : maxChars",
			},
		],
		tests: [
			"test/compaction/pi-differential-session.property.test.ts",
			"test/compaction/pi-differential.property.test.ts",
		],
	},
	{
		id: "IQ01",
		file: "src/session/provider-stream.ts",
		description:
			"a refused response's Retry-After / retry-after-ms / x-ratelimit-reset headers never reach the retry: the session waits its own backoff (pi#9595)",
		edits: [
			{
				find: "if (asked?.delayMs && parseRequestedRetryDelayMs(text) === undefined)",
				replace: "if (asked?.delayMs && parseRequestedRetryDelayMs(text) === -1)",
			},
		],
		tests: ["test/pi-races/retry-after-headers.test.ts"],
	},
	{
		id: "IQ02",
		file: "src/llm/errors.ts",
		description: "a Retry-After given as an HTTP date is not read: the retry comes after the backoff (pi#9595)",
		edits: [{ find: "const date = httpDateMs(retryAfter, now);", replace: "const date = Number.NaN;" }],
		tests: ["test/pi-races/retry-after-headers.test.ts"],
	},
	{
		id: "IQ03",
		file: "src/llm/errors.ts",
		description:
			"a 429's x-ratelimit-reset of a bucket with requests or tokens left counts as the wait: a 6-minute reset of an unspent bucket ends the turn (pi#9595)",
		edits: [
			{
				find: '?.trim() !== "0" || !reset',
				replace: '?.trim() === "never" || !reset',
			},
		],
		tests: ["test/pi-races/retry-after-headers.test.ts"],
	},
	{
		id: "IQ04",
		file: "src/session/provider-stream.ts",
		description:
			'a refusal whose body has no `error` field shows as "400 status code (no body)" again, which also reads as a context overflow (pi#6749)',
		edits: [{ find: "if (unplaced && body) text =", replace: "if (unplaced && !body) text =" }],
		tests: ["test/pi-races/provider-refusal-bodies.test.ts"],
	},
	{
		id: "IQ05",
		file: "src/session/provider-stream.ts",
		description:
			"a spent quota (429 insufficient_quota) is retried by the provider client itself again: three requests for one refusal (codex#6340)",
		edits: [{ find: 'headers.set("x-should-retry", "false");', replace: "" }],
		tests: ["test/pi-races/quota-refusals.test.ts"],
	},
	{
		id: "IU01",
		file: "src/cli/session-lookup.ts",
		description:
			'settle --session <prefix> of several sessions: a first message cut at 39 characters between an emoji\'s halves shows as "…" after a lone surrogate in the error line',
		edits: [{ find: "sliceWholeCharacters(line, 39)", replace: "line.slice(0, 39)" }],
		tests: ["test/cli/session-arg.test.ts"],
	},
	{
		id: "IU02",
		file: "src/session/queues.ts",
		description:
			"a queued steer cut at 59 characters between an emoji's halves: a lone surrogate in the trace text and the trace file",
		edits: [{ find: "sliceWholeCharacters(line, QUEUE_TEXT_MAX - 1)", replace: "line.slice(0, QUEUE_TEXT_MAX - 1)" }],
		tests: ["test/inspect/queue-trace.test.ts"],
	},
	{
		id: "IU03",
		file: "src/agent/tool-result-check.ts",
		description:
			"a long string returned instead of a tool result, quoted at 40 characters between an emoji's halves: an escaped lone surrogate in the persisted error result",
		edits: [{ find: "sliceWholeCharacters(value, 40)", replace: "value.slice(0, 40)" }],
		tests: ["test/agent/tool-result-check.test.ts"],
	},
	{
		id: "IU04",
		file: "src/compaction/chunks.ts",
		description:
			"a message too long for the summarizer's window cut between an emoji's halves: a lone surrogate in the summarization request",
		edits: [
			{
				find: "sliceWholeCharacters(text, Math.max(0, budgetChars - note(text.length).length))",
				replace: "text.slice(0, Math.max(0, budgetChars - note(text.length).length))",
			},
		],
		tests: ["test/compaction/summary-chunks.test.ts"],
	},
	{
		id: "IU05",
		file: "src/compaction/chunks.ts",
		description:
			"the summarizer-window cut drops an emoji's first half but its note counts the characters the unadjusted cut would drop: one fewer than were cut",
		edits: [
			{
				find: "note(text.length - kept.length)",
				replace: "note(text.length - Math.max(0, budgetChars - note(text.length).length))",
			},
		],
		tests: ["test/compaction/summary-chunks.test.ts"],
	},
	{
		id: "IT01",
		file: "src/session/agent-session.ts",
		description:
			"a 401 or 403 prints only the provider's text again: nothing says which key (environment variable, auth.json, --api-key, models.json) was refused (codewhale#2665)",
		edits: [{ find: "(provider) => this.requestKeySource(provider),", replace: "" }],
		tests: ["test/pi-races/refused-key-sources.test.ts"],
	},
	{
		id: "IT02",
		file: "src/session/agent-session.ts",
		description:
			"a refused --api-key is blamed on the auth.json or environment key it shadowed (pi's status order, not the request's)",
		edits: [{ find: "runtime instanceof InMemoryModelRuntime && runtime.hasRuntimeKey(provider)", replace: "false" }],
		tests: ["test/pi-races/refused-key-sources.test.ts"],
	},
	{
		id: "IT03",
		file: "src/session/provider-stream.ts",
		description: "a 403 (a key without access) no longer names where its key came from; only a 401 does",
		edits: [{ find: "refusedStatus === 401 || refusedStatus === 403", replace: "refusedStatus === 401" }],
		tests: ["test/pi-races/refused-key-sources.test.ts"],
	},
	{
		id: "IY03",
		file: "src/session/provider-stream.ts",
		description:
			"a provider's stream function that returns garbage is iterated by the refusal wrapper: the error says 'not async iterable' instead of naming the stream function and what to fix",
		edits: [
			{
				find: 'return typeof inner?.[Symbol.asyncIterator] === "function" && typeof inner.result === "function";',
				replace: "return true;",
			},
		],
		tests: ["test/bad-input/tools-and-providers.test.ts"],
	},
	{
		id: "IW01",
		file: "src/store/session-file.ts",
		description:
			"the JSON parser's quote of a malformed line reaches the warning raw: the NUL bytes of a write a crash lost (or a terminal escape sequence) are printed to stderr (claude-code#49876)",
		edits: [
			{
				find: "printable((error as Error).message)",
				replace: "(error as Error).message",
			},
		],
		tests: ["test/pi-races/interrupted-appends.test.ts", "test/store/session-file-pieces.property.test.ts"],
	},
	{
		id: "IW02",
		file: "src/store/entry-index.ts",
		description:
			"a new session's file is written only from its first answer (pi's rule): a prompt typed after /new, the process killed before the answer, is lost and settle -c reopens the session from before /new (oh-my-pi#5730)",
		edits: [
			{
				find: '(entry.message.role === "user" || entry.message.role === "assistant")',
				replace: 'entry.message.role === "assistant"',
			},
		],
		tests: ["test/pi-races/session-boundaries.test.ts"],
	},
	{
		id: "IW03",
		file: "src/store/session-manager.ts",
		description:
			"a session is written from its first entry, not its first message: a start, /new or /resume that never got a message leaves a file behind (claude-code#85907, oh-my-pi#11303)",
		edits: [{ find: "\t\tif (!this.index.hasConversation && !isConversationEntry(entry)) return;\n", replace: "" }],
		tests: ["test/pi-races/session-boundaries.test.ts"],
	},
	{
		id: "IW04",
		file: "src/store/session-manager.ts",
		description:
			"entries a resume records (a level or model passed over the recorded one) are written at once: quitting a resumed session without a message rewrites its file (gemini-cli#28767, oh-my-pi#528)",
		edits: [
			{ find: "if (!deferWrite) return this.appendEntry(fields).id;", replace: "return this.appendEntry(fields).id;" },
		],
		tests: ["test/pi-races/session-boundaries.test.ts"],
	},
	{
		id: "IW05",
		file: "src/store/session-manager.ts",
		description:
			"a torn last line (a crash's zeroed append) is not set aside when the file is opened for writing: the next entry is glued onto it and lost on the next read (claude-code#49876)",
		edits: [
			{
				find: "\t\tif (this.readOnly || !lock) return;\n\t\tif (contents.tornTail) this.setAside(file, contents);",
				replace: "\t\tif (this.readOnly || !lock) return;",
			},
		],
		tests: ["test/pi-races/interrupted-appends.test.ts"],
	},
	{
		id: "IX01",
		file: "src/tools/text-encoding.ts",
		description:
			"a UTF-16LE file with its byte-order mark (Windows PowerShell 5.1's `>`) is refused as binary again instead of decoded (DesktopCommanderMCP#610)",
		edits: [{ find: 'if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";', replace: "" }],
		tests: ["test/pi-races/read-tool.test.ts"],
	},
	{
		id: "IX02",
		file: "src/tools/read.ts",
		description:
			"each chunk of a UTF-16 file is decoded on its own: a character split across two chunks becomes U+FFFD noise (DesktopCommanderMCP#610)",
		edits: [{ find: "decoder.decode(bytes, { stream: true })", replace: "decoder.decode(bytes)" }],
		tests: ["test/pi-races/read-tool.test.ts"],
	},
	{
		id: "IX03",
		file: "src/tools/read.ts",
		description:
			"a file that starts with a UTF-16 byte-order mark skips the binary check: NUL characters after the mark reach the model",
		edits: [{ find: "if (looksBinary(headBuffer)) {", replace: "if (!decoder && looksBinary(headBuffer)) {" }],
		tests: ["test/pi-races/read-tool.test.ts"],
	},
	{
		id: "IX04",
		file: "src/tools/read.ts",
		description:
			"a file decoded from UTF-16 is shown without the note that it was and that edit and write keep that encoding",
		edits: [
			{
				find: "if (!window.decodedFrom && !window.notUtf8) return reply;",
				replace: "if (!window.notUtf8) return reply;",
			},
		],
		tests: ["test/pi-races/read-tool.test.ts"],
	},
	{
		id: "JB01",
		file: "src/resources/extensions.ts",
		description:
			"the extension importer is made before any file needs it again: every settle run (and resource load) without extension files loads jiti and resolves the aliases' modules, ~65 ms of CPU per process",
		edits: [
			{
				find: "\tlet jiti: Importer | undefined;\n",
				replace:
					"\tlet jiti: Importer | undefined = createExtensionImporter(options.aliases ?? defaultExtensionAliases());\n",
			},
		],
		tests: ["test/imports/import-graph.test.ts"],
	},
	{
		id: "IM01",
		file: "src/store/session-manager.ts",
		description:
			"SessionManager.list/listAll ignore { messagesText: false }: every info keeps every message's text (pi#4122)",
		edits: [{ find: "\treturn messagesText;\n}", replace: "\treturn true;\n}" }],
		tests: ["test/store/discovery.test.ts"],
	},
	{
		id: "IM02",
		file: "src/cli/package-commands.ts",
		description:
			"a failed settle install npm:<pkg> -l is not undone: the project keeps the .settle/npm folder, package.json and .gitignore the install made",
		edits: [{ find: "\t\t\tundo();\n", replace: "" }],
		tests: ["test/cli/package-install-failure.test.ts"],
	},
	{
		id: "IM03",
		file: "src/cli/package-commands.ts",
		description:
			"undoing a failed install -l in an npm folder that was there removes everything in it, the user's earlier package.json and .gitignore too",
		edits: [{ find: "if (!before.has(name)) rmSync(", replace: "rmSync(" }],
		tests: ["test/cli/package-install-failure.test.ts"],
	},
	{
		id: "JC01",
		file: "src/session/provider-stream.ts",
		description:
			"the error result of a refused request is not completed (only its error event is): a stream that ends with no terminal event loses the refused key's source",
		edits: [
			{
				find: 'if (reason !== "error" && reason !== "aborted") return message;',
				replace: "return message;",
			},
		],
		tests: ["test/pi-races/extension-providers.test.ts"],
	},
	{
		id: "JC02",
		file: "src/session/provider-stream.ts",
		description:
			"the session no longer hands its response listener to the request: no Retry-After wait, no refused body, no key source",
		edits: [{ find: "\t\trequest[RESPONSE_LISTENER] = note;\n", replace: "" }],
		tests: ["test/session/provider-stream-refusals.test.ts", "test/pi-races/retry-after-headers.test.ts"],
	},
	{
		id: "JC03",
		file: "src/llm/response-activity.ts",
		description: "a stream function given a response listener runs without watching its responses",
		edits: [
			{
				find: "return listener ? watchResponses(listener, () => stream(model, context, options)) : stream(model, context, options);",
				replace: "return stream(model, context, options);",
			},
		],
		tests: ["test/session/provider-stream-refusals.test.ts"],
	},
	{
		id: "JC04",
		file: "src/session/model-registry-view.ts",
		description:
			"an extension's own streamSimple is not watched: a 401 from the endpoint it fetches no longer names the registerProvider apiKey",
		edits: [
			{
				find: "withRequestSignal(streamWatchingResponses(config.streamSimple as unknown as StreamFn))",
				replace: "withRequestSignal(config.streamSimple as unknown as StreamFn)",
			},
		],
		tests: ["test/pi-races/extension-providers.test.ts"],
	},
	{
		id: "JD01",
		file: "src/store/session-file.ts",
		description:
			"an entry whose parent was on an unreadable middle line is not re-attached: its branch starts at it, the conversation before the damage leaves the context",
		edits: [{ find: "\t\tentry.parentId = target.id;\n", replace: "" }],
		tests: ["test/store/damaged-lines.test.ts", "test/store/session-file.test.ts"],
	},
	{
		id: "JD02",
		file: "src/store/session-file.ts",
		description:
			"the re-attachment ignores the id the damaged line still holds: an entry whose parent was never in the file is attached to the entry before an unrelated damaged line",
		edits: [
			{
				find: "else if (line.id === undefined && holder?.id !== parentId)",
				replace: "else if (holder?.id !== parentId)",
			},
		],
		tests: ["test/store/damaged-lines.test.ts"],
	},
	{
		id: "JD03",
		file: "src/store/session-file.ts",
		description: "an orphan is attached to the first entry of the file instead of the last one before the damaged line",
		edits: [{ find: "const target = entries[holder.before - 1]!;", replace: "const target = entries[0]!;" }],
		tests: ["test/store/damaged-lines.test.ts"],
	},
	{
		id: "JD04",
		file: "src/store/session-file.ts",
		description:
			"the re-attachment is not said: the damaged line's diagnostic does not name the entry and the id it was attached to",
		edits: [{ find: "\t\tholder.diagnostic.message +=", replace: "\t\tvoid" }],
		tests: ["test/store/damaged-lines.test.ts"],
	},
	{
		id: "JD05",
		file: "src/store/session-file.ts",
		description:
			"a whole entry pi appended onto a torn line is not recovered: the whole line is skipped and the entry lost from the context",
		edits: [{ find: "if (this.header !== null && this.takeGluedEntry(line, lineNo)) return true;", replace: "" }],
		tests: ["test/store/damaged-lines.test.ts", "test/store/session-file-pieces.property.test.ts"],
	},
	{
		id: "JD06",
		file: "src/store/session-file.ts",
		description:
			"a block nested in a cut-off entry (a toolCall with an id) is loaded as if it were an entry glued after the fragment",
		edits: [
			{
				find: 'if ((record.parentId !== null && typeof record.parentId !== "string") || typeof record.timestamp !== "string")',
				replace: "if (false)",
			},
		],
		tests: ["test/store/damaged-lines.test.ts", "test/store/session-file-pieces.property.test.ts"],
	},
	{
		id: "JD07",
		file: "src/cli/session-lookup.ts",
		description:
			"settle --session <prefix> reads every matching session's whole text (allMessagesText) to match an id prefix",
		edits: [
			{
				find: '(info) => info.id.startsWith(prefix) && info.cwd !== "" && resolve(info.cwd) === cwd,\n\t\t(header) => header.id.startsWith(prefix),\n\t\tfalse,',
				replace:
					'(info) => info.id.startsWith(prefix) && info.cwd !== "" && resolve(info.cwd) === cwd,\n\t\t(header) => header.id.startsWith(prefix),\n\t\ttrue,',
			},
		],
		tests: ["test/cli/session-lookup.property.test.ts"],
	},
	{
		id: "JD08",
		file: "src/cli/session-lookup.ts",
		description: "a prefix found in the link-named session folder (oh-my-pi#941) reads that session's whole text",
		edits: [
			{
				find: "resolve(info.cwd) === link.cwd,\n\t\t(header) => header.id.startsWith(prefix),\n\t\tfalse,",
				replace: "resolve(info.cwd) === link.cwd,\n\t\t(header) => header.id.startsWith(prefix),\n\t\ttrue,",
			},
		],
		tests: ["test/cli/session-lookup.property.test.ts"],
	},
	{
		id: "JF01",
		file: "src/runtime/sdk.ts",
		description:
			"--model xiaomi/mimo-v2.5-pro reads as provider xiaomi even when only a custom provider's model of that whole id has a key (pi#5643)",
		edits: [
			{
				find: "if (wholeId.length === 1 && !(found && modelRuntime.hasConfiguredAuth(found.provider))) return wholeId[0]!;",
				replace: "",
			},
		],
		tests: ["test/pi-races/model-id-slash.test.ts"],
	},
	{
		id: "JF02",
		file: "src/runtime/sdk.ts",
		description: "a model's whole id wins over provider/id even when that provider has a key too",
		edits: [
			{
				find: "if (wholeId.length === 1 && !(found && modelRuntime.hasConfiguredAuth(found.provider))) return wholeId[0]!;",
				replace: "if (wholeId.length === 1) return wholeId[0]!;",
			},
		],
		tests: ["test/pi-races/model-id-slash.test.ts"],
	},
	{
		id: "JF03",
		file: "src/llm/errors.ts",
		description:
			'"Input length (N) exceeds model\'s maximum context length (M)." is not an overflow: no compaction, the turn fails (pi#5677)',
		edits: [
			{
				find: "\t/exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\\d,]+ tokens?|\\s*\\([\\d,]+\\))/i,\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/overflow-wordings.test.ts"],
	},
	{
		id: "JF04",
		file: "src/llm/errors.ts",
		description: 'GLM\'s "exceeds the maximum allowed input length of N tokens" is not an overflow (Switchyard#314)',
		edits: [
			{
				find: "\t/exceeds the maximum allowed input length of [\\d,]+ tokens/i, // GLM behind LiteLLM (Switchyard#314)\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/overflow-wordings.test.ts"],
	},
	{
		id: "JF05",
		file: "src/llm/errors.ts",
		description: 'Zhipu\'s "Prompt 超长" (error 1261) is not an overflow (octo-agent#2124)',
		edits: [
			{
				find: '\t/prompt \\u8d85\\u957f/i, // "prompt 超长"; Zhipu (bigmodel.cn) error 1261 (octo-agent#2124)\n',
				replace: "",
			},
		],
		tests: ["test/pi-races/overflow-wordings.test.ts"],
	},
	{
		id: "JE01",
		file: "src/cli/main.ts",
		description:
			"an @file saved as UTF-16 (with its mark) is read as UTF-8 again: refused as a binary file (gemini-cli#5961)",
		edits: [
			{
				find: "const { text, decodedFrom, notUtf8 } = decodeText(bytes);",
				replace:
					'const { text, decodedFrom, notUtf8 } = { text: bytes.toString("utf8"), decodedFrom: undefined, notUtf8: undefined };',
			},
		],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "JE02",
		file: "src/cli/main.ts",
		description:
			"an @file decoded from UTF-16 is sent without the note that it was and that edit and write keep that encoding",
		edits: [{ find: "const note = decodedFrom", replace: "const note = false" }],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "JE03",
		file: "src/cli/main.ts",
		description:
			"an @file with a UTF-16 mark skips the binary check: the NUL characters after the mark reach the model",
		edits: [
			{
				find: "looksBinary(decodedFrom ? Buffer.from(text) : bytes)",
				replace: "!decodedFrom && looksBinary(bytes)",
			},
		],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "JE04",
		file: "src/tools/text-encoding.ts",
		description:
			"a UTF-8 byte-order mark is kept in the text: a SKILL.md saved with one loses its front matter and is skipped (codex#13918), an @file starts with U+FEFF",
		edits: [
			{
				find: 'const strictUtf8 = new TextDecoder("utf-8", { fatal: true });',
				replace: 'const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });',
			},
		],
		tests: ["test/pi-races/context-files.test.ts", "test/pi-races/cli-files.test.ts"],
	},
	{
		id: "JE05",
		file: "src/tools/grep.ts",
		description: "grep skips a UTF-16 file (with its mark) as binary again: matches pi's rg finds are reported as none",
		edits: [
			{
				find: "const wide = utf16Encoding(head.subarray(0, bytesRead)) !== undefined;",
				replace: "const wide = false;",
			},
		],
		tests: ["test/tools/pi-differential-search-pins.test.ts"],
	},
	{
		id: "JE06",
		file: "src/tools/grep.ts",
		description: "grep searches a UTF-16 file's raw bytes instead of its text: no line matches",
		edits: [{ find: "if (wide) bytes = Buffer.from(decodeText(bytes).text);", replace: "" }],
		tests: ["test/tools/pi-differential-search-pins.test.ts"],
	},
	{
		id: "JE07",
		file: "src/tools/grep.ts",
		description:
			"grep keeps a UTF-8 byte-order mark: `^` misses the first line and the line shown starts with U+FEFF (rg drops it)",
		edits: [
			{
				find: "return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;",
				replace: "return bytes;",
			},
		],
		tests: ["test/tools/pi-differential-search-pins.test.ts"],
	},
	{
		id: "JE08",
		file: "src/tools/grep.ts",
		description:
			"grep searches a UTF-16 file holding NUL characters: a binary file's NULs reach the model (rg skips it)",
		edits: [
			{
				find: "if (!binaryToo && bytes.indexOf(0, wide ? 0 : bytesRead) !== -1) return undefined;",
				replace: "if (!wide && !binaryToo && bytes.indexOf(0, bytesRead) !== -1) return undefined;",
			},
		],
		tests: ["test/tools/pi-differential-search-pins.test.ts"],
	},
	{
		id: "JE09",
		file: "src/tools/edit.ts",
		description:
			"edit's refusal of a torn UTF-16 file (odd byte count) no longer names UTF-16 (only the generic not-UTF-8 text)",
		edits: [{ find: "if (wide) {", replace: "if (false) {" }],
		tests: ["test/pi-races/utf16-edit-write.test.ts"],
	},
	{
		id: "JE10",
		file: "src/cli/main.ts",
		description:
			"a UTF-16 file piped into settle -p as it is (cmd's `type notes.txt |`) is read as UTF-8 again: U+FFFD noise and NULs reach the model",
		edits: [{ find: "if (wide.decodedFrom) return wide.text;", replace: "" }],
		tests: ["test/pi-races/piped-stdin-encoding.test.ts"],
	},
	{
		id: "JE11",
		file: "src/settings/json-file.ts",
		description:
			"a settings.json (or models.json, auth.json) written as UTF-16 by PowerShell 5.1's `>` is read as UTF-8 again: refused as JSON that does not parse (\"Unexpected token '�'\")",
		edits: [{ find: "text = decodeText(readFileSync(path)).text;", replace: 'text = readFileSync(path, "utf-8");' }],
		tests: ["test/pi-races/settings-merge.test.ts", "test/pi-races/cli-files.test.ts"],
	},
	{
		id: "JJ01",
		file: "src/compaction/request.ts",
		description:
			"a summary request whose stream ignores the signal is awaited to its end after abortBranchSummary() (atomic#2155: the navigation stays busy until the late answer)",
		edits: [{ find: "return await raceAbort(consume(), signal);", replace: "return await consume();" }],
		tests: ["test/pi-races/branch-summary-late-answer.test.ts"],
	},
	{
		id: "JJ02",
		file: "src/cli/interactive-tree-commands.ts",
		description: "/clone copies up to the entry written last, not the position /tree moved to (dot314#4)",
		edits: [
			{
				find: "const leafId = runtime.session.sessionManager.getLeafId();",
				replace: "const leafId = runtime.session.sessionManager.getEntries().at(-1)?.id ?? null;",
			},
		],
		tests: ["test/pi-races/clone-after-tree.test.ts"],
	},
	{
		id: "JJ03",
		file: "src/runtime/targets.ts",
		description: "a fork of a fork names the first session of the chain as its parent (claude-code#85875)",
		edits: [
			{
				find: "{ ...branchHeader(source.getCwd()), parentSession: sourceFile }",
				replace: "{ ...branchHeader(source.getCwd()), parentSession: source.getHeader()?.parentSession ?? sourceFile }",
			},
		],
		tests: ["test/pi-races/forks-of-forks.test.ts"],
	},
	{
		id: "JJ04",
		file: "src/runtime/targets.ts",
		description: "a fork at an entry (position at) is cut at the current leaf instead (garcon#418: the wrong message)",
		edits: [{ find: "leafId = entry.id;", replace: "leafId = source.getLeafId();" }],
		tests: ["test/pi-races/fork-mid-answer.test.ts"],
	},
	{
		id: "JJ05",
		file: "src/cli/interactive-tree-commands.ts",
		description:
			"a /tree move that nothing was written for no longer says a quit now reopens the branch written last (tau#702)",
		edits: [{ find: "\t\thost.notice(UNSAVED_POSITION_NOTICE);\n", replace: "" }],
		tests: ["test/pi-races/tree-move-unsaved.test.ts"],
	},
	{
		id: "JG01",
		file: "src/cli/termination.ts",
		description:
			"kimi-code#1897: a signal exits as soon as the session is disposed: the last lines a stalled reader has not taken (agent_end, agent_settled) are dropped mid-line",
		edits: [{ after: "export function shutDownThenExit(", find: "		await processStdout.flushed();\n", replace: "" }],
		tests: ["test/pi-races/slow-reader-exit.test.ts"],
	},
	{
		id: "JG02",
		file: "src/cli/main.ts",
		description:
			"command-code#700: the exit waits for stdout only when more than its high-water mark is queued: a short last write behind a full pipe (the -p answer, agent_settled) is lost, exit 0",
		edits: [
			{
				find: "	await processStdout.flushed();\n",
				replace: "	if (process.stdout.writableNeedDrain) await processStdout.flushed();\n",
			},
		],
		tests: ["test/pi-races/slow-reader-exit.test.ts"],
	},
	{
		id: "JG03",
		file: "src/cli/termination.ts",
		description:
			"kimi-code#1897: a signalled process whose reader never reads again says the session did not stop, not that its output was left unread",
		edits: [
			{
				find: "disposed ? STDOUT_NOT_READ : stillWaitingText(runtime)",
				replace: "stillWaitingText(runtime)",
			},
		],
		tests: ["test/pi-races/slow-reader-exit.test.ts"],
	},
	{
		id: "JG04",
		file: "src/cli/rpc-mode.ts",
		description:
			"hapi#1379: a get_state answer is written a tick after it is taken: the run's agent_start passes it, and it says isStreaming: false after agent_start",
		edits: [
			{
				find: "const response = query(command) ?? (await handle(command));",
				replace: "const response = (await Promise.resolve(query(command))) ?? (await handle(command));",
			},
		],
		tests: ["test/pi-races/rpc-state-order.test.ts"],
	},
	{
		id: "JM01",
		file: "src/session/provider-stream.ts",
		description:
			"OpenBot#470: a key with a line break inside fails with fetch's text alone, naming neither the key's place nor what is wrong with it",
		edits: [
			{
				find: "if (!key) return undefined;",
				replace: "if (key) return undefined;",
			},
		],
		tests: ["test/pi-races/key-line-breaks.test.ts"],
	},
	{
		id: "JM02",
		file: "src/session/provider-stream.ts",
		description:
			"OpenBot#470: a carriage return inside a key is not found, so the environment variable holding it is not named",
		edits: [
			{
				find: "const at = trimmed.search(/[\\r\\n\\0]|[^\\0-\\u00ff]/u);",
				replace: "const at = trimmed.search(/[\\n\\0]|[^\\0-\\u00ff]/u);",
			},
		],
		tests: ["test/pi-races/key-line-breaks.test.ts"],
	},
	{
		id: "JK01",
		file: "src/tools/bash.ts",
		description:
			"the bash tool sends terminal escape codes to the model again: colored logs and test runs reach it as `\\x1b[2m…\\x1b[0m`, past 50 KB cut where the plain text fits (claude-code#26373, cline#13346)",
		edits: [{ find: "\t\t\t\tstripEscapes: true,\n", replace: "" }],
		tests: ["test/pi-races/bash-escape-codes.test.ts"],
	},
	{
		id: "JK02",
		file: "src/tools/output-accumulator.ts",
		description:
			"escape codes left out of a bash result still count against the 50 KB limit: 700 colored log lines (~47 KB as text) are cut to their tail (claude-code#26373)",
		edits: [{ find: "(redrawn || escapesStripped) && !this.tailTrimmed", replace: "redrawn && !this.tailTrimmed" }],
		tests: ["test/pi-races/bash-escape-codes.test.ts"],
	},
	{
		id: "JK03",
		file: "src/tools/output-accumulator.ts",
		description:
			"an OSC sequence (a window title, a hyperlink's address) is no longer recognized as an escape: its text reaches the model (cline#13346)",
		edits: [{ find: "|\\x1b\\][^\\x07\\x1b]*(?:\\x07|\\x1b\\\\)|", replace: "|" }],
		tests: ["test/pi-races/bash-escape-codes.test.ts"],
	},
	{
		id: "JK04",
		file: "src/tools/output-accumulator.ts",
		description:
			"escape codes are left out of a bash result without a full-output file: the raw output is lost (claude-code#26373)",
		edits: [
			{
				find: "if (truncated || redrawn || escapesStripped || (notUtf8",
				replace: "if (truncated || redrawn || (notUtf8",
			},
		],
		tests: ["test/pi-races/bash-escape-codes.test.ts"],
	},
	{
		id: "JK05",
		file: "src/tools/output-accumulator.ts",
		description:
			"an erase in line (`\\r\\x1b[K`) no longer erases in the bash tool's redraw: a longer frame's tail shows behind the shorter last one (`doneloading 100%`)",
		edits: [{ find: "\t\t\t\t\tscreen.length = cursor;\n", replace: "" }],
		tests: ["test/pi-races/bash-escape-codes.test.ts"],
	},
	{
		id: "JK06",
		file: "src/tools/output-accumulator.ts",
		description:
			"the redraw runs on the text with its escape codes already left out: the erase codes are lost before they are read (`doneloading 100%`)",
		edits: [
			{
				find: "redrawn && plain !== text ? withoutEscapes(redrawLines(text, true)) : redrawnPlain",
				replace: "redrawnPlain",
			},
		],
		tests: ["test/pi-races/bash-escape-codes.test.ts"],
	},
	{
		id: "JN01",
		file: "src/cli/session-lookup.ts",
		description:
			"claude-code#28314: --session <id> of a session whose worktree was removed prints `settle --cwd <the removed folder> …` again, a command that fails",
		edits: [
			{
				find: "lookup.resumeHere && !existsSync(info.cwd)",
				replace: "lookup.resumeHere && false",
			},
		],
		tests: ["test/pi-races/project-folders.test.ts"],
	},
	{
		id: "JN02",
		file: "src/cli/session-picker.ts",
		description:
			"claude-code#28314: /resume <id> of a session whose worktree was removed no longer says that folder is gone",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "resumeHere: (other) => `/resume ${other.path}`,",
				replace: "",
			},
		],
		tests: ["test/pi-races/project-folders.test.ts"],
	},
	{
		id: "JN03",
		file: "src/cli/interactive-commands.ts",
		description:
			"claude-code#28314: /resume <file> of a session whose folder is gone fails again, with no way to continue it in the chat's folder",
		edits: [
			{
				after: "async function resumeSession(",
				find: "if (!(error instanceof MissingSessionCwdError)) throw error;",
				replace: "if (error instanceof Error) throw error;",
			},
		],
		tests: ["test/pi-races/project-folders.test.ts"],
	},
	{
		id: "JN04",
		file: "src/cli/interactive-commands.ts",
		description:
			"claude-code#28314: /import of a session file whose folder is gone fails again, with no way to continue it in the chat's folder",
		edits: [
			{
				after: "async function importSession(",
				find: "if (!(error instanceof MissingSessionCwdError)) throw error;",
				replace: "if (error instanceof Error) throw error;",
			},
		],
		tests: ["test/pi-races/project-folders.test.ts"],
	},
	{
		id: "JL01",
		file: "src/session/agent-session.ts",
		description:
			"a summarizing navigateTree() cut by a fork rejects saying the session was disposed before this prompt settled: the wrong word for a navigation",
		edits: [
			{
				find: "closeTreeNavigations(this.internals, navigationClosed);",
				replace: "closeTreeNavigations(this.internals, closed);",
			},
		],
		tests: ["test/runtime/replacement-cuts-operation-message.test.ts"],
	},
	{
		id: "JL02",
		file: "src/tools/edit.ts",
		description:
			"edit saves an edited UTF-16 file as UTF-8 (with a mark): PowerShell 5.1 and Notepad see another encoding than the file had",
		edits: [{ find: "await (encoding ? ops.writeFile(", replace: "await (false ? ops.writeFile(" }],
		tests: ["test/pi-races/utf16-edit-write.test.ts"],
	},
	{
		id: "JL03",
		file: "src/tools/edit.ts",
		description: "edit reads a UTF-16 file with its mark as UTF-8 again: refused as not valid UTF-8, as before",
		edits: [
			{
				find: "{ raw: strictDecoders[wide].decode(bytes), encoding: wide }",
				replace: '{ raw: strictDecoders["utf-8"].decode(bytes) }',
			},
		],
		tests: ["test/pi-races/utf16-edit-write.test.ts"],
	},
	{
		id: "JL04",
		file: "src/tools/edit.ts",
		description: "edit's result no longer tells the model an edited UTF-16 file stays UTF-16 with its mark",
		edits: [{ find: "return encoding ? ` It stays", replace: "return false ? ` It stays" }],
		tests: ["test/pi-races/utf16-edit-write.test.ts"],
	},
	{
		id: "JL05",
		file: "src/tools/write.ts",
		description:
			"write over a UTF-16 file saves UTF-8 (with a mark): a PowerShell 5.1 script changes encoding, as pi writes it",
		edits: [{ find: "await (kept.encoding ? ops.writeFile(", replace: "await (false ? ops.writeFile(" }],
		tests: ["test/pi-races/utf16-edit-write.test.ts"],
	},
	{
		id: "JL06",
		file: "src/tools/write.ts",
		description:
			"write over a UTF-8 file with a mark drops the mark, as pi does (PowerShell 5.1 then reads it as ANSI)",
		edits: [{ find: '? { bom: true, name: "UTF-8" }', replace: "? { bom: false }" }],
		tests: ["test/pi-races/utf16-edit-write.test.ts"],
	},
	{
		id: "JL07",
		file: "src/tools/write.ts",
		description:
			"write adds the file's mark before content that already starts with one: two marks, the second shown as text",
		edits: [{ find: 'kept.bom && !body.startsWith("\\uFEFF")', replace: "kept.bom" }],
		tests: ["test/pi-races/utf16-edit-write.test.ts"],
	},
	{
		id: "JL08",
		file: "src/tools/text-encoding.ts",
		description:
			"a UTF-16BE file is saved with its bytes swapped to little-endian after a BE mark: every character garbled",
		edits: [{ find: 'return encoding === "utf-16be" ? bytes.swap16() : bytes;', replace: "return bytes;" }],
		tests: ["test/pi-races/utf16-edit-write.test.ts"],
	},
	{
		id: "JL09",
		file: "src/tools/write.ts",
		description:
			"write opens the existing file to read its mark even when it is a FIFO: the write waits forever for a writer (openai-agents-python#4891)",
		edits: [{ find: "if (!(await stat(path)).isFile()) return undefined;", replace: "" }],
		tests: ["test/pi-races/special-files.test.ts"],
	},
	{
		id: "JL10",
		file: "src/tools/write.ts",
		description: "write's result no longer says the file kept its encoding and mark",
		edits: [{ find: "\tif (encodingName) {", replace: "\tif (false) {" }],
		tests: ["test/pi-races/utf16-edit-write.test.ts"],
	},
	{
		id: "JL11",
		file: "src/cli/termination.ts",
		description:
			"an uncaught error exits at once after its stack: the JSON lines a lagging stdout reader has not taken yet are cut mid-line",
		edits: [{ find: "		exitOnceFlushed(1);\n", replace: "		process.exit(1);\n" }],
		tests: ["test/pi-races/slow-reader-exit.test.ts"],
	},
	{
		id: "JL12",
		file: "src/cli/termination.ts",
		description:
			"kimi-code#1897 in the chat: SIGTERM to settle -i exits as soon as the session is disposed: the answer's rest and the abort notice a lagging reader has not taken are dropped",
		edits: [{ after: "export function shutDownThenExit(", find: "		await processStdout.flushed();\n", replace: "" }],
		tests: ["test/pi-races/slow-reader-exit.test.ts"],
	},
	{
		id: "JL13",
		file: "src/cli/termination.ts",
		description:
			"an uncaught error's wait for stdout is not bounded by the shutdown grace: a reader that never reads again keeps the failed process alive",
		edits: [
			{
				after: "export function exitOnceFlushed(",
				find: "}, SHUTDOWN_GRACE_MS);",
				replace: "}, SHUTDOWN_GRACE_MS * 20);",
			},
		],
		tests: ["test/pi-races/slow-reader-exit.test.ts"],
	},
	{
		id: "JL14",
		file: "src/session/agent-session.ts",
		description:
			"a compact() cut by a dispose rejects saying the session was disposed before this prompt settled: the wrong word for a compaction",
		edits: [
			{
				find: "for (const pending of this.compactions.values()) pending.reject(compactionClosed);",
				replace: "for (const pending of this.compactions.values()) pending.reject(closed);",
			},
		],
		tests: ["test/runtime/replacement-cuts-operation-message.test.ts"],
	},
	{
		id: "JQ01",
		file: "src/schema/provider.ts",
		description:
			"a tool whose parameters are a bare { type: object } is sent as it is: OpenAI refuses every request (object schema missing properties)",
		edits: [
			{
				find: 'if (result.type === "object" && result.properties === undefined) result = { ...result, properties: {} };',
				replace: "",
			},
		],
		tests: ["test/pi-races/tool-schemas-providers.test.ts"],
	},
	{
		id: "JQ02",
		file: "src/schema/provider.ts",
		description:
			"an enum without a type (TypeBox's Type.Enum) is sent untyped: Kimi refuses every request (type is not defined)",
		edits: [
			{
				find: 'if (type) set("type", type);',
				replace: "if (type) void type;",
			},
		],
		tests: ["test/pi-races/tool-schemas-providers.test.ts"],
	},
	{
		id: "JQ03",
		file: "src/agent/agent-loop.ts",
		description: "requests carry the tools' own schemas, not the ones providers accept",
		edits: [
			{
				find: "llmContext.tools = providerTools(requestContext.tools);",
				replace: "llmContext.tools = requestContext.tools;",
			},
		],
		tests: ["test/pi-races/tool-schemas-providers.test.ts"],
	},
	{
		id: "JR01",
		file: "src/session/agent-session.ts",
		description:
			"the session's stream is not given the key re-read: a request refused for a key rotated since it was read fails with the 401 (databricks/unity-gateway#451)",
		edits: [{ find: "\t\t\t\t(provider) => this.modelRuntime.getApiKey(provider),\n", replace: "" }],
		tests: ["test/session/provider-stream-refusals.test.ts", "test/pi-races/token-refreshed-mid-run.test.ts"],
	},
	{
		id: "JR02",
		file: "src/session/provider-stream.ts",
		description: "a request refused for its key is sent again with the same key when the key has not changed",
		edits: [{ find: "if (!key || key === request.apiKey) return undefined;", replace: "if (!key) return undefined;" }],
		tests: ["test/session/provider-stream-refusals.test.ts"],
	},
	{
		id: "JR03",
		file: "src/session/provider-stream.ts",
		description: "any 403 counts as a refused key: a 403 refusing the model is sent again when the key changed",
		edits: [
			{
				find: "(refusedStatus === 403 && refusedBody !== undefined && AUTH_REFUSAL.test(await refusedBody))",
				replace: "(refusedStatus === 403 && refusedBody !== undefined)",
			},
		],
		tests: ["test/session/provider-stream-refusals.test.ts"],
	},
	{
		id: "JR04",
		file: "src/session/bash-runner.ts",
		description:
			"`!` commands keep terminal escape codes in the output the model and the session file get (pi's `!` strips them)",
		edits: [{ find: "\t\t\tstripEscapes: true,\n", replace: "" }],
		tests: ["test/cli/rpc-differential-regressions.test.ts"],
	},
	{
		id: "JR05",
		file: "src/session/bash-runner.ts",
		description:
			"`!` commands keep `\\r` and other control characters in the output the model and the session file get (pi's `!` drops them)",
		edits: [{ find: "\t\t\tdropControlCharacters: true,\n", replace: "" }],
		tests: ["test/cli/rpc-differential-regressions.test.ts"],
	},
	{
		id: "JS01",
		file: "src/session/provider-stream.ts",
		description:
			"an error result read without its events (a compaction's summary request) is not sent again with a key rotated since it was read",
		edits: [
			{
				find: 'if (reason !== "error" || this.resend === undefined || this.resent) return rewritten();',
				replace: "return rewritten();",
			},
		],
		tests: ["test/session/provider-stream-refusals.test.ts", "test/pi-races/token-refreshed-mid-run.test.ts"],
	},
	{
		id: "JT01",
		file: "src/tools/output-accumulator.ts",
		description:
			"a short output with escape codes or redraws opens its full-output file only at the final snapshot, after close(): the path comes back before its bytes are on disk",
		edits: [{ find: "this.finalShape = this.shape();", replace: "" }],
		tests: ["test/tools/bash.test.ts"],
	},
	{
		id: "JX01",
		file: "src/tools/bash.ts",
		description:
			"operations that fail (not an abort, not a timeout) after a long output leave its full-output file, which no error names",
		edits: [
			{
				after: "This error names no full-output file",
				find: "if (snapshot.fullOutputPath) await rm(snapshot.fullOutputPath, { force: true }).catch(() => {});",
				replace: "",
			},
		],
		tests: ["test/tools/bash.test.ts"],
	},
	{
		id: "JX02",
		file: "src/session/agent-session.ts",
		description:
			"dispose() aborts the run as a plain abort: a bash call's full-output file stays, though the tool's result naming it is never written",
		edits: [{ find: "this.agent.abortDiscardingResults();", replace: "this.agent.abort();" }],
		tests: ["test/tools/bash.test.ts"],
	},
	{
		id: "JX03",
		file: "src/tools/bash.ts",
		description: "an abort whose result is discarded (a disposed session) keeps the full-output file no one will name",
		edits: [
			{
				after: "A disposed session never records this result",
				find: "if (snapshot.fullOutputPath) await rm(snapshot.fullOutputPath, { force: true }).catch(() => {});",
				replace: "",
			},
		],
		tests: ["test/tools/bash.test.ts"],
	},
	{
		id: "JX04",
		file: "src/tools/bash.ts",
		description: "every abort removes the full-output file, also one the recorded result names (pi keeps it)",
		edits: [{ find: "if (!resultsDiscarded(signal)) throw", replace: "if (false) throw" }],
		tests: ["test/tools/bash.test.ts"],
	},
	{
		id: "JX05",
		file: "src/abort.ts",
		description:
			"abortDiscardingResults aborts without marking its reason: tools never learn their results are discarded",
		edits: [{ find: 'if (typeof reason === "object" && reason !== null) discardingReasons.add(reason);', replace: "" }],
		tests: ["test/tools/bash.test.ts"],
	},
	{
		id: "JV01",
		file: "src/session/model-registry-view.ts",
		description:
			"a declared model's missing prices are left out: a models.json cost of only input and output prices every answer at NaN, the session at $0 (litellm#16000)",
		edits: [
			{
				find: "cost: completePrices(model.cost),",
				replace: 'cost: (model.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }) as Model["cost"],',
			},
		],
		tests: ["test/pi-races/models-json-partial-prices.test.ts"],
	},
	{
		id: "JV02",
		file: "src/session/model-registry-view.ts",
		description: "a missing cache-read price is 0: cached tokens of a model priced with input and output only are free",
		edits: [
			{ find: "cacheRead: price(cost?.cacheRead) ?? input,", replace: "cacheRead: price(cost?.cacheRead) ?? 0," },
		],
		tests: ["test/pi-races/models-json-partial-prices.test.ts"],
	},
	{
		id: "JV03",
		file: "src/runtime/models-json.ts",
		description:
			"a models.json cost missing some prices loads without a warning: the user is not told what was assumed",
		edits: [{ find: "if (missing.length > 0) {", replace: "if (missing.length > 4) {" }],
		tests: ["test/pi-races/models-json-partial-prices.test.ts"],
	},
	{
		id: "JV04",
		file: "src/session/model-registry-view.ts",
		description:
			"a built-in model declared again with only some prices loses the catalog's others: `cost: {input: 1}` makes its output free",
		edits: [
			{
				find: "if (index >= 0) custom.cost = { ...models[index]!.cost, ...definedOnly(entry.cost ?? {}) };",
				replace: "if (index >= 0 && entry.cost === undefined) custom.cost = { ...models[index]!.cost };",
			},
		],
		tests: ["test/pi-races/models-json-prices.test.ts"],
	},
	{
		id: "JV05",
		file: "src/runtime/models-json.ts",
		description:
			"the warning for a built-in model's partial cost says its missing prices are the input price or 0, though the catalog's are kept",
		edits: [{ find: "builtIn.has(name) && catalogIds.has(String(model.id))", replace: "false" }],
		tests: ["test/pi-races/models-json-prices.test.ts"],
	},
	{
		id: "JU01",
		file: "src/session/provider-stream.ts",
		description:
			"an OpenAI Chat Completions stream reaches pi-ai as the server sent it: Ollama's tool calls, all at index 0, are joined into one call and none runs (ollama#15457)",
		edits: [
			{
				find: "\t\t\t\t\trepairedStream(model, response) ??\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/local-openai-servers.test.ts"],
	},
	{
		id: "JU02",
		file: "src/llm/chat-stream-repair.ts",
		description: "a new call at an index another call holds keeps that index: the two calls are joined (ollama#15457)",
		edits: [{ find: "while (idAt.has(index)) index++;", replace: "" }],
		tests: ["test/llm/chat-stream-repair.test.ts", "test/pi-races/local-openai-servers.test.ts"],
	},
	{
		id: "JU03",
		file: "src/llm/chat-stream-repair.ts",
		description: "a call whose id comes again on a later delta is taken for a new call and moved to another index",
		edits: [{ find: "let index = indexOf.get(id);", replace: "let index: number | undefined;" }],
		tests: ["test/llm/chat-stream-repair.test.ts"],
	},
	{
		id: "JU04",
		file: "src/llm/chat-stream-repair.ts",
		description: "a delta without an id at a reused index stays there: the moved call's arguments go to the first call",
		edits: [{ find: "\t\t\t\trecord(call, index);\n\t\t\t\treturn;", replace: "\t\t\t\treturn;" }],
		tests: ["test/llm/chat-stream-repair.test.ts"],
	},
	{
		id: "JU05",
		file: "src/llm/response-activity.ts",
		description:
			"the idle watchdog sees the repaired Chat Completions body, which holds back a line until its end: a chunk dripping in slower than the limit is cut as a stall",
		edits: [
			{
				find: "watchBody(received, listener);\n\t\t}\n\t\treturn (await onResponse?.(received)) ?? received;",
				replace:
					"}\n\t\tconst response = (await onResponse?.(received)) ?? received;\n\t\tif (listener) watchBody(response, listener);\n\t\treturn response;",
			},
		],
		tests: ["test/pi-races/provider-dropped-connections.test.ts"],
	},
	{
		id: "JU06",
		file: "src/llm/chat-stream-repair.ts",
		description:
			"a bare JSON error body in a 200 event stream stays unframed: the client reads an empty answer and the server's reason (a llama.cpp overflow) is lost (lemonade#2826)",
		edits: [
			{
				find: 'if (line.startsWith("{")) return framedError(line) ?? line;',
				replace: 'if (line.startsWith("{")) return line;',
			},
		],
		tests: ["test/llm/chat-stream-repair.test.ts", "test/pi-races/local-openai-servers.test.ts"],
	},
	{
		id: "JU07",
		file: "src/llm/chat-stream-repair.ts",
		description:
			"a body that starts with a bare error object skips the repair: only one after a newline is framed (lemonade#2826)",
		edits: [{ find: '!text.startsWith("{") && ', replace: "" }],
		tests: ["test/pi-races/local-openai-servers.test.ts"],
	},
	{
		id: "JU08",
		file: "src/llm/chat-stream-repair.ts",
		description:
			"a Chat Completions stream closed with neither finish_reason nor [DONE] ends as it came: the truncated answer is taken for a finished one, not retried (pi#8496)",
		edits: [
			{
				find: "if (!finished && !FINISHED.test(rest)) controller.enqueue(encoder.encode(UNFINISHED));",
				replace: "",
			},
		],
		tests: ["test/llm/chat-stream-repair.test.ts", "test/pi-races/local-openai-servers.test.ts"],
	},
	{
		id: "JU09",
		file: "src/llm/chat-stream-repair.ts",
		description:
			"a finish_reason seen before the last line is forgotten: a finished stream without [DONE] ends as a failed attempt and is retried (vllm-mlx#101)",
		edits: [{ find: "finished ||= FINISHED.test(lines);", replace: "" }],
		tests: ["test/pi-races/local-openai-servers.test.ts"],
	},
	{
		id: "JU10",
		file: "src/llm/chat-stream-repair.ts",
		description:
			"a finish_reason written with a space after the colon (llama-cpp-python's JSON) is not seen: its finished stream is failed as cut",
		edits: [{ find: '/"finish_reason":\\s*"|', replace: '/"finish_reason":"|' }],
		tests: ["test/llm/chat-stream-repair.test.ts"],
	},
	{
		id: "JW01",
		file: "src/tools/read.ts",
		description:
			"a PDF whose first 8,000 bytes hold no NUL byte (header, metadata, page text) is read as text: its compressed streams reach the model as mojibake",
		edits: [{ find: "if (isPdf(rawHead)) {", replace: "if (false) {" }],
		tests: ["test/pi-races/read-pdf.test.ts"],
	},
	{
		id: "JW02",
		file: "src/tools/find.ts",
		description:
			"find matches a glob against names as written: a composed (NFC) glob misses a name macOS wrote decomposed",
		edits: [
			{ find: "return (entry) => isMatch(toNfc(entry.name));", replace: "return (entry) => isMatch(entry.name);" },
		],
		tests: ["test/pi-races/search-nfd-names.test.ts"],
	},
	{
		id: "JW03",
		file: "src/tools/grep.ts",
		description:
			"grep's glob filter matches names as written: a composed (NFC) glob skips a file macOS named decomposed",
		edits: [
			{
				find: "isMatch(toNfc(byPath ? relativePath : basename(relativePath)))",
				replace: "isMatch(byPath ? relativePath : basename(relativePath))",
			},
		],
		tests: ["test/pi-races/search-nfd-names.test.ts"],
	},
	{
		id: "JW04",
		file: "src/tools/ls.ts",
		description: "ls resolves its path as typed: a composed folder name misses the folder macOS named decomposed",
		edits: [
			{ find: 'import { resolveReadPath } from "./paths.js";', replace: 'import { resolveToCwd } from "./paths.js";' },
			{ find: "const dirPath = resolveReadPath(", replace: "const dirPath = resolveToCwd(" },
		],
		tests: ["test/pi-races/search-nfd-names.test.ts"],
	},
	{
		id: "JW05",
		file: "src/tools/grep.ts",
		description: "grep resolves its path as typed: a composed folder name misses the folder macOS named decomposed",
		edits: [
			{
				find: 'import { resolveReadPath, toNfc } from "./paths.js";',
				replace: 'import { resolveReadPath, resolveToCwd, toNfc } from "./paths.js";',
			},
			{ find: "const searchPath = resolveReadPath(", replace: "const searchPath = resolveToCwd(" },
		],
		tests: ["test/pi-races/search-nfd-names.test.ts"],
	},
	{
		id: "JW06",
		file: "src/tools/find.ts",
		description: "find resolves its path as typed: a composed folder name misses the folder macOS named decomposed",
		edits: [
			{
				find: 'import { resolveReadPath, toNfc } from "./paths.js";',
				replace: 'import { resolveReadPath, resolveToCwd, toNfc } from "./paths.js";',
			},
			{ find: "const searchPath = resolveReadPath(", replace: "const searchPath = resolveToCwd(" },
		],
		tests: ["test/pi-races/search-nfd-names.test.ts"],
	},
	{
		id: "JW07",
		file: "src/tools/fs-errors.ts",
		description:
			"a dangling symbolic link (which ls lists) is reported as a bare 'File not found', without the link or its missing target",
		edits: [{ find: "const target = danglingLinkTarget(absolutePath);", replace: "const target = undefined;" }],
		tests: ["test/pi-races/read-dangling-link.test.ts"],
	},
	{
		id: "JW08",
		file: "src/cli/main.ts",
		description: "an @file PDF whose start holds no NUL byte is attached as text",
		edits: [{ find: "if (isPdf(bytes)) throw", replace: "if (false) throw" }],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "JZ01",
		file: "src/resources/prompt-templates.ts",
		description:
			"arguments typed after a template that names none are dropped again (pi 0.73.1, mastra#13493): the model never sees them",
		edits: [
			{
				find: "if (args.length === 0 || namesArguments(body)) return expanded;",
				replace: "return expanded;",
			},
		],
		tests: ["test/pi-races/prompt-templates-unused-arguments.test.ts"],
	},
	{
		id: "JZ02",
		file: "src/resources/frontmatter.ts",
		description:
			"a front matter value that is prose holding `: ` refuses the file again (Proma#1299): a skill whose description has a colon is not loaded",
		edits: [{ find: "if (quoted === undefined) return invalid;", replace: "return invalid;" }],
		tests: ["test/pi-races/skills-description-colons.test.ts"],
	},
	{
		id: "JZ03",
		file: "src/session/agent-session.ts",
		description:
			"getCommands() (and RPC get_commands) leaves out a template's argument-hint again (pi#2761): a client cannot show what the command takes",
		edits: [{ find: "...(template.argumentHint ? { argumentHint: template.argumentHint } : {}),", replace: "" }],
		tests: ["test/pi-races/prompt-templates-argument-hints.test.ts"],
	},
	{
		id: "JZ04",
		file: "src/cli/interactive-commands.ts",
		description: "settle -i's /help lists a template without its argument-hint again (pi#2761)",
		edits: [{ find: "const usage = command.argumentHint ? `/", replace: "const usage = false ? `/" }],
		tests: ["test/pi-races/prompt-templates-argument-hints.test.ts"],
	},
	{
		id: "KD01",
		file: "src/cli/chat-input.ts",
		description:
			"Ctrl+D on a message's empty next line (after `\\` + Enter or a pasted line break) ends settle -i again, the lines held lost (copilot-cli#938)",
		edits: [
			{
				find: 'if (ctrl === true && meta !== true && name === "d" && editor.line === "" && this.onEndWhileTyping?.() === true) {',
				replace: "if (false) {",
			},
		],
		tests: ["test/pi-races/interactive-keys.test.ts"],
	},
	{
		id: "KD02",
		file: "src/cli/interactive-mode.ts",
		description:
			"The Ctrl+C that clears a typed line no longer restarts the double-press count: right after a press on the empty prompt, the next Ctrl+C exits (opencode#36612)",
		edits: [{ find: "\t\t\tlastIdleInterrupt = 0;\n\t\t\trl.write(null", replace: "\t\t\trl.write(null" }],
		tests: ["test/pi-races/interactive-keys.test.ts"],
	},
	{
		id: "KC01",
		file: "src/runtime/errors.ts",
		description:
			"resuming a session whose recorded folder is a dangling symbolic link says a bare 'does not exist' again, hiding the link and its missing target (hapi#890)",
		edits: [{ find: "const link = danglingLinkNote(issue.sessionCwd);", replace: 'const link = "";' }],
		tests: ["test/pi-races/working-folder-links.test.ts"],
	},
	{
		id: "KC02",
		file: "src/cli/host.ts",
		description:
			"`settle --cwd <dangling link>` says a bare 'does not exist' again, without the link's missing target (hapi#890)",
		edits: [{ find: "danglingLinkNote(cwd)}. Pass the project's", replace: '""}. Pass the project\'s' }],
		tests: ["test/pi-races/working-folder-links.test.ts"],
	},
	{
		id: "KC03",
		file: "src/runtime/errors.ts",
		description:
			"createAgentSession with a cwd that is a dangling symbolic link says a bare 'does not exist' again, without the link's missing target (hapi#890)",
		edits: [{ find: "danglingLinkNote(cwd)}. Pass an existing", replace: '""}. Pass an existing' }],
		tests: ["test/pi-races/working-folder-links.test.ts"],
	},
	{
		id: "KC04",
		file: "src/settings/paths.ts",
		description:
			"an empty HOME reads as no home folder again, though the user's passwd entry has one: the agent folder cannot be found (gops#60)",
		edits: [{ find: 'if (home === "") home = passwdHome() ?? "";', replace: "" }],
		tests: ["test/pi-races/working-folder-links.test.ts"],
	},
	{
		id: "KC05",
		file: "src/settings/paths.ts",
		description:
			"a relative HOME is taken as the home folder again: the agent folder (keys, sessions) is made inside the current folder (sh1pt#695)",
		edits: [{ find: "return isAbsolute(home) ? home : undefined;", replace: "return home || undefined;" }],
		tests: ["test/pi-races/working-folder-links.test.ts"],
	},
	{
		id: "KC06",
		file: "src/settings/settings-manager.ts",
		description:
			"the sessionDir setting's `~` is joined to HOME as it is again: with a relative HOME, sessions go into a folder inside the project (sh1pt#695)",
		edits: [
			{
				find: 'if (dir === "~" || dir.startsWith("~/")) return expandHome(dir);',
				replace: 'if (dir === "~" || dir.startsWith("~/")) return join(process.env.HOME ?? "", dir.slice(2));',
			},
		],
		tests: ["test/pi-races/working-folder-links.test.ts"],
	},
	{
		id: "KB01",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p's missing-credentials message for Bedrock and Vertex is the key one again (craft-agents-oss#474, opencode#7996): GOOGLE_CLOUD_API_KEY or an auth.json key, not the AWS variables or the Vertex project/location",
		edits: [{ find: "if (cloud) return `", replace: "if (false) return `" }],
		tests: ["test/pi-races/vertex-setups.test.ts", "test/pi-races/bedrock-setups.test.ts"],
	},
	{
		id: "KB02",
		file: "src/cli/interactive-mode.ts",
		description: "settle -i's refused prompt on Vertex asks for a key again, not the missing location (opencode#12557)",
		edits: [{ find: "if (cloud) return `", replace: "if (false) return `" }],
		tests: ["test/pi-races/vertex-setups.test.ts"],
	},
	{
		id: "KB03",
		file: "src/cli/rpc-mode.ts",
		description: "settle --rpc's refused prompt on Vertex asks for a key again, not the names read (opencode#7996)",
		edits: [{ find: "const keyHint = cloud", replace: "const keyHint = undefined" }],
		tests: ["test/pi-races/vertex-setups.test.ts"],
	},
	{
		id: "KB04",
		file: "src/session/provider-stream.ts",
		description:
			"Bedrock's ExpiredTokenException ends the run with the raw AWS text again, nothing saying which credentials to renew or how (opencode#29106)",
		edits: [
			{
				find: 'const awsNote = model.api === "bedrock-converse-stream" ? awsCredentialsRefusedNote(text) : undefined;',
				replace: "const awsNote = undefined as string | undefined;",
			},
		],
		tests: ["test/pi-races/bedrock-setups.test.ts"],
	},
	{
		id: "KB05",
		file: "src/llm/provider-env.ts",
		description:
			"a look-alike Vertex variable (GOOGLE_CLOUD_PROJECT_ID) set in place of the one read goes unmentioned again (opencode#7996)",
		edits: [
			{ find: ".filter(([name, read]) => env[name] && missing.includes(read))", replace: ".filter(() => false)" },
		],
		tests: ["test/pi-races/vertex-setups.test.ts"],
	},
	{
		id: "KB06",
		file: "src/llm/provider-env.ts",
		description: "a missing GOOGLE_CLOUD_LOCATION is not named as missing (opencode#12557)",
		edits: [{ find: 'if (!env.GOOGLE_CLOUD_LOCATION) missing.push("GOOGLE_CLOUD_LOCATION");', replace: "" }],
		tests: ["test/pi-races/vertex-setups.test.ts"],
	},
	{
		id: "KB07",
		file: "src/llm/provider-env.ts",
		description: "a GOOGLE_APPLICATION_CREDENTIALS naming a file that is not there is not said (Vertex credentials)",
		edits: [{ find: "if (!existsSync(adcFile)) missing.push(", replace: "if (false) missing.push(" }],
		tests: ["test/pi-races/vertex-setups.test.ts"],
	},
	{
		id: "KB08",
		file: "src/llm/provider-env.ts",
		description:
			"AWS_ACCESS_KEY_ID set without AWS_SECRET_ACCESS_KEY goes unmentioned in Bedrock's missing-credentials message (craft-agents-oss#474)",
		edits: [{ find: "env.AWS_ACCESS_KEY_ID && !env.AWS_SECRET_ACCESS_KEY", replace: "false" }],
		tests: ["test/pi-races/bedrock-setups.test.ts"],
	},
	{
		id: "KB09",
		file: "src/llm/provider-env.ts",
		description:
			"Bedrock refusing a profile's expired credentials names the key variables, not the profile and `aws sso login --profile` (opencode#29106)",
		edits: [{ find: "if (env.AWS_PROFILE) {", replace: "if (false) {" }],
		tests: ["test/pi-races/bedrock-setups.test.ts"],
	},
	{
		id: "KB10",
		file: "src/session/provider-stream.ts",
		description:
			"Bedrock's on-demand throughput refusal of a base model id names no inference profile id to select again (cline#2482)",
		edits: [{ find: "if (profileNote) text =", replace: "if (false) text =" }],
		tests: ["test/pi-races/bedrock-setups.test.ts"],
	},
	{
		id: "KB11",
		file: "src/session/agent-session.ts",
		description:
			"the session gives the provider stream no model ids: the inference profile note cannot name them (cline#2482)",
		edits: [
			{
				find: "(provider) => this.modelRuntime.getAll().flatMap((model) => (model.provider === provider ? [model.id] : [])),",
				replace: "",
			},
		],
		tests: ["test/pi-races/bedrock-setups.test.ts"],
	},
	{
		id: "KA01",
		file: "src/llm/chat-stream-repair.ts",
		description:
			"an id-less Chat Completions tool call keeps pi-ai's empty id again (LangBot#2261): the session is refused once it switches to an Anthropic or Responses model",
		edits: [{ find: "\t\t\tcall.id = id;\n", replace: "" }],
		tests: ["test/pi-races/local-openai-servers.test.ts", "test/llm/chat-stream-repair.test.ts"],
	},
	{
		id: "KA02",
		file: "src/cli/interactive-commands.ts",
		description:
			"/session rounds the context percentage with toFixed on the binary float again: 41,050 of 100,000 shows 41.0%",
		edits: [
			{
				find: "const tenths = Math.floor((tokens * 2000 + window) / (2 * window));",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "return `${((tokens / window) * 100).toFixed(1)}%`;",
			},
		],
		tests: ["test/cli/session-stats.test.ts"],
	},
	{
		id: "KA03",
		file: "src/cli/interactive-mode.ts",
		description:
			"settle -i names a `!` command's full-output file only when the output was cut again: terminal codes left out keep a file the record names and the chat never mentions",
		edits: [
			{
				find: "\t\t\tif (result.fullOutputPath) {\n",
				replace: "\t\t\tif (result.truncated && result.fullOutputPath) {\n",
			},
		],
		tests: ["test/pi-races/interactive-chat.test.ts"],
	},
	{
		id: "KA04",
		file: "src/session/bash-runner.ts",
		description:
			"a disposed `!` command's full-output file that cannot be removed makes executeBash reject with the fs error again, not SESSION_CLOSED",
		edits: [
			{
				find: "if (snapshot.fullOutputPath) await rm(snapshot.fullOutputPath, { force: true }).catch(() => {});",
				replace: "if (snapshot.fullOutputPath) await rm(snapshot.fullOutputPath, { force: true });",
			},
		],
		tests: ["test/lifetime/session-dispose.test.ts"],
	},
	{
		id: "KA05",
		file: "src/cli/interactive-render.ts",
		description:
			"settle -i's Queued (follow-up) notice for a queued /skill:name args shows its expanded block's first line (<skill name=… location=…>) again, not what was typed",
		edits: [
			{
				find: "const text = firstLine(asTyped(texts[texts.length - 1]!));",
				replace: "const text = firstLine(texts[texts.length - 1]!);",
			},
		],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "KA06",
		file: "src/cli/interactive-render.ts",
		description:
			"settle -i shows a delivered queued /skill:name args as its expanded block's first line again (» <skill name=…>)",
		edits: [{ find: "firstLine(asTyped(text))}`));", replace: "firstLine(text)}`));" }],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "KA07",
		file: "src/session/convert-to-llm.ts",
		description:
			"a stored tool call with an empty id (pi-ai's for an id-less Ollama call) is sent with it again: Anthropic and Responses refuse every request of the session after a switch",
		edits: [{ find: "\t\tif (idless) llm = withIdsForIdlessCalls(llm);\n", replace: "" }],
		tests: ["test/pi-races/local-openai-servers.test.ts"],
	},
	{
		id: "KA08",
		file: "src/cli/interactive-mode.ts",
		description:
			"Ctrl+C in settle -i names a queued /skill:name args it did not send by its expanded block's first line again (Not sent: <skill name=…>)",
		edits: [{ find: "firstLine(asTyped(text))}`);", replace: "firstLine(text)}`);" }],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "KG01",
		file: "src/cli/rpc-ui.ts",
		description:
			"settle --rpc reads a host's misshapen dialog answer ({ value } for a confirm) as the default without a word again: no error line naming the field (PiDeck#126)",
		edits: [{ find: "\t\t\tif (misfit)\n\t\t\t\twrite(", replace: "\t\t\tif (false)\n\t\t\t\twrite(" }],
		tests: ["test/pi-races/rpc-dialog-answers.test.ts"],
	},
	{
		id: "KF01",
		file: "src/session/system-prompt.ts",
		description:
			'with no tool listed the tools section is left out: the preamble\'s "tools listed below" points at nothing (--no-tools, -c of such a session)',
		edits: [{ find: '.join("\\n") || "(none)",', replace: '.join("\\n"),' }],
		tests: ["test/pi-races/cli-prompt-tool-flags.test.ts", "test/session/system-prompt.test.ts"],
	},
	{
		id: "KF02",
		file: "src/cli/host.ts",
		description:
			"-c of a session that ran with a --system-prompt this run does not give: the persona changes without a word (pi#1252)",
		edits: [{ find: "...(args.systemPrompt === undefined ? changedBasePromptWarnings(runtime) : []),", replace: "" }],
		tests: ["test/pi-races/cli-prompt-tool-flags.test.ts"],
	},
	{
		id: "KF03",
		file: "src/cli/host.ts",
		description:
			"-c with an extension that sets the base prompt for each operation: a false warning that the session ran with another base prompt",
		edits: [{ find: 'if (runtime.session.extensionRunner.hasHandlers("before_agent_start")) return [];', replace: "" }],
		tests: ["test/pi-races/cli-prompt-tool-flags.test.ts"],
	},
	{
		id: "KF04",
		file: "src/session/agent-session.ts",
		description:
			"a resumed session's first request carries the loadout's own prompt, not the recorded one: an extension's per-operation base prompt equal to the recorded one is lost (pi#1252)",
		edits: [
			{
				find: "systemPromptFromTranscript(agent.state.messages)?.prompt ?? this.loadout.renderedPrompt();",
				replace: "this.loadout.renderedPrompt();",
			},
		],
		tests: ["test/pi-races/cli-prompt-tool-flags.test.ts"],
	},
	{
		id: "KH01",
		file: "src/llm/provider-env.ts",
		description:
			"without HOME and a passwd entry, a missing key's message is Node's 'uv_os_homedir returned ENOENT' again (the credential hint's default home is homedir())",
		edits: [
			{
				find: "home: string | undefined = homeFolder(),",
				replace: 'home: string | undefined = process.getBuiltinModule("node:os").homedir(),',
			},
		],
		tests: ["test/llm/provider-env-no-home.test.ts"],
	},
	{
		id: "KH02",
		file: "src/llm/chat-stream-repair.ts",
		description:
			"an OpenAI-compatible stream closed in the middle of a data line hands the cut JSON to the client again (printed to stderr, 'Unexpected end of JSON input')",
		edits: [{ find: 'const rest = isCutDataLine(tail) ? "" : tail;', replace: "const rest = tail;" }],
		tests: ["test/llm/chat-stream-repair.test.ts", "test/pi-races/local-openai-servers.test.ts"],
	},
	{
		id: "KH03",
		file: "src/tools/paths.ts",
		description:
			"a Mac-named (NFD) entry inside a folder whose own name is composed is 'not found' again by read, ls, find and grep (only the whole path is tried in NFD)",
		edits: [{ find: "\t\tnfdBelowExisting(resolved),\n", replace: "" }],
		tests: ["test/pi-races/search-nfd-names.test.ts"],
	},
	{
		id: "KH04",
		file: "src/resources/frontmatter.ts",
		description:
			"a skill whose description ends with its colon (`Use it when the user asks:`) is refused as invalid YAML again (only values holding `: ` are read as text)",
		edits: [{ find: '(value.includes(": ") || value.endsWith(":")) &&', replace: 'value.includes(": ") &&' }],
		tests: ["test/pi-races/skills-description-colons.test.ts"],
	},
	{
		id: "KH05",
		file: "src/tools/paths.ts",
		description:
			"with HOME empty, a tool's ~/notes.md names /notes.md at the file system's root again (and a relative HOME lands inside the project): `~` read with os.homedir()",
		edits: [
			{
				find: "const folder = homeFolder();",
				replace: 'const folder = process.getBuiltinModule("node:os").homedir();',
			},
		],
		tests: ["test/tools/paths-home.test.ts"],
	},
	{
		id: "KI01",
		file: "src/session/agent-session.ts",
		description:
			"a dispose from an agent_settled listener rejects that settled prompt with SESSION_CLOSED ('disposed before this prompt settled') again",
		edits: [
			{
				find: "\t\t\tif (requestId === announced && settledAs) {",
				replace: "\t\t\tif (requestId === announced && settledAs && false) {",
			},
		],
		tests: ["test/pi-races/sdk-hosts.test.ts"],
	},
	{
		id: "KI02",
		file: "src/session/operation-actors.ts",
		description:
			"the prompt whose agent_settled listeners hear (no extension handlers) is not marked: a dispose from that listener rejects it again",
		edits: [
			{
				find: '\t\tif (!s.runner().hasHandlers("agent_settled")) {\n\t\t\ts.scratch.settledAnnounced = input.requestId;',
				replace: '\t\tif (!s.runner().hasHandlers("agent_settled")) {',
			},
		],
		tests: ["test/pi-races/sdk-hosts.test.ts"],
	},
	{
		id: "KI03",
		file: "src/session/operation-actors.ts",
		description:
			"with extension agent_settled handlers, the prompt whose agent_settled listeners hear is not marked: a dispose from that listener rejects it again",
		edits: [
			{
				find: "\t\t\t\ts.scratch.settledAnnounced = input.requestId;\n\t\t\t\ts.events.emit(settled);",
				replace: "\t\t\t\ts.events.emit(settled);",
			},
		],
		tests: ["test/pi-races/sdk-hosts.test.ts"],
	},
	{
		id: "KN01",
		file: "src/llm/chat-stream-repair.ts",
		description:
			"an id-less call with a name after the call at its index has complete arguments continues that call: Ollama's id-less calls at index 0 are joined into one with two JSON objects as arguments (ollama#15457)",
		edits: [
			{
				find: "if (index !== undefined && !(hasName(call) && isComplete(argumentsAt.get(index)))) {",
				replace: "if (index !== undefined) {",
			},
		],
		tests: [
			"test/llm/chat-stream-repair.test.ts",
			"test/llm/chat-stream-repair.property.test.ts",
			"test/pi-races/local-openai-servers.test.ts",
		],
	},
	{
		id: "KN02",
		file: "src/llm/chat-stream-repair.ts",
		description:
			"any arguments so far count as complete: a server that repeats the name on each piece of an id-less call splits it into calls with broken arguments",
		edits: [{ find: "if (!args?.trim()) return false;", replace: "return !!args?.trim();" }],
		tests: ["test/llm/chat-stream-repair.test.ts"],
	},
	{
		id: "KN03",
		file: "src/llm/pi-ai.ts",
		description:
			"Bedrock requests go to pi-ai with the catalogue's endpoint: a region only in [default] of ~/.aws/config is ignored and us-east-1 is asked",
		edits: [
			{
				find: "withLongCacheWritePrice(withDefaultProfileRegion(model), sent.options)",
				replace: "withLongCacheWritePrice(model, sent.options)",
			},
		],
		tests: ["test/pi-races/bedrock-setups.test.ts"],
	},
	{
		id: "KN04",
		file: "src/llm/bedrock-region.ts",
		description:
			"with AWS_PROFILE set, the [default] profile's region still moves the endpoint, over the region of the profile AWS_PROFILE names",
		edits: [{ find: " || env.AWS_PROFILE) {", replace: ") {" }],
		tests: ["test/llm/bedrock-region.test.ts"],
	},
	{
		id: "KN05",
		file: "src/llm/bedrock-region.ts",
		description: "a region only in [default] of ~/.aws/credentials is not read, though the AWS SDK reads it",
		edits: [{ find: "config.region ?? credentials.region", replace: "config.region" }],
		tests: ["test/llm/bedrock-region.test.ts"],
	},
	{
		id: "KM01",
		file: "machines/prompt-operation.machine.ts",
		description:
			"abortCompaction() during an overflow recovery's session_compact: compaction_end says willRetry: false, and the request is re-run all the same (the machine ignores abortedAfterSave)",
		edits: [
			{
				find: "params.output.compacted && params.output.abortedAfterSave !== true && context.compaction?.willRetry === true",
				replace: "params.output.compacted && context.compaction?.willRetry === true",
			},
		],
		tests: ["test/session/abort-compaction-after-save.test.ts"],
	},
	{
		id: "KM02",
		file: "src/session/compaction-runner.ts",
		description:
			"abortCompaction() during an overflow recovery's session_compact: the runner no longer tells the machine the retry was dropped, so the request is re-run after compaction_end{willRetry: false}",
		edits: [
			{
				find: "if (input.willRetry && !attempt.retries) output.abortedAfterSave = true;",
				replace: "",
			},
		],
		tests: ["test/session/abort-compaction-after-save.test.ts"],
	},
	{
		id: "KM03",
		file: "src/session/operation-actors.ts",
		description:
			"a pending bash result that cannot be written at settle (session file deleted, disk full) throws in the machine's listener again: uncaught, and the session streams forever",
		edits: [
			{
				find: "} catch (error) {\n\t\t// A throw here would leave the machine in `settling` for good",
				replace: "} finally {\n\t\t// A throw here would leave the machine in `settling` for good",
			},
			{
				find: "\t\tscratch.settleWriteFailure = error;\n",
				replace: "",
			},
		],
		tests: ["test/session/settle-write-failure.test.ts"],
	},
	{
		id: "KM04",
		file: "src/session/agent-session.ts",
		description:
			"a write that failed at settle is not reported: prompt() resolves while the bash result it was to save is not in the file",
		edits: [
			{
				find: "\t\t\t\t\telse if (writeFailure !== undefined) pending?.reject(normalizeError(writeFailure));\n",
				replace: "",
			},
		],
		tests: ["test/session/settle-write-failure.test.ts"],
	},
	{
		id: "KM05",
		file: "src/session/queues.ts",
		description:
			"a pending bash result whose write failed is dropped instead of staying pending: the next prompt goes on without it",
		edits: [
			{
				find: "this.pendingBash = [...pending.slice(index), ...this.pendingBash];",
				replace: "",
			},
		],
		tests: ["test/session/settle-write-failure.test.ts"],
	},
	{
		id: "KM06",
		file: "machines/prompt-operation.machine.ts",
		description:
			"the agent_before_settle boundary answers while a busy prompt or steer() is still in its input hooks: the operation settles without waiting for it",
		edits: [
			{
				find: "awaitingBusyInput: ({ context }) => context.busyPreflightsInFlight > 0,",
				replace: "awaitingBusyInput: ({ context }) => context.busyPreflightsInFlight < 0,",
			},
		],
		tests: ["test/machines/prompt-operation-busy-input.property.test.ts"],
	},
	{
		id: "KM07",
		file: "machines/prompt-operation.machine.ts",
		description:
			"no agent_before_settle handler: the operation settles while input is still in its hooks (what it queues waits for an unrelated prompt)",
		edits: [
			{
				find: "context.lastOutcome?.beforeSettleBoundary === false && context.busyPreflightsInFlight > 0,",
				replace: "false,",
			},
		],
		tests: ["test/machines/prompt-operation-busy-input.property.test.ts"],
	},
	{
		id: "KM08",
		file: "machines/prompt-operation.machine.ts",
		description:
			"a threshold compaction that found messages queued meanwhile does not continue the operation: without a boundary it settles with them queued",
		edits: [
			{
				find: "compactionFoundQueuedMessages: (_, params: { output: CompactionOutput }) => params.output.continue,",
				replace:
					"compactionFoundQueuedMessages: (_, params: { output: CompactionOutput }) => false && params.output.continue,",
			},
		],
		tests: ["test/machines/prompt-operation-busy-input.property.test.ts"],
	},
	{
		id: "KM09",
		file: "machines/prompt-operation.machine.ts",
		description:
			"in awaitingInput, a busy prompt answered queued is only counted off: the operation settles with it queued",
		edits: [
			{
				after: "				awaitingInput: {",
				find: 'guard: "busyPreflightQueued",',
				replace: 'guard: "noBusyInputLeft",',
			},
		],
		tests: ["test/machines/prompt-operation-busy-input.property.test.ts"],
	},
	{
		id: "KK01",
		file: "src/session/provider-stream.ts",
		description: "a gateway's 502 HTML page is the error text again, its whole markup (codex#9110)",
		edits: [{ find: "\t\t\t\ttext = htmlRefusalText(text, model.baseUrl) ?? text;\n", replace: "" }],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "KK02",
		file: "src/session/provider-stream.ts",
		description:
			'a refused or unresolved connection says only "Connection error." again, no address, no cause (TradingAgents#664)',
		edits: [
			{
				find: "\t\t\t\t\tunreached !== undefined &&\n",
				replace: "\t\t\t\t\t(false as boolean) &&\n",
			},
		],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "KK03",
		file: "src/llm/response-activity.ts",
		description: "the response listener is not told why a fetch threw: connection failures stay bare",
		edits: [{ find: "\t\t\tonResponse?.failed?.(error);\n", replace: "" }],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "KK04",
		file: "src/llm/connection-failures.ts",
		description:
			"a certificate signed by an untrusted authority is a plain connection error again: retried, though every attempt fails the same, no word of NODE_EXTRA_CA_CERTS (claude-code#8054)",
		edits: [
			{
				find: "if (UNKNOWN_AUTHORITY.has(code)) {",
				replace: "if (UNKNOWN_AUTHORITY.has(code) && false) {",
			},
		],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "KK05",
		file: "src/session/provider-stream.ts",
		description:
			"a connection the proxy refused is explained as the provider's address refusing it, hiding the proxy (dub#1452)",
		edits: [{ find: "\t\t\t\t\t!proxyFailureSince(proxyMark)\n", replace: "\t\t\t\t\ttrue\n" }],
		tests: ["test/pi-races/proxy-refusals.test.ts"],
	},
	{
		id: "KK06",
		file: "src/session/provider-stream.ts",
		description:
			"a 200 HTML page (a gateway's block page, a web UI at the baseUrl) is read as an answer with no text again, exit 0 (qwen-code#6465)",
		edits: [
			{
				find: 'if (response.ok && response.body && /\\btext\\/html\\b/i.test(response.headers.get("content-type") ?? "")) {',
				replace: "if (false as boolean) {",
			},
		],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "KL01",
		file: "src/session/images.ts",
		description:
			"a request carries every image of the history again, past Anthropic's 100 (claude-code#24541): the per-request cap is gone",
		edits: [
			{
				find: "if (++kept > keep) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/pi-races/image-limits.test.ts"],
	},
	{
		id: "KL02",
		file: "src/tools/read.ts",
		description:
			"read of an iPhone photo (HEIC) says only that it looks binary again, not that it is an image to convert (claude-plugins-official#2286)",
		edits: [
			{
				find: "if (format) throw new SettleError(",
				replace: "if (format && false) throw new SettleError(",
			},
		],
		tests: ["test/pi-races/image-limits.test.ts", "test/tools/read.test.ts"],
	},
	{
		id: "KL03",
		file: "src/cli/main.ts",
		description:
			"@photo.heic is refused as a binary file again, without naming HEIC or the command that converts it (claude-plugins-official#2286)",
		edits: [
			{
				find: "const format = detectUnsendableImageFormat(bytes);",
				replace: "const format = undefined as string | undefined;",
			},
		],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "KL04",
		file: "src/session/images.ts",
		description:
			"a request with more than 20 images carries one with a side over 2000 px again, which Anthropic refuses in this and every later request (claude-code#49720)",
		edits: [
			{
				find: "if (!many || !overManyImageSide(block)) return block;",
				replace: "return block;",
			},
		],
		tests: ["test/pi-races/image-limits.test.ts"],
	},
	{
		id: "KJ01",
		file: "src/store/migration.ts",
		description:
			"v1 → v2 migration checks each new id against a set it never adds to (openclaw#89085): a long v1 file gets two entries on one id and its branch stops there",
		edits: [{ find: "\t\tids.add(id);\n", replace: "" }],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "KJ02",
		file: "src/store/discovery.ts",
		description:
			"the session lists read a header with a UTF-8 byte-order mark as unreadable (codex#28139): a session an editor re-saved drops out of `-r` and `-c`",
		edits: [
			{
				find: "return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;",
				replace: "return text;",
			},
		],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "KJ03",
		file: "src/cli/session-picker.ts",
		description:
			"`-r`'s question no longer takes `more` (claude-code#87392): a session past the first 20 is reachable only by an id the user does not know",
		edits: [{ find: "if (choice.toLowerCase() === MORE_SESSIONS) {", replace: 'if (choice === "never") {' }],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "KJ04",
		file: "src/cli/session-picker.ts",
		description: "each page of the `-r` list numbers from 1 again: `45` names no session listed",
		edits: [{ find: "String(from + index + 1)", replace: "String(index + 1)" }],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "KJ05",
		file: "src/cli/interactive-commands.ts",
		description:
			"`/resume more` starts over at the newest session (claude-code#87392): the chat never lists a session past the first 20",
		edits: [
			{
				find: "printResumePage(host, sessions, last.shown, last.all);",
				replace: "printResumePage(host, sessions, 0, last.all);",
			},
		],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "KT01",
		file: "src/session/agent-session.ts",
		description:
			"a retry whose context_edit cannot be written (session file deleted or changed) goes on silently: prompt() resolves with nothing said",
		edits: [
			{
				find: 'this.internals.scratch.settleWriteFailure = error;\n\t\t\t\t\t\tthis.actor.send({ type: "ABORT_RETRY" });',
				replace: "",
			},
		],
		tests: ["test/session/retry-write-failure.test.ts"],
	},
	{
		id: "KT02",
		file: "src/extensions/pi-compat-compaction.ts",
		description:
			"an extension's summary request (pi's generateSummary/compact) on a Bedrock model ignores the [default] profile's region and goes to us-east-1",
		edits: [
			{
				find: "streamSimple(withDefaultProfileRegion(model), context, options)",
				replace: "streamSimple(model, context, options)",
			},
		],
		tests: ["test/pi-races/bedrock-setups.test.ts"],
	},
	{
		id: "KT03",
		file: "src/session/compaction-runner.ts",
		description:
			"an overflow recovery whose context_edit cannot be written (session file deleted) ends with nothing said: the machine drops the compaction's error and prompt() resolves",
		edits: [
			{
				find: "s.scratch.settleWriteFailure = error;\n\t\t\tthrow error;",
				replace: "throw error;",
			},
		],
		tests: ["test/session/retry-write-failure.test.ts"],
	},
	{
		id: "KO01",
		file: "src/session/images.ts",
		description:
			"past 100 images the oldest go one at a time again: every new screenshot rewrites an early message, and each request misses the prompt cache (hermes-agent#113517)",
		edits: [
			{
				find: "const batch = Math.max(1, Math.floor(max / 5));",
				replace: "const batch = 1;",
			},
		],
		tests: ["test/pi-races/image-limits.test.ts"],
	},
	{
		id: "KR01",
		file: "src/resources/context-files.ts",
		description:
			"an AGENTS.md that is a symlink to nothing (a target with a stray newline) is skipped in silence again: the user never learns the rules were not read (t3code#2052, rolldown#10451)",
		edits: [
			{
				find: "if (link !== undefined) {",
				replace: "if (link !== undefined && false) {",
			},
		],
		tests: ["test/pi-races/context-files-on-disk.test.ts"],
	},
	{
		id: "KR02",
		file: "src/resources/resource-loader.ts",
		description:
			"the loader forgets which file the SYSTEM.md / APPEND_SYSTEM.md text came from: the banner no longer says a file replaced the prompt (pi#7096)",
		edits: [{ find: "readFrom.push(path);", replace: "" }],
		tests: ["test/pi-races/context-files-on-disk.test.ts"],
	},
	{
		id: "KR03",
		file: "src/cli/interactive-mode.ts",
		description:
			"settle -i's banner lists no context files and no SYSTEM.md / APPEND_SYSTEM.md again: a file changes the prompt unseen (pi#7096)",
		edits: [{ find: "for (const line of promptFileLines(runtime)) printer.line(line);", replace: "" }],
		tests: ["test/pi-races/context-files-on-disk.test.ts"],
	},
	{
		id: "KR04",
		file: "src/cli/interactive-commands.ts",
		description:
			"/session no longer names the files shaping the prompt, so a /reload's effect cannot be checked (pi#7096)",
		edits: [{ find: "for (const line of promptFileLines(host.runtime)) host.print(line);", replace: "" }],
		tests: ["test/pi-races/context-files-on-disk.test.ts"],
	},
	{
		id: "KR05",
		file: "src/resources/resource-loader.ts",
		description:
			"a folder named .settle/SYSTEM.md is taken for the project's SYSTEM.md again: an EISDIR warning, and the agent folder's SYSTEM.md is not used (gemini-cli#4760)",
		edits: [
			{ find: "return paths.find((path) => isFile(path));", replace: "return paths.find((path) => existsSync(path));" },
		],
		tests: ["test/pi-races/context-files-on-disk.test.ts"],
	},
	{
		id: "KP01",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p answers an extension's dialog with the no-UI default without a word again: a permission gate's silent denial is not seen on stderr (pi_agent_rust#224)",
		edits: [
			{
				find: "onDialog: (request, extensionPath) => out.stderr(",
				replace: "onDialog: (request, extensionPath) => void (",
			},
		],
		tests: ["test/pi-races/extension-ui-headless.test.ts"],
	},
	{
		id: "KP02",
		file: "src/cli/rpc-ui.ts",
		description:
			"settle --rpc resolves ctx.ui.custom() to undefined without a trace on stderr again: an extension waiting for its component looks hung (pi#9951, percho#36)",
		edits: [
			{
				find: "warn?.(RPC_CUSTOM_WARNING);",
				replace: "",
			},
		],
		tests: ["test/pi-races/extension-ui-headless.test.ts"],
	},
	{
		id: "KP03",
		file: "src/cli/rpc-ui.ts",
		description:
			"settle --rpc drops an extension_ui_response whose id no dialog was sent with, without a reply again: the host never learns why its dialog waits (pilish#80)",
		edits: [{ find: "if (!sent.has(response.id))", replace: "if (!sent.has(response.id) && false)" }],
		tests: ["test/pi-races/extension-ui-headless.test.ts"],
	},
	{
		id: "KQ01",
		file: "src/session/provider-stream.ts",
		description:
			"an Anthropic refusal (stop_reason refusal / sensitive) shows pi-ai's 'An unknown error occurred' again, its category and explanation lost (pi#5591, pi#4769)",
		edits: [
			{
				find: "text = refusalText(stop) ?? geminiStopText(geminiStop) ?? contentFilterText(text) ?? text;",
				replace: "text = geminiStopText(geminiStop) ?? contentFilterText(text) ?? text;",
			},
		],
		tests: ["test/pi-races/anthropic-refusals.test.ts"],
	},
	{
		id: "KQ02",
		file: "src/llm/anthropic-stop-details.ts",
		description: "the refusal's stop_details explanation is dropped from the error text (pi#5591)",
		edits: [
			{
				find: "explanation: text(details.explanation)",
				replace: "explanation: undefined",
			},
		],
		tests: ["test/pi-races/anthropic-refusals.test.ts"],
	},
	{
		id: "KQ03",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p prints an answer cut at the output token cap as a finished one, without a word on stderr (gsd-pi#2157, dreb#240)",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'const cut =\n\t\t\tlast.stopReason === "length" ? `Warning: ${outputCapText(last, runtime.session.model, "--thinking")}` : undefined;',
				replace: "const cut = undefined as string | undefined;",
			},
		],
		tests: ["test/pi-races/answer-cut-at-output-cap.test.ts"],
	},
	{
		id: "KQ04",
		file: "src/cli/output-cap.ts",
		description:
			"the cut-answer warning tells to raise maxTokens on a model whose maxTokens is over pi-ai's 32000 request cap, where raising it changes nothing",
		edits: [
			{
				find: "model && model.maxTokens > 0 && model.maxTokens < PI_AI_DEFAULT_MAX_TOKENS",
				replace: "model && model.maxTokens > 0",
			},
		],
		tests: ["test/pi-races/answer-cut-at-output-cap.test.ts"],
	},
	{
		id: "KQ05",
		file: "src/session/provider-stream.ts",
		description:
			"Anthropic's refusal of a thinking budget a model's small maxTokens caused no longer names maxTokens, models.json and --thinking off (agent-afk#951)",
		edits: [
			{
				find: "if (budgetNote) text =",
				replace: "if (false) text =",
			},
		],
		tests: ["test/pi-races/thinking-budget-cap.test.ts"],
	},
	{
		id: "KQ06",
		file: "src/session/provider-stream.ts",
		description:
			"the maxTokens note is added to every budget refusal, also when the cap is large enough and not the cause",
		edits: [
			{
				find: "if (!(model.maxTokens > 0) || model.maxTokens >= MIN_THINKING_MAX_TOKENS) return undefined;",
				replace: "",
			},
		],
		tests: ["test/pi-races/thinking-budget-cap.test.ts"],
	},
	{
		id: "KQ07",
		file: "src/llm/errors.ts",
		description:
			"DashScope's overflow text (Range of input length should be [1, N]) is a plain failure again: nothing compacted (opencode#45834)",
		edits: [{ find: "/range of input length should be \\[/i,", replace: "" }],
		tests: ["test/pi-races/overflow-wordings.test.ts"],
	},
	{
		id: "KQ08",
		file: "src/llm/errors.ts",
		description:
			"SGLang's overflow text (the input is longer than the model's context length) is a plain failure again: nothing compacted (openclaw#129352)",
		edits: [{ find: "/is longer than the model'?s context length/i,", replace: "" }],
		tests: ["test/pi-races/overflow-wordings.test.ts"],
	},
	{
		id: "KQ09",
		file: "src/llm/errors.ts",
		description:
			"DashScope's refused-parameter 400 (InternalError.Algo.InvalidParameter) is retried as an internal error, the same refusal each time",
		edits: [{ find: "if (/\\bInvalidParameter\\b/.test(errorMessage)) return false;", replace: "" }],
		tests: ["test/pi-races/overflow-wordings.test.ts"],
	},
	{
		id: "KQ10",
		file: "src/llm/anthropic-stop-details.ts",
		description:
			"an Anthropic answer that stops tool_use without a tool call ends the turn again, silently, as if the agent hung (pi#9681)",
		edits: [{ find: 'if (stop.reason === "tool_use" && toolUseBlocks === 0) {', replace: "if (false) {" }],
		tests: ["test/pi-races/anthropic-empty-tool-use.test.ts"],
	},
	{
		id: "KQ11",
		file: "src/llm/errors.ts",
		description: "the empty tool-use stop ends as a final error instead of being asked again (pi#9681)",
		edits: [{ find: "/stop_reason tool_use but holds no tool call/,", replace: "" }],
		tests: ["test/pi-races/anthropic-empty-tool-use.test.ts"],
	},
	{
		id: "KQ12",
		file: "src/llm/anthropic-stop-details.ts",
		description: "a tool_use block is not counted: an answer with a real tool call is failed as an empty tool-use stop",
		edits: [{ find: "toolUseBlocks++;", replace: "" }],
		tests: ["test/pi-races/anthropic-empty-tool-use.test.ts"],
	},
	{
		id: "KQ13",
		file: "src/llm/errors.ts",
		description:
			"oMLX's overflow text (Prompt too long: N tokens exceeds max context window of M tokens) is a plain failure again: nothing compacted (omlx#26)",
		edits: [{ find: "/exceeds (?:the )?max(?:imum)? context window of [\\d,]+/i,", replace: "" }],
		tests: ["test/pi-races/overflow-wordings.test.ts"],
	},
	{
		id: "KV01",
		file: "src/cli/rpc-mode.ts",
		description:
			"settle --rpc leaves the replaced session's open dialogs open: a later answer reaches a disposed extension, whose ctx.ui.notify throws",
		edits: [
			{
				find: '\truntime.setBeforeSessionInvalidate(() => ui.dismissOpen(runtime.isDisposed ? "ending" : "replaced"));\n',
				replace: "",
			},
		],
		tests: ["test/pi-races/rpc-dialog-replaced-session.test.ts"],
	},
	{
		id: "KV02",
		file: "src/cli/rpc-ui.ts",
		description: "an RPC editor() ignores its timeout and AbortSignal again: unanswered, it waits for good",
		edits: [
			{
				find: '\t\t\tdialog({ method: "editor", title, prefill, timeout: opts?.timeout }, undefined, text, opts),',
				replace: '\t\t\tdialog({ method: "editor", title, prefill, timeout: opts?.timeout }, undefined, text),',
			},
		],
		tests: ["test/pi-races/rpc-extension-ui.test.ts"],
	},
	{
		id: "KV03",
		file: "src/cli/interactive-render.ts",
		description:
			"the chat's notice for an answer cut at the output cap says only that it stopped, not the model's maxTokens nor where to raise it",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'this.notice(`(${outputCapText(message, this.model(), "/thinking")})`);',
				replace: 'this.notice("(the answer stopped at the output token limit)");',
			},
		],
		tests: ["test/pi-races/answer-cut-at-output-cap.test.ts"],
	},
	{
		id: "KV04",
		file: "src/cli/interactive-mode.ts",
		description: "the chat's cut-answer notice no longer knows the session's model: maxTokens and the model go unnamed",
		edits: [{ find: "\t\t() => runtime.session.model,\n", replace: "" }],
		tests: ["test/pi-races/answer-cut-at-output-cap.test.ts"],
	},
	{
		id: "KU01",
		file: "src/session/agent-session.ts",
		description:
			"a dispose from an agent_settled listener resolves the prompt whose settle write failed again (the bash result it could not save reads as saved)",
		edits: [
			{
				find: "else if (this.internals.scratch.settleWriteFailure !== undefined)\n\t\t\t\t\tpending.reject(normalizeError(this.internals.scratch.settleWriteFailure));\n",
				replace: "",
			},
		],
		tests: ["test/session/settle-write-failure.test.ts"],
	},
	{
		id: "KU02",
		file: "src/session/provider-stream.ts",
		description:
			"the event-stream check is case-sensitive again: an Anthropic refusal sent as Text/Event-Stream reads 'An unknown error occurred'",
		edits: [{ find: "return /event-stream/i.test(", replace: "return /event-stream/.test(" }],
		tests: ["test/pi-races/anthropic-refusals.test.ts"],
	},
	{
		id: "KU03",
		file: "src/llm/response-activity.ts",
		description:
			"the activity watch's event-stream check is case-sensitive again: keep-alives on a Text/Event-Stream response are silence and the live stream is cut as idle",
		edits: [
			{
				find: '!/event-stream/i.test(response.headers.get("content-type") ?? "")',
				replace: '!/event-stream/.test(response.headers.get("content-type") ?? "")',
			},
		],
		tests: ["test/pi-races/provider-dropped-connections.test.ts"],
	},
	{
		id: "KU04",
		file: "src/session/provider-stream.ts",
		description:
			"every 200 labelled text/html is a served page again: an answer stream a gateway mislabelled text/html fails as 'answered with an HTML page' instead of being answered",
		edits: [{ find: "if (!/^\\s*[^<\\s]/.test(peeked.start)) {", replace: "if (peeked) {" }],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "KU05",
		file: "src/llm/bedrock-region.ts",
		description:
			"the default profile's sections merge in file order again: a [default] after [profile default] overrides its region, though the SDK reads [profile default] whole",
		edits: [
			{ find: "names.findLast((name) => sections.has(name))", replace: "names.find((name) => sections.has(name))" },
		],
		tests: ["test/llm/bedrock-region.test.ts"],
	},
	{
		id: "KW01",
		file: "src/llm/tokens.ts",
		description:
			"a CJK character counts a quarter of a token again: a Chinese session's kept tail holds ~4x keepRecentTokens (pi#2562, openclaw#103930)",
		edits: [
			{
				find: "if (code >= 0x1100 && isWide(code)) chars += 3;",
				replace: "if (code >= 0x1100 && isWide(code)) chars += 0;",
			},
		],
		tests: ["test/pi-races/compaction-cjk-estimate.test.ts", "test/compaction/tokens.test.ts"],
	},
	{
		id: "KW02",
		file: "src/llm/tokens.ts",
		description:
			"the kept tail is keepRecentTokens as set again: a 32k model keeps 20000 tokens, over its threshold, and every prompt compacts (opencode#45368)",
		edits: [
			{ find: "return Math.min(settings.keepRecentTokens, half);", replace: "return settings.keepRecentTokens;" },
		],
		tests: ["test/pi-races/compaction-every-turn.test.ts", "test/compaction/tokens.test.ts"],
	},
	{
		id: "KW03",
		file: "src/session/compaction-runner.ts",
		description:
			"automatic compaction prepares with keepRecentTokens as set, not capped for the model's window: every prompt compacts on a 32k model (opencode#45368)",
		edits: [
			{
				find: "const preparation = prepareCompaction(branchEntries, compactionSettingsFor(s, model));",
				replace: "const preparation = prepareCompaction(branchEntries, s.settingsManager.getCompactionSettings());",
			},
		],
		tests: ["test/pi-races/compaction-every-turn.test.ts"],
	},
	{
		id: "KX01",
		file: "src/llm/tokens.ts",
		description:
			"the native pre-scan for wide characters misses fullwidth forms: a text whose only wide characters are fullwidth is counted at a quarter again",
		edits: [
			{
				find: "\\ufe30-\\ufe4f\\uff00-\\uffef]/;",
				replace: "\\ufe30-\\ufe4f]/;",
			},
		],
		tests: ["test/compaction/tokens.test.ts"],
	},
	{
		id: "LA01",
		file: "src/cli/print-mode.ts",
		description:
			"`settle -p`'s line for a dialog it could not ask says what happened but not what to do (no settle -i / --rpc, no ctx.hasUI)",
		edits: [{ find: `\${answer}\${UNASKED_WAY_OUT}\``, replace: `\${answer}\`` }],
		tests: ["test/cli/extension-notify-print.test.ts"],
	},
	{
		id: "LA02",
		file: "src/llm/connection-failures.ts",
		description:
			"a server that closed the connection before answering is named with its cause but no next step (the server still running, a proxy in between)",
		edits: [
			{
				find: `(\${code}: \${cause.message}). Check that the server is still running (its log says why it hung up), and any proxy in between.\``,
				replace: `(\${code}: \${cause.message}).\``,
			},
		],
		tests: ["test/llm/wire/anthropic-errors.test.ts"],
	},
	{
		id: "LA03",
		file: "src/llm/connection-failures.ts",
		description:
			"any other connection failure (a port answering in something else than HTTP) names the address and cause but no next step",
		edits: [
			{
				find: `""}). Check that the server runs, that \${setting} names it, and any proxy in between.\``,
				replace: '""}).`',
			},
		],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "LA04",
		file: "src/cli/interactive-ui.ts",
		description:
			"`settle -i`'s ctx.ui.editor ignores its signal and timeout: the command waits for a line nobody was asked to type",
		edits: [
			{
				find: `const answer = await ask(\`\${title}\${shown}: \`, opts);`,
				replace: `const answer = await ask(\`\${title}\${shown}: \`);`,
			},
		],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "LA05",
		file: "src/cli/interactive-commands.ts",
		description:
			"`/resume more` after a `/resume all` that found nothing goes on with the next page of the list before it",
		edits: [{ find: "resumeListed.set(host, { all: true, shown: 0, found: false });", replace: "" }],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "KZ01",
		file: "src/session/run-outcome.ts",
		description:
			"a compaction that left the context over the threshold is repeated after every answer again (kimi-code#2325): the growth since it is not asked",
		edits: [
			{
				find: "over: due && afterCompaction === undefined,",
				replace: "over: due && true,",
			},
		],
		tests: ["test/pi-races/compaction-over-threshold.test.ts"],
	},
	{
		id: "KZ02",
		file: "src/session/run-outcome.ts",
		description:
			"after a compaction that could not get under the threshold, none runs again however much the conversation grows (the growth is not compared with the kept tail)",
		edits: [
			{
				find: "if (contextTokens - growth > thresholdTokens && kept + growth < 2 * keepRecentTokens) return contextTokens - growth;",
				replace: "if (contextTokens - growth > thresholdTokens && growth >= 0) return contextTokens - growth;",
			},
		],
		tests: ["test/pi-races/compaction-over-threshold.test.ts"],
	},
	{
		id: "KY01",
		file: "src/export/render.ts",
		description:
			"the page's entries are never handed out before the end: the export holds the whole page as one string again (a 104 MB session peaked at 732 MB, not 235 MB)",
		edits: [{ find: "if (text.length >= PIECE_CHARS) {", replace: "if (false) {" }],
		tests: ["test/export/export.test.ts"],
	},
	{
		id: "KY02",
		file: "src/export/write-file.ts",
		description:
			"an export's output path is the session file only when the paths match: a hard link to the session passes the check and the page replaces the session (gajae-code#4061)",
		edits: [
			{
				find: "return first.dev === second.dev && first.ino === second.ino;",
				replace: "return first.dev === second.dev && first.ino === second.ino && false;",
			},
		],
		tests: ["test/pi-races/export-over-session-link.test.ts"],
	},
	{
		id: "LC01",
		file: "src/session/run-outcome.ts",
		description:
			"after a switch to a smaller window, the tail the bigger model's compaction kept is not counted: the context stays over the new threshold, uncompacted, until the conversation grows by the new kept tail",
		edits: [
			{
				find: 'else if (message.role !== "compactionSummary") kept += estimateMessageTokens(message);',
				replace: 'else if (message.role !== "compactionSummary") kept += 0;',
			},
			{
				find: "kept + growth < 2 * keepRecentTokens)",
				replace: "kept + 2 * growth < 2 * keepRecentTokens)",
			},
		],
		tests: ["test/pi-races/compaction-over-threshold.test.ts"],
	},
	{
		id: "LB01",
		file: "src/session/run-outcome.ts",
		description:
			"a compaction that cannot get the context under the threshold is never told: compaction silently stops helping (kimi-code#2325)",
		edits: [
			{
				find: "if (afterCompaction !== undefined) tellOverThreshold(",
				replace: "if (afterCompaction === -1) tellOverThreshold(",
			},
		],
		tests: ["test/pi-races/compaction-over-threshold.test.ts"],
	},
	{
		id: "LB02",
		file: "src/session/run-outcome.ts",
		description: "the over-threshold warning is repeated at every threshold check instead of once per session",
		edits: [
			{
				find: "if (toldOverThreshold.get(s) === key) return;",
				replace: "if (toldOverThreshold.get(s) === undefined && false) return;",
			},
		],
		tests: ["test/pi-races/compaction-over-threshold.test.ts"],
	},
	{
		id: "LB04",
		file: "src/cli/interactive-render.ts",
		description: "`settle -i` does not show the compaction_over_threshold warning as a line of the chat",
		edits: [
			{
				find: 'case "compaction_over_threshold":\n\t\t\t\tthis.line(s.yellow(event.message));',
				replace: 'case "compaction_over_threshold":\n\t\t\t\tthis.line(s.yellow(""));',
			},
		],
		tests: ["test/pi-races/compaction-over-threshold.test.ts"],
	},
	{
		id: "LB03",
		file: "src/cli/print-mode.ts",
		description: "`settle -p` does not print the compaction_over_threshold warning on stderr",
		edits: [
			{
				find: 'if (event.type === "compaction_over_threshold") out.stderr(',
				replace: 'if (event.type === "compaction_over_threshold" && json) out.stderr(',
			},
		],
		tests: ["test/pi-races/compaction-over-threshold.test.ts"],
	},
	{
		id: "LG01",
		file: "src/llm/stateless-reasoning.ts",
		description: "a stateless Responses request at thinking off no longer asks for the encrypted reasoning (pi#5059)",
		edits: [
			{
				find: "if (params && params.store === false) {",
				replace: "if (params && params.store === false && params.include !== undefined) {",
			},
		],
		tests: ["test/pi-races/responses-reasoning-at-off.test.ts"],
	},
	{
		id: "LG02",
		file: "src/llm/gemini-unsigned-calls.ts",
		description:
			"another model's tool call continued on Gemini 3 goes without Google's stand-in signature (pipecat#5809)",
		edits: [
			{
				find: "if (first && !first.thoughtSignature) first.thoughtSignature = SKIP_THOUGHT_SIGNATURE;",
				replace: "if (first && !first.thoughtSignature) first.thoughtSignature = undefined;",
			},
		],
		tests: ["test/pi-races/gemini-thought-signatures.test.ts"],
	},
	{
		id: "LG03",
		file: "src/llm/gemini-unsigned-calls.ts",
		description: "the stand-in signature is also written on calls of earlier turns, not only the current one",
		edits: [
			{ find: "for (const content of contents.slice(start + 1)) {", replace: "for (const content of contents) {" },
		],
		tests: ["test/pi-races/gemini-thought-signatures.test.ts"],
	},
	{
		id: "LD01",
		file: "src/cli/session-picker.ts",
		description:
			"the -r pick of a session another live process writes says the SDK's `manager.close()` / `readOnly`, not who holds it and `settle --fork <file>`",
		edits: [
			{
				find: '"Pick another, or press Enter for a new session.",\n\t\t\t);',
				replace: '"Pick another, or press Enter for a new session.",\n\t\t\t) && undefined;',
			},
		],
		tests: ["test/pi-races/session-folder-races.test.ts"],
	},
	{
		id: "LD02",
		file: "src/cli/interactive-commands.ts",
		description:
			"/resume of a session another live process writes says the SDK's `manager.close()` / `readOnly`, not who holds it and `settle --fork <file>`",
		edits: [{ find: 'rethrowInChatTerms(error, "so it was not resumed");', replace: "" }],
		tests: ["test/pi-races/session-folder-races.test.ts"],
	},
	{
		id: "LD03",
		file: "src/store/discovery.ts",
		description:
			"the session lists skip a whole entry written onto a cut-off line: -r shows fewer messages and another first message than the pick resumes (codex#24425)",
		edits: [{ find: "const glued = scan.header ? gluedEntry(line) : undefined;", replace: "const glued = undefined;" }],
		tests: ["test/pi-races/session-folder-races.test.ts"],
	},
	{
		id: "LD04",
		file: "src/cli/session-picker.ts",
		description:
			"the session lists do not mark a session another live process writes: the user learns it is in use only once the pick is refused (claude-code#87902)",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
		edits: [{ find: ": ` (in use by process ${holder.pid}${host})`;", replace: ': "";' }],
		tests: ["test/pi-races/session-folder-races.test.ts"],
	},
	{
		id: "LD05",
		file: "src/store/lock.ts",
		description:
			"a lock left by a process that died on this machine counts as held: the lists mark a crashed chat's session as in use though the pick resumes it",
		edits: [
			{
				find: "if (owner.hostname === hostname() && !processAlive(owner.pid)) return undefined;",
				replace: "",
			},
		],
		tests: ["test/pi-races/session-folder-races.test.ts"],
	},
	{
		id: "LD06",
		file: "src/cli/interactive-commands.ts",
		description:
			"/import of a session file another live process writes says the SDK's `manager.close()` / `readOnly`, not who holds it and `settle --fork <file>`",
		edits: [{ find: 'rethrowInChatTerms(error, "so it was not imported");', replace: "" }],
		tests: ["test/pi-races/session-folder-races.test.ts"],
	},
	{
		id: "LF01",
		file: "src/cli/session-picker.ts",
		description:
			"settle -r / /resume list a session's time as its UTC minute, unmarked: hours off the user's clock (plannotator-tui#71)",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "${localMinute(info.modified)}",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: '${info.modified.toISOString().slice(0, 16).replace("T", " ")}',
			},
		],
		tests: ["test/pi-races/time-zones.test.ts"],
	},
	{
		id: "LF02",
		file: "src/session/system-prompt.ts",
		description:
			"the system prompt's `Current date:` is the UTC date: a day off for hours every day far from UTC (pi#2814)",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: 'add("date", `Current date: ${formatLocalDate(clock(options.now))}`)',
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: 'add("date", `Current date: ${clock(options.now).toISOString().slice(0, 10)}`)',
			},
		],
		tests: ["test/pi-races/time-zones.test.ts"],
	},
	{
		id: "LF03",
		file: "src/llm/errors.ts",
		description:
			'a Retry-After that is not delay-seconds goes to Date.parse: `-3` is a date in 2001 ("retry in 0s"), a zoneless asctime date is read in the local time zone (pi#9571)',
		edits: [{ find: "const date = httpDateMs(retryAfter, now);", replace: "const date = Date.parse(retryAfter);" }],
		tests: ["test/pi-races/retry-after-dates.test.ts"],
	},
	{
		id: "LF04",
		file: "src/llm/errors.ts",
		description:
			"a signed Retry-After (`-3`) is taken as delay-seconds: a negative wait claimed in the retry's error (pi#9571)",
		edits: [{ find: "const DELAY_SECONDS = /^\\d+", replace: "const DELAY_SECONDS = /^-?\\d+" }],
		tests: ["test/pi-races/retry-after-dates.test.ts"],
	},
	{
		id: "LF05",
		file: "src/llm/errors.ts",
		description: "an RFC 850 Retry-After date's two-digit year read as the 1900s: a date long past, an immediate retry",
		edits: [{ find: "let year = 2000 + Number(rfc850[3]);", replace: "let year = 1900 + Number(rfc850[3]);" }],
		tests: ["test/pi-races/retry-after-dates.test.ts"],
	},
	{
		id: "LF06",
		file: "src/store/discovery.ts",
		description:
			"settle -c ranks a session stamped a year ahead by its time: it continues that session from the future, not the one last talked in (deja-vu#880)",
		edits: [{ find: "if (stampedAhead(modified, now)) {", replace: "if (modified.getTime() < 0) {" }],
		tests: ["test/pi-races/time-zones.test.ts"],
	},
	{
		id: "LF07",
		file: "src/store/discovery.ts",
		description: "settle -r lists a session stamped a year ahead first, before every real one (deja-vu#880)",
		edits: [
			{
				find: "Number(stampedAhead(a.modified, now)) - Number(stampedAhead(b.modified, now)) ||",
				replace: "0 ||",
			},
		],
		tests: ["test/pi-races/time-zones.test.ts"],
	},
	{
		id: "LF08",
		file: "src/store/discovery.ts",
		description:
			"settle -c passes over a project's only session when it is stamped ahead of the clock: a new session instead",
		edits: [{ find: "return best ?? ahead ?? empty;", replace: "return best ?? empty;" }],
		tests: ["test/pi-races/time-zones.test.ts"],
	},
	{
		id: "LH01",
		file: "src/resources/extensions.ts",
		description: "a .js extension holding TypeScript fails with the bare parse error, no hint to rename it to .ts",
		edits: [{ find: 'if (!/ParseError|SyntaxError/.test(message)) return "";', replace: 'return "";' }],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LH02",
		file: "src/resources/fresh-imports.ts",
		description:
			"no load pass tags native imports: /reload keeps an extension's old .mjs / .cjs / type-module .js code",
		edits: [{ find: "if (passes === 1) return;", replace: "return;" }],
		tests: ["test/pi-races/extension-reload-imports.test.ts"],
	},
	{
		id: "LH03",
		file: "src/resources/fresh-imports.ts",
		description:
			"a tagged module's own imports are not tagged: a compiled extension's dist/ helpers stay stale after /reload",
		edits: [{ find: "Number(TAG.exec(parent)?.[1] ?? (", replace: "Number(undefined ?? (" }],
		tests: ["test/pi-races/extension-reload-imports.test.ts"],
	},
	{
		id: "LH04",
		file: "src/resources/fresh-imports.ts",
		description: "the require cache keeps an extension's CommonJS helper: /reload runs its old code",
		edits: [{ find: "\tforgetCommonJs(entries);\n", replace: "" }],
		tests: ["test/pi-races/extension-reload-imports.test.ts"],
	},
	{
		id: "LH05",
		file: "src/resources/fresh-imports.ts",
		description:
			"node_modules packages are tagged too: each /reload evaluates a dependency again and repeats its side effects",
		edits: [{ find: 'url.includes("/node_modules/") || ', replace: "" }],
		tests: ["test/pi-races/extension-reload-imports.test.ts"],
	},
	{
		id: "LH06",
		file: "src/resources/resource-loader.ts",
		description: "a package manifest naming an extension file the package does not ship loads nothing, without a word",
		edits: [
			{
				find: "for (const entry of isDirectory(root) ? missingManifestExtensions(root, item.entry) : [])",
				replace: "for (const entry of [] as string[])",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LH07",
		file: "src/cli/host.ts",
		description: "Ctrl+C during a stalled extension load exits without naming the extension",
		edits: [{ find: "const stopExplaining = explainLoadingOnSignal();", replace: "const stopExplaining = () => {};" }],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "LH08",
		file: "src/cli/termination.ts",
		description: "a stall before the session exists prints the bare stall, not the extension still loading",
		edits: [{ find: 'const loading = guarded.runtime ? "" : extensionsLoadingNow();', replace: 'const loading = "";' }],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "LH09",
		file: "src/extensions/loader.ts",
		description: "a factory being awaited is not listed as loading: a stall in it is not named",
		edits: [
			{
				find: 'await whileLoading(record.path, "factory", () => factory(createExtensionAPI(extension, runtime)));',
				replace: "await factory(createExtensionAPI(extension, runtime));",
			},
		],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "LH10",
		file: "src/resources/extensions.ts",
		description: "a module being imported is not listed as loading: a stall at its top-level await is not named",
		edits: [
			{
				find: 'await whileLoading(candidate.path, "module", () => importWith(importer(), candidate.path));',
				replace: "await importWith(importer(), candidate.path);",
			},
		],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "LE01",
		file: "src/session/provider-stream.ts",
		description:
			"an OpenAI-compatible server's 400 refusing a field pi-ai sent no longer names the models.json compat setting that stops it",
		edits: [
			{
				find: "const compatNote = capNote ?? compatOptionNote(text, refusedStatus, model);",
				replace: "const compatNote = capNote;",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts"],
	},
	{
		id: "LE02",
		file: "src/llm/errors.ts",
		description:
			"OpenRouter's 400 Provider returned error around an upstream invalid_request_error is retried, the same refusal each time",
		edits: [
			{
				find: "if (/^4(?:00|22)\\b/.test(errorMessage) && /\\binvalid_(?:request|parameter)_error\\b/.test(errorMessage)) return false;",
				replace: "",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts", "test/recovery/errors.test.ts"],
	},
	{
		id: "LE03",
		file: "src/llm/compat-notes.ts",
		description:
			"the field a 'Use max_completion_tokens instead' clause offers is taken for the refused one: the note names the setting that sends the refused field",
		edits: [{ find: 'const refused = text.replace(USE_INSTEAD, "");', replace: "const refused = text;" }],
		tests: ["test/pi-races/openai-compat-refusals.test.ts", "test/llm/compat-notes.test.ts"],
	},
	{
		id: "LE04",
		file: "src/llm/compat-notes.ts",
		description: "any refusal whose prose says 'developer' is taken for a refused developer role",
		edits: [{ find: "\tcontext: ROLE,\n", replace: "" }],
		tests: ["test/llm/compat-notes.test.ts"],
	},
	{
		id: "LE05",
		file: "src/llm/compat-notes.ts",
		description: 'a refused "store" quoted inside a JSON body (Google\'s, escaped) gets no compat note',
		edits: [{ find: "pattern: /[\"'`]store\\\\?[\"'`]|", replace: "pattern: /[\"'`]store[\"'`]|" }],
		tests: ["test/pi-races/openai-compat-refusals.test.ts"],
	},
	{
		id: "LE06",
		file: "src/llm/compat-notes.ts",
		description:
			"a server requiring the tool's name on each tool result (Gemini's OpenAI endpoint) gets no note naming requiresToolResultName",
		edits: [{ find: "pattern: /\\btool messages?\\b[^\\n.]*\\bname\\b/i,", replace: "pattern: /(?!)/," }],
		tests: ["test/pi-races/openai-compat-refusals.test.ts"],
	},
	{
		id: "LE07",
		file: "src/session/provider-stream.ts",
		description:
			"a 404 from a baseUrl written as the full /chat/completions endpoint no longer says which baseUrl to write",
		edits: [
			{
				find: "const pathNote = endpointPathNote(refusedStatus, model, text);",
				replace: "const pathNote = undefined as string | undefined;",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts"],
	},
	{
		id: "LE08",
		file: "src/llm/compat-notes.ts",
		description: "a baseUrl ending with the endpoint path and a trailing slash gets no note",
		edits: [
			{
				find: "const ENDPOINT_PATH = /\\/(?:chat\\/completions|responses)\\/*$/;",
				replace: "const ENDPOINT_PATH = /\\/(?:chat\\/completions|responses)$/;",
			},
		],
		tests: ["test/llm/compat-notes.test.ts"],
	},
	{
		id: "LE09",
		file: "src/llm/compat-notes.ts",
		description:
			"Mistral's 'Unexpected role user after role tool' gets no note naming requiresAssistantAfterToolResult",
		edits: [
			{
				find: "pattern: /\\brole ['\"`]?user['\"`]? after role ['\"`]?tool\\b/i,",
				replace: "pattern: /(?!)/,",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts"],
	},
	{
		id: "LI01",
		file: "src/session/convert-to-llm.ts",
		description:
			"pairToolResults looks for a result's call only in the last answer: a result answering an earlier answer's call counts as orphaned, and every later request is a copy of the transcript",
		edits: [{ find: " || calledBefore(llm, index, id)", replace: "" }],
		tests: ["test/recovery/convert-to-llm.test.ts"],
	},
	{
		id: "LJ01",
		file: "src/session/model-cycling.ts",
		description: "a scope of one model that is not the current one: cycleModel stays put again (pi#9580)",
		edits: [
			{
				find: "if (candidates.length === 0 || (candidates.length === 1 && found === 0)) return undefined;",
				replace: "if (candidates.length <= 1) return undefined;",
			},
		],
		tests: ["test/pi-races/model-picking.test.ts", "test/parity/model-thinking.test.ts"],
	},
	{
		id: "LJ02",
		file: "src/runtime/sdk.ts",
		description:
			"--model's 'Did you mean' lists the catalogue in its order: the user's keyed models fall off the list (pi#3777, pi#8117)",
		edits: [
			{
				find: "const all = [...keyed, ...catalogue.filter((model) => !keyed.includes(model))];",
				replace: "const all = catalogue;",
			},
		],
		tests: ["test/pi-races/model-picking.test.ts"],
	},
	{
		id: "LJ03",
		file: "src/runtime/sdk.ts",
		description: "a bare --model id in another case than the model's is not found (pi 0.73.1 finds it)",
		edits: [
			{
				find: ": all.filter((model) => model.id.toLowerCase() === spec.toLowerCase());",
				replace: ": [];",
			},
		],
		tests: ["test/pi-races/model-picking.test.ts", "test/runtime/find-model-case.test.ts"],
	},
	{
		id: "LJ04",
		file: "src/runtime/sdk.ts",
		description:
			"a bare id matched in any case first: a custom minimax-m2.7 is ambiguous with the catalogue's MiniMax-M2.7 (ai-toolbox#274)",
		edits: [
			{
				find: "const byId = sameCase.length > 0 ? sameCase : all.filter(",
				replace: "const byId = all.filter(",
			},
		],
		tests: ["test/runtime/find-model-case.test.ts"],
	},
	{
		id: "LL01",
		file: "src/cli/help.ts",
		description: "--help tells a pi user that the package commands its usage lines list do not exist",
		edits: [
			{
				find: "list, update) work here too, into the same places; pi's config does not exist here.",
				replace: "list, update) do not exist here.",
			},
		],
		tests: ["test/cli/pi-migration.test.ts"],
	},
	{
		id: "LL02",
		file: "test/doctest/cli-lines.test.ts",
		description: "a prose span naming one option is skipped whole: a mistyped option there (`settle --tarce`) passes",
		edits: [
			{
				find: 'const namesOnly = line.prose && options.length === 1 && options[0]!.startsWith("-");',
				replace:
					'const namesOnly = line.prose && options.length === 1 && options[0]!.startsWith("-");\n\tif (namesOnly) return [];',
			},
		],
		tests: ["test/doctest/cli-lines.test.ts"],
	},
	{
		id: "LL03",
		file: "test/doctest/doc-refs.test.ts",
		description: "the docs' link targets are not checked: a link to a moved file passes",
		edits: [
			{
				find: "if (!/^[a-z]+:/.test(target!)) found.push",
				replace: "if (false) found.push",
			},
		],
		tests: ["test/doctest/doc-refs.test.ts"],
	},
	{
		id: "LK01",
		file: "src/cli/chat-input.ts",
		description: "bracketed paste is turned on under TERM=dumb too: the dumb terminal shows ESC [?2004h as text",
		edits: [
			{
				find: "\t\t\tif (takesEscapes(process.env)) {\n\t\t\t\tprocess.stdout.write(BRACKETED_PASTE_ON);",
				replace: "\t\t\tif (true) {\n\t\t\t\tprocess.stdout.write(BRACKETED_PASTE_ON);",
			},
		],
		tests: ["test/pi-races/odd-environments.test.ts"],
	},
	{
		id: "LK02",
		file: "src/cli/interactive-mode.ts",
		description: "a line printed while the prompt waits clears the prompt with ESC [K under TERM=dumb too",
		edits: [
			{
				find: '\t\t\t\tif (escapes) out.stdout("\\r\\x1b[K");',
				replace: '\t\t\t\tif (terminal) out.stdout("\\r\\x1b[K");',
			},
		],
		tests: ["test/pi-races/odd-environments.test.ts"],
	},
	{
		id: "LK03",
		file: "src/cli/interactive-mode.ts",
		description: "/copy writes its OSC 52 sequence to a dumb terminal, which shows it as text",
		edits: [
			{
				find: "\t\twriteTerminal: escapes ? (sequence) => out.stdout(sequence) : undefined,",
				replace: "\t\twriteTerminal: terminal ? (sequence) => out.stdout(sequence) : undefined,",
			},
		],
		tests: ["test/pi-races/odd-environments.test.ts"],
	},
	{
		id: "LK04",
		file: "src/cli/interactive-mode.ts",
		description: "an extension's setTitle writes OSC 0 to a dumb terminal, which shows it as text",
		edits: [
			{
				find: "\t\tprocess.stdout.isTTY && takesEscapes(process.env) ? (title) =>",
				replace: "\t\tprocess.stdout.isTTY ? (title) =>",
			},
		],
		tests: ["test/pi-races/odd-environments.test.ts"],
	},
	{
		id: "LK05",
		file: "src/tools/shell.ts",
		description: "a shellPath naming a folder is spawned: the bash call fails with Node's bare `spawn <path> EACCES`",
		edits: [
			{
				find: "if (statSync(shellPath).isDirectory()) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/pi-races/odd-environments.test.ts"],
	},
	{
		id: "LK06",
		file: "src/tools/shell.ts",
		description:
			"a shellPath naming a file without execute permission is spawned: the bash call fails with Node's bare `spawn <path> EACCES`",
		edits: [
			{
				find: '\t\tif (process.platform !== "win32" && !isExecutable(shellPath)) {',
				replace: "\t\tif (false) {",
			},
		],
		tests: ["test/pi-races/odd-environments.test.ts"],
	},
	{
		id: "LM01",
		file: "src/resources/packages.ts",
		description:
			"a missing manifest extension is an error even when the user's package filter turns it off: settle refuses to start",
		edits: [
			{
				find: 'const patterns = typeof entry === "object" ? entry.extensions : undefined;',
				replace: "const patterns = undefined as string[] | undefined;",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LM02",
		file: "src/resources/packages.ts",
		description: "an empty extensions filter (the kind turned off) still reports a missing manifest extension",
		edits: [{ find: "!patterns || (patterns.length > 0 && applyFilters(", replace: "!patterns || (applyFilters(" }],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LM03",
		file: "src/cli/session-picker.ts",
		description:
			"a session held by a process with this pid on another machine (containers) is not marked in use in the lists",
		edits: [
			{
				find: 'return holder.pid === process.pid && !host ? "" :',
				replace: 'return holder.pid === process.pid ? "" :',
			},
		],
		tests: ["test/cli/session-in-use.test.ts"],
	},
	{
		id: "LM04",
		file: "src/cli/session-picker.ts",
		description:
			"a refusal by a process with this pid on another machine is taken for this process's own: the store's manager.close() advice is shown",
		edits: [
			{
				find: "(holderPid === process.pid && holderHost === hostname())",
				replace: "holderPid === process.pid",
			},
		],
		tests: ["test/cli/session-in-use.test.ts"],
	},
	{
		id: "LM05",
		file: "src/resources/extensions.ts",
		description:
			"the file a parse error names is read up to its first space: TypeScript in a .js file under 'Jane Doe' gets no hint",
		edits: [
			{
				find: "const file = fileNamedIn(message) ?? entry;",
				replace: "const file = /(\\S+\\.[cm]?js):\\d+:\\d+/.exec(message)?.[1] ?? entry;",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LM06",
		file: "src/resources/extensions.ts",
		description:
			"a .js file is said to hold TypeScript because it parses as TypeScript, though it is valid JavaScript (any JS is)",
		edits: [
			{
				find: "if (parses(file, false) || !parses(",
				replace: "if (!parses(",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LM07",
		file: "src/resources/fresh-imports.ts",
		description:
			"every load pass (each /reload, /new, SDK session) imports every native extension module again, nothing changed: one more copy per pass, kept for good",
		edits: [{ find: "if (current === 0 || !unchanged(current)) current = now;", replace: "current = now;" }],
		tests: ["test/pi-races/extension-reload-imports.test.ts"],
	},
	{
		id: "LM08",
		file: "src/resources/fresh-imports.ts",
		description:
			"once tagged, native extension modules are never imported again: /reload after an edit runs the old code",
		edits: [
			{
				find: "if (current === 0 || !unchanged(current)) current = now;",
				replace: "if (current === 0) current = now;",
			},
		],
		tests: ["test/pi-races/extension-reload-imports.test.ts"],
	},
	{
		id: "LM09",
		file: "src/resources/fresh-imports.ts",
		description:
			"a file recorded within 2 s of its mtime counts as unchanged: a second edit in the same coarse mtime tick runs the old code",
		edits: [{ find: " && Date.now() - now.mtimeMs >= 2000;", replace: ";" }],
		tests: ["test/pi-races/extension-reload-imports.test.ts"],
	},
	{
		id: "LM10",
		file: "src/resources/fresh-imports.ts",
		description: "an edit that keeps the file's size is not seen: /reload runs the old code",
		edits: [{ find: "now.mtimeMs !== file.mtimeMs || ", replace: "" }],
		tests: ["test/pi-races/extension-reload-imports.test.ts"],
	},
	{
		id: "LM11",
		file: "src/resources/fresh-imports.ts",
		description:
			"a CommonJS file an ES module imports counts as unchanged though a file it requires (unseen by the hook) changed: /reload runs the old code",
		edits: [{ find: 'result.format !== "commonjs" && ', replace: "" }],
		tests: ["test/pi-races/extension-reload-imports.test.ts"],
	},
	{
		id: "LM12",
		file: "src/resources/resource-loader.ts",
		description:
			"a package naming a missing extension file stops settle with no word of the filter that keeps the rest of the package",
		edits: [
			{
				after: "but the package has no such file",
				find: "; until then remove the package, or keep the rest of it by listing it as",
				replace: ", or remove the package. Listed as",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LM13",
		file: "src/store/lock.ts",
		description:
			"a fresh lock naming no owner is taken for no lock: the list shows the session free, then resuming it is refused",
		edits: [{ find: "if (!owner) return {};", replace: "if (!owner) return undefined;" }],
		tests: ["test/cli/session-in-use.test.ts"],
	},
	{
		id: "LN01",
		file: "src/resources/resource-loader.ts",
		description:
			"a plain extension folder whose package.json names a file it does not have drops that extension without a word again, as pi (pi-provider-qoder#21 in a folder)",
		edits: [
			{
				find: "extensions.diagnostics.push(...settingsExtensionDiagnostics, ...missingEntryDiagnostics(missingEntries));",
				replace: "extensions.diagnostics.push(...settingsExtensionDiagnostics);",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LN02",
		file: "src/resources/discovery.ts",
		description:
			"a sub-folder of an extensions folder naming a missing entry in its package.json is not reported (only a folder given or listed is)",
		edits: [
			{
				find: "entries.push(...(resolveExtensionEntries(entry.path, missing) ?? []));",
				replace: "entries.push(...(resolveExtensionEntries(entry.path) ?? []));",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LN03",
		file: "src/resources/extensions.ts",
		description:
			"a module that throws while it is imported gets no (thrown at <file>:<line>) again, unlike a throwing factory",
		edits: [
			{
				find: "function importThrownAtText(error: unknown, path: string): string {\n",
				replace: 'function importThrownAtText(error: unknown, path: string): string {\n\treturn "";\n',
			},
		],
		tests: ["test/cli/extension-error-lines.test.ts", "test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LN04",
		file: "src/resources/extensions.ts",
		description:
			"a transpiled module's import-time throw names the transpiled code's line, not the source's (pi's modal-editor.ts: 32 for 28)",
		edits: [
			{
				find: "const line = transpiledByJiti(path) ? sourceLine(path, at) : at.line;",
				replace: "const line = at.line;",
			},
		],
		tests: ["test/cli/extension-error-lines.test.ts"],
	},
	{
		id: "LN05",
		file: "src/cli/termination.ts",
		description:
			"what the session waits on leaves out the extension a /reload is loading: Ctrl+C and the stall name only handlers (Fusion#3579 on /reload)",
		edits: [
			{
				find: "return describeRunningTools(runtime) + describePendingHandlers(runtime) + extensionsLoadingNow();",
				replace: "return describeRunningTools(runtime) + describePendingHandlers(runtime);",
			},
		],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "LN06",
		file: "src/cli/interactive-mode.ts",
		description:
			"settle -i: Ctrl+C during a /reload stuck on an extension's load says nothing: the abort resolves at once and cancels the notice naming it",
		edits: [{ find: "\t\t\t\tif (extensionsLoadingNow()) return;\n", replace: "" }],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "LN07",
		file: "src/cli/termination.ts",
		description:
			"a signal's grace message for a /reload stuck on an extension's load tells the author to fix a handler, not the extension's module or factory",
		edits: [
			{
				find: "if (!loading || !pending.endsWith(loading)) return WHAT_TO_DO;",
				replace: "return WHAT_TO_DO;",
			},
		],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "LN08",
		file: "src/resources/resource-loader.ts",
		description:
			"an untrusted project's extension folder naming a missing entry stops start-up, though its extensions are never read",
		edits: [
			{
				after: "const reportMissing = ",
				find: '\t\t\tif (layer.scope === "project" && !this.isProjectTrusted()) return;\n',
				replace: "",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LN09",
		file: "src/cli/interactive-mode.ts",
		description:
			"settle -i: after a /reload whose stalled load was named on Ctrl+C finishes, the next Ctrl+C (a shell command running) ends settle instead of cancelling",
		edits: [
			{
				find: "\t\t\t\twaitingOn = undefined;\n\t\t\t\tabortStalled = false;\n",
				replace: "\t\t\t\twaitingOn = undefined;\n",
			},
		],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "LP01",
		file: "src/runtime/sdk.ts",
		description:
			"RPC set_model's 'Did you mean' lists the catalogue in its order: the user's keyed model comes after a catalogue one (pi#8117)",
		edits: [
			{
				find: "const keyed = catalogue.filter((model) => modelRuntime.hasConfiguredAuth(model.provider));",
				replace: "const keyed = catalogue.filter(() => false);",
			},
		],
		tests: ["test/pi-races/model-picking.test.ts"],
	},
	{
		id: "LP02",
		file: "src/cli/help.ts",
		description: "settle --help shows settle trace's -o only: --output, which it takes, is never named",
		edits: [{ find: "settle trace <file> [-o|--output out.html]", replace: "settle trace <file> [-o out.html]" }],
		tests: ["test/cli/subcommand-help.test.ts"],
	},
	{
		id: "LP03",
		file: "src/cli/package-commands.ts",
		description: "settle install --help shows -l only: --local, --cwd and --agent-dir, which it takes, are never named",
		edits: [
			{
				find: "install: `settle install <source> [-l|--local]",
				replace: "install: `settle install <source> [-l]",
			},
		],
		tests: ["test/cli/subcommand-help.test.ts"],
	},
	{
		id: "LP04",
		file: "src/llm/compat-notes.ts",
		description:
			"a 404 from a baseUrl without /v1 (http://host:port) gets no note naming the baseUrl with /v1 (pi#9099)",
		edits: [
			{
				find: "if (!path) return /model/i.test(text) ? undefined : (missingV1Note(model) ?? basePathNote(model, text));",
				replace: "if (!path) return /model/i.test(text) ? undefined : basePathNote(model, text);",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts"],
	},
	{
		id: "LP05",
		file: "src/llm/compat-notes.ts",
		description:
			"a 404 naming the model (vLLM's, Ollama's unknown model) from a baseUrl without /v1 is told to add /v1",
		edits: [
			{
				find: "if (!path) return /model/i.test(text) ? undefined : (missingV1Note(model) ?? basePathNote(model, text));",
				replace: "if (!path) return missingV1Note(model) ?? basePathNote(model, text);",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts"],
	},
	{
		id: "LP06",
		file: "src/llm/compat-notes.ts",
		description: "a baseUrl with a path of its own (http://host/api) gets the /v1 note on any 404",
		edits: [
			{
				find: "if (!NO_PATH.test(model.baseUrl)) return undefined;",
				replace: "",
			},
		],
		tests: ["test/llm/compat-notes.test.ts"],
	},
	{
		id: "LP07",
		file: "src/session/provider-stream.ts",
		description:
			"LM Studio's 200 with an error object (a baseUrl without /v1) is read as an empty answer again: exit 0, nothing said (pi#9099)",
		edits: [
			{
				find: "servedError = document === undefined ? undefined : servedErrorMessage(document);",
				replace: "servedError = undefined;",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts"],
	},
	{
		id: "LR01",
		file: "src/llm/pi-ai.ts",
		description:
			"pi-ai is loaded through its whole index again: every settle start on a real provider loads typebox's compiler (~680 modules, ~0.2 s CPU)",
		edits: [
			{
				find: "importPiAi: () => Promise<unknown> = importPiAiParts",
				replace: "importPiAi: () => Promise<unknown> = () => import(PI_AI_PACKAGE)",
			},
		],
		tests: ["test/cli/real-provider-modules.test.ts"],
	},
	{
		id: "LT01",
		file: "src/tools/shell.ts",
		description:
			"the call's pipes are closed once the call returns: a server started with `&` that still prints dies of EPIPE at its next line (opencode#22012)",
		edits: [
			{
				find: "\t\t\tif (child.stdout) letGo(child.stdout);\n\t\t\tif (child.stderr) letGo(child.stderr);",
				replace: "\t\t\tchild.stdout?.destroy();\n\t\t\tchild.stderr?.destroy();",
			},
		],
		tests: ["test/pi-races/bash-processes.test.ts"],
	},
	{
		id: "LS01",
		file: "src/tools/shell.ts",
		description:
			"commands run without GIT_SEQUENCE_EDITOR=true, so `git rebase -i` opens git config's sequence.editor (vi) and waits (pi#6432)",
		edits: [
			{
				find: '? { ...given, GIT_SEQUENCE_EDITOR: "true" }',
				replace: "? given",
			},
		],
		tests: ["test/pi-races/bash-input-waits.test.ts"],
	},
	{
		id: "LW01",
		file: "src/cli/interactive-mode.ts",
		description:
			"a /reload that a Ctrl+C could not stop ends without clearing that abort's stall timer: 2 s later a tool started next is reported stalled and the next Ctrl+C ends settle (review6)",
		edits: [
			{
				find: "\t\t\t\tabortStalled = false;\n\t\t\t\tclearTimeout(abortStallTimer);",
				replace: "\t\t\t\tabortStalled = false;",
			},
		],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "LV01",
		file: "src/tools/shell.ts",
		description:
			"commands keep the user's VISUAL/EDITOR, so `crontab -e`, `kubectl edit` and `$EDITOR plan.md` open vim with no terminal (dagster-io/erk#4251)",
		edits: [
			{
				find: "\tconst env: NodeJS.ProcessEnv = { ...git, VISUAL: editor, EDITOR: editor };\n",
				replace: "\tconst env: NodeJS.ProcessEnv = { ...git };\n",
			},
		],
		tests: ["test/pi-races/bash-terminal-prompts.test.ts"],
	},
	{
		id: "LV02",
		file: "src/tools/shell.ts",
		description:
			"SETTLE_BASH_EDITOR is ignored, so a user's editor that needs no terminal is replaced by the failing one (dagster-io/erk#4251)",
		edits: [
			{
				find: "\tconst editor = given.SETTLE_BASH_EDITOR || noEditor();\n",
				replace: "\tconst editor = noEditor();\n",
			},
		],
		tests: ["test/pi-races/bash-terminal-prompts.test.ts"],
	},
	{
		id: "LV03",
		file: "src/tools/shell.ts",
		description: "the no-editor script gets a folder per process again, so every killed process leaves one in /tmp",
		edits: [
			{
				find: "const dir = join(tmpdir(), ",
				replace: "const dir = join(tmpdir(), String(process.pid), ",
			},
		],
		tests: ["test/pi-races/bash-terminal-prompts.test.ts"],
	},
	{
		id: "LX01",
		file: "src/session/provider-stream.ts",
		description:
			"a 200 JSON body whose connection drops mid-body is read as an empty answer (exit 0, 'holds no text'), not as the network failure it is, and is not retried",
		edits: [
			{
				find: "document = await bodyRead(new Response(peeked.body).text());",
				replace: 'document = await new Response(peeked.body).text().catch(() => "");',
			},
		],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "LX02",
		file: "src/llm/connection-failures.ts",
		description: 'a 200 JSON body with `"error": false` (or "" or 0) is reported as an error answer, its text "false"',
		edits: [
			{
				find: "\tif (!error || choices !== undefined",
				replace: "\tif (error === undefined || error === null || choices !== undefined",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts"],
	},
	{
		id: "LX03",
		file: "src/resources/discovery.ts",
		description:
			"an extension folder whose manifest entries are all missing loads its stale index.ts in their place, while the error says the extension is not loaded (pi does the same)",
		edits: [
			{
				find: "\t\t\treturn [];\n\t\t}\n\t}\n\tfor (const index of",
				replace: "\t\t}\n\t}\n\tfor (const index of",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "LX04",
		file: "src/llm/errors.ts",
		description:
			"a Retry-After date with a one-digit day (`Sun, 6 Dec 2026 17:00:00 GMT`, sent by real servers) is no date: the wait it asks for is ignored",
		edits: [
			{
				find: "const IMF_FIXDATE = /^[a-z]{3}, (\\d{1,2})",
				replace: "const IMF_FIXDATE = /^[a-z]{3}, (\\d{2})",
			},
		],
		tests: ["test/pi-races/retry-after-dates.test.ts"],
	},
	{
		id: "LX05",
		file: "src/llm/errors.ts",
		description: "a Retry-After IMF date ending `UTC` (not `GMT`) is no date: the wait it asks for is ignored",
		edits: [
			{
				find: "(\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) (?:GMT|UTC)$/i;",
				replace: "(\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$/i;",
			},
		],
		tests: ["test/pi-races/retry-after-dates.test.ts"],
	},
	{
		id: "LX06",
		file: "src/tools/shell.ts",
		description:
			"the user's KUBE_EDITOR, FCEDIT and SUDO_EDITOR reach commands, so `kubectl edit`, bash's `fc` and `sudoedit` open vim with no terminal and wait until the timeout",
		edits: [
			{
				find: "\tfor (const name of TOOL_EDITORS) if (given[name] !== undefined) env[name] = editor;\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/bash-terminal-prompts.test.ts"],
	},
	{
		id: "LX07",
		file: "src/llm/compat-notes.ts",
		description:
			"a 404 for an unknown path from a baseUrl with its own path (http://host:1234/api) gets no note: the user is not told which URL was requested nor to check the path",
		edits: [
			{
				find: "(missingV1Note(model) ?? basePathNote(model, text))",
				replace: "missingV1Note(model)",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts", "test/llm/compat-notes.test.ts"],
	},
	{
		id: "LX08",
		file: "src/llm/compat-notes.ts",
		description: "the base-path note suggests /v1 for a baseUrl whose path already ends with /v1",
		edits: [
			{
				find: "const v1 = /\\/v1$/i.test(path)\n",
				replace: "const v1 = false\n",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts", "test/llm/compat-notes.test.ts"],
	},
	{
		id: "LX09",
		file: "src/llm/compat-notes.ts",
		description:
			"any 404 from a baseUrl with a path gets the check-the-path note, OpenRouter's 'No endpoints found' included",
		edits: [
			{
				find: "if (/model/i.test(text) || !UNKNOWN_PATH.test(text)) return undefined;",
				replace: "if (/model/i.test(text)) return undefined;",
			},
		],
		tests: ["test/llm/compat-notes.test.ts"],
	},
	{
		id: "MB01",
		file: "src/session/agent-session.ts",
		description:
			"arguments a tool_call handler leaves invalid reach the tool again: bash answers the model with a TypeError blaming no one (claude-code#30770)",
		edits: [
			{
				find: "(input) => rewrittenArgumentsProblem(context.tools, toolCall, input),",
				replace: "() => undefined,",
			},
		],
		tests: ["test/pi-races/tool-call-rewrites.test.ts"],
	},
	{
		id: "MB02",
		file: "src/extensions/runner.ts",
		description:
			"arguments one tool_call handler broke and a later one mended still block the call (the check no longer forgets a mended break)",
		edits: [
			{
				find: "broken = problem === undefined ? undefined : {",
				replace: "broken = problem === undefined ? broken : {",
			},
		],
		tests: ["test/pi-races/tool-call-rewrites.test.ts"],
	},
	{
		id: "MB03",
		file: "src/llm/validation.ts",
		description:
			"arguments a tool_call handler rewrote are checked but not coerced: a timeout given as a string reaches bash and the call fails",
		edits: [
			{
				find: "Object.assign(input, valid);",
				replace: "",
			},
		],
		tests: ["test/pi-races/tool-call-rewrites.test.ts"],
	},
	{
		id: "MB04",
		file: "src/extensions/runtime.ts",
		description:
			"a tool an MCP bridge registers from session_start under a name another extension has changes hands without a word again (kimi-code#575)",
		edits: [{ find: "if (runtime.actions && newName) reportToolClash(runtime, extension, tool.name);", replace: "" }],
		tests: ["test/pi-races/extension-tool-name-clashes.test.ts"],
	},
	{
		id: "MB05",
		file: "src/extensions/runtime.ts",
		description:
			"a bridge that registers its clashing tool again (a list_changed refresh) is reported at every refresh",
		edits: [
			{
				find: "if (runtime.actions && newName) reportToolClash(",
				replace: "if (runtime.actions) reportToolClash(",
			},
		],
		tests: ["test/pi-races/extension-tool-name-clashes.test.ts"],
	},
	{
		id: "MB06",
		file: "src/schema/provider.ts",
		description:
			"TypeBox's ~optional marker reaches the provider again: a Gemini-like endpoint refuses every request (Unknown name, pi-mcp-adapter#289)",
		edits: [{ find: 'if (!key.startsWith("~")) continue;', replace: "continue;" }],
		tests: ["test/schema/provider.test.ts", "test/pi-races/tool-schemas-providers.test.ts"],
	},
	{
		id: "LY01",
		file: "src/session/convert-to-llm.ts",
		description: "an assistant message's tool call arguments are sent as stored: a lone surrogate reaches Anthropic",
		edits: [
			{
				find: "converted = withWellFormedToolArguments(message);",
				replace: "converted = message;",
			},
		],
		tests: ["test/pi-races/lone-surrogate-tool-arguments.test.ts"],
	},
	{
		id: "LY02",
		file: "src/tools/bash.ts",
		description: "the bash tool no longer saves output that is not UTF-8 to the full-output file: its bytes are lost",
		edits: [
			{
				find: "keepBytesNotUtf8: true,",
				replace: "keepBytesNotUtf8: false,",
			},
		],
		tests: ["test/pi-races/bash-legacy-encodings.test.ts"],
	},
	{
		id: "LY03",
		file: "src/tools/bash.ts",
		description: "the bash tool says nothing of bytes that are not UTF-8: the model reads U+FFFD noise",
		edits: [
			{
				find: "const notUtf8 = snapshot.notUtf8",
				replace: "const notUtf8 = false",
			},
		],
		tests: ["test/pi-races/bash-legacy-encodings.test.ts"],
	},
	{
		id: "LY04",
		file: "src/tools/output-accumulator.ts",
		description: "a U+FFFD the command printed counts as bytes that are not UTF-8",
		edits: [
			{
				find: "this.replacementsInBytes++;",
				replace: "this.replacementsInBytes += 0;",
			},
		],
		tests: ["test/pi-races/bash-legacy-encodings.test.ts"],
	},
	{
		id: "LY05",
		file: "src/tools/output-accumulator.ts",
		description: "a U+FFFD cut across two chunks is not found in the bytes: valid output reported as not UTF-8",
		edits: [
			{
				find: "if (chunk.length > 0)\n",
				replace: "if (chunk.length < 0)\n",
			},
		],
		tests: ["test/pi-races/bash-legacy-encodings.test.ts"],
	},
	{
		id: "LY06",
		file: "src/tools/read.ts",
		description: "read says nothing of a file that is not UTF-8: the model takes the U+FFFD noise for its text",
		edits: [
			{
				find: "if (utf8 && !utf8.valid) window.notUtf8 = true;",
				replace: "if (utf8 && utf8.valid) window.notUtf8 = true;",
			},
		],
		tests: ["test/pi-races/read-legacy-encodings.test.ts"],
	},
	{
		id: "LY07",
		file: "src/tools/read.ts",
		description:
			"read checks each chunk alone: a character cut between two reads of a UTF-8 file is taken for bytes that are not UTF-8",
		edits: [
			{
				find: "const cut = incompleteTail(bytes);",
				replace: "const cut = 0;",
			},
		],
		tests: ["test/pi-races/read-legacy-encodings.test.ts"],
	},
	{
		id: "LY08",
		file: "src/tools/read.ts",
		description: "a file ending inside a character counts as UTF-8",
		edits: [
			{
				find: "if (ended) utf8?.end();",
				replace: "if (!ended) utf8?.end();",
			},
		],
		tests: ["test/pi-races/read-legacy-encodings.test.ts"],
	},
	{
		id: "MA01",
		file: "src/session/agent-session.ts",
		description:
			"a save refused because settings.json does not parse no longer stops a model or level switch first: the switch happens and the command still reports failure (cc-switch#1988)",
		edits: [
			{
				find: '\t\tif (error instanceof SettleError && error.code === "IO") return error;\n',
				replace: "\t\tif (error instanceof SettleError) return error;\n",
			},
		],
		tests: ["test/pi-races/settings-file-writers.test.ts"],
	},
	{
		id: "MA02",
		file: "src/session/agent-session.ts",
		description:
			"setThinkingLevel changes the level before saving it, so a save refused by a broken settings.json leaves the new level applied (cc-switch#1988)",
		edits: [
			{
				find: "\t\tthis.requestedThinkingLevel = level;\n\t\tthis.thinkingFromModelEntry = false;\n\t\tthis.agent.state.thinkingLevel = effective;\n",
				replace: "",
			},
			{
				find: "\t\tconst previous = this.agent.state.thinkingLevel;\n",
				replace:
					"\t\tconst previous = this.agent.state.thinkingLevel;\n\t\tthis.requestedThinkingLevel = level;\n\t\tthis.thinkingFromModelEntry = false;\n\t\tthis.agent.state.thinkingLevel = effective;\n",
			},
		],
		tests: ["test/pi-races/settings-file-writers.test.ts"],
	},
	{
		id: "MA03",
		file: "src/settings/settings-manager.ts",
		description:
			"setDefaultModelAndProvider saves the provider and the model in two writes: a reader between them sees the new provider with the old model (claude-code#91520)",
		edits: [
			{
				find: '\t\tconst previous = this.persistAll("global", [\n\t\t\t[keys[0]!, provider],\n\t\t\t[keys[1]!, modelId],\n\t\t]);\n',
				replace:
					'\t\tconst previous = [\n\t\t\t...this.persistAll("global", [[keys[0]!, provider]]),\n\t\t\t...this.persistAll("global", [[keys[1]!, modelId]]),\n\t\t];\n',
			},
		],
		tests: ["test/pi-races/settings-file-writers.test.ts"],
	},
	{
		id: "MA04",
		file: "src/session/agent-session.ts",
		description:
			"a settings.json that cannot be written (read-only, a Nix store link) refuses every model switch instead of letting it complete and saying the default was not saved",
		edits: [{ find: '\t\tif (error instanceof SettleError && error.code === "IO") return error;\n', replace: "" }],
		tests: ["test/pi-races/settings-file-writers.test.ts"],
	},
	{
		id: "MA05",
		file: "src/cli/interactive-mode.ts",
		description:
			"a Shift+Tab level the settings file cannot save ends the chat with a stack trace when the line is sent, and the line is lost",
		edits: [
			{
				find: "\t\t\t// A settings file that cannot be parsed refuses the new level: the line is still sent.\n\t\t\thost.warn(error instanceof Error ? error.message : String(error));\n",
				replace: "\t\t\tthrow error;\n",
			},
		],
		tests: ["test/pi-races/settings-file-writers.test.ts"],
	},
	{
		id: "LZ01",
		file: "src/extensions/runner.ts",
		description:
			"agent_before_settle handlers get no ctx.signal again, so a reviewing stop hook cannot see Esc and abort() waits for it (oh-my-pi#6489)",
		edits: [
			{
				// Boundary handlers read their call's signal (ctxDispatch); the session's getSignal is only the fallback.
				find: "return scope.signal ?? own.signal;",
				replace: "return undefined;",
			},
		],
		tests: ["test/pi-races/abort-stop-hook.test.ts"],
	},
	{
		id: "LZ02",
		file: "src/session/agent-session.ts",
		description:
			"abort() during agent_before_settle no longer aborts the handlers' signal, so a handler that honours it is still waited for (oh-my-pi#6489)",
		edits: [
			{
				find: "\t\t\t\t\t\tabortWithIssuedReason(this.internals.scratch.boundaryController);\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/abort-stop-hook.test.ts"],
	},
	{
		id: "LZ03",
		file: "src/session/boundaries.ts",
		description:
			"the abort's grace never starts for agent_before_settle handlers, so one that ignores the abort holds abort() for good (oh-my-pi#6489)",
		edits: [
			{
				find: '\telse signal.addEventListener("abort", wait, { once: true });\n',
				replace: "",
			},
		],
		tests: ["test/pi-races/abort-stop-hook.test.ts"],
	},
	{
		id: "LZ04",
		file: "src/session/boundaries.ts",
		description:
			"abort() waits again for a turn_end handler that ignores the abort, for good (oh-my-pi#6489 at the end of a turn)",
		edits: [
			{
				find: "\t\tsignal,\n\t);\n\tif (result === ABANDONED) return undefined;",
				replace: "\t\tundefined,\n\t);\n\tif (result === ABANDONED) return undefined;",
			},
		],
		tests: ["test/pi-races/abort-stop-hook.test.ts"],
	},
	{
		id: "ME01",
		file: "src/resources/resource-loader.ts",
		description:
			"an installed package's extension sub-folder whose package.json names only missing entries vanishes without a word again",
		edits: [
			{
				find: "packageFiles(root, item.entry, absent, unreadable)",
				replace: "packageFiles(root, item.entry, undefined, unreadable)",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "ME02",
		file: "src/resources/packages.ts",
		description:
			"a package sub-folder's missing entry is reported even when the user's package filter leaves that folder out",
		edits: [
			{
				find: "if (patterns.length > 0 && applyFilters([path], patterns, root, true).length > 0) missing?.push(found);",
				replace: "missing?.push(found);",
			},
		],
		tests: ["test/pi-races/extension-load-errors.test.ts"],
	},
	{
		id: "ME03",
		file: "src/llm/compat-notes.ts",
		description:
			"LM Studio's 200 error object for a baseUrl with a path of its own (http://host:1234/api) gets no note again",
		edits: [
			{
				find: 'return missingV1Note(model) ?? basePathNote(model, message, "200 with that error");',
				replace: "return missingV1Note(model);",
			},
		],
		tests: ["test/pi-races/openai-compat-refusals.test.ts"],
	},
	{
		id: "ME04",
		file: "src/llm/stateless-reasoning.ts",
		description:
			"a resumed stateless Responses session sends its reasoning items without encrypted content by id again (404 every turn)",
		edits: [
			{
				find: "if (Array.isArray(params.input)) params.input = withoutUnresolvableReasoning(params.input);",
				replace: "",
			},
		],
		tests: ["test/pi-races/responses-resumed-reasoning.test.ts"],
	},
	{
		id: "ME05",
		file: "src/llm/stateless-reasoning.ts",
		description: "every reasoning item is left out, the encrypted ones that can be replayed too",
		edits: [
			{
				find: 'orphaned = typeof item.encrypted_content !== "string" || item.encrypted_content === "";',
				replace: "orphaned = true;",
			},
		],
		tests: ["test/pi-races/responses-resumed-reasoning.test.ts"],
	},
	{
		id: "ME06",
		file: "src/llm/stateless-reasoning.ts",
		description: "a resumed Codex (openai-codex-responses) session still sends its unresolvable reasoning items",
		edits: [
			{
				find: 'if (model.api !== "openai-responses" && model.api !== "openai-codex-responses") return options;',
				replace: 'if (model.api !== "openai-responses") return options;',
			},
		],
		tests: ["test/pi-races/responses-resumed-reasoning.test.ts"],
	},
	{
		id: "ME07",
		file: "src/llm/stateless-reasoning.ts",
		description:
			"the call that followed a reasoning item left out keeps its item id, which pairs it with that reasoning",
		edits: [
			{
				find: "if (orphaned && turnOutput && item.id !== undefined) {",
				replace: "if (false) {",
			},
		],
		tests: ["test/pi-races/responses-resumed-reasoning.test.ts"],
	},
	{
		id: "MG01",
		file: "src/tools/shell.ts",
		description:
			"the user's HGEDITOR, SVN_EDITOR and JJ_EDITOR reach commands, so `hg commit`, `svn commit` and `jj describe` open vim with no terminal and wait until the timeout",
		edits: [
			{
				find: '"KUBE_EDITOR", "FCEDIT", "SUDO_EDITOR", "HGEDITOR", "SVN_EDITOR", "JJ_EDITOR"]',
				replace: '"KUBE_EDITOR", "FCEDIT", "SUDO_EDITOR"]',
			},
		],
		tests: ["test/pi-races/bash-terminal-prompts.test.ts"],
	},
	{
		id: "MG02",
		file: "src/session/provider-stream.ts",
		description:
			"a 200 JSON answer whose connection drops after its headers, before any body byte, is retried under the bare 'Connection error.' again: the address and the dropped connection unnamed",
		edits: [
			{
				after: "application\\/json",
				find: "await bodyRead(peekedBody(response.body))",
				replace: "await peekedBody(response.body)",
			},
		],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "MG03",
		file: "src/session/provider-stream.ts",
		description:
			"a 200 HTML answer whose connection drops after its headers, before any body byte, is retried under the bare 'Connection error.' again: the address and the dropped connection unnamed",
		edits: [
			{
				after: "text\\/html",
				find: "await bodyRead(peekedBody(response.body))",
				replace: "await peekedBody(response.body)",
			},
		],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "MG04",
		file: "src/extensions/testing.ts",
		description:
			"ExtensionHarness.callTool runs a tool with arguments a tool_call handler broke again, where a session blocks the call naming the extension",
		edits: [
			{
				find: "(rewritten) =>\n\t\t\t\trewrittenArgumentsProblem(tool, call, rewritten),",
				replace: "() => undefined,",
			},
		],
		tests: ["test/extensions/host.test.ts"],
	},
	{
		id: "MK01",
		file: "src/llm/compat-notes.ts",
		description: "the /v1 note shows a baseUrl's user and password again (notes reach session files, logs and exports)",
		edits: [
			{ find: "const base = shownUrl(model.baseUrl);", replace: 'const base = model.baseUrl.replace(/\\/+$/, "");' },
		],
		tests: ["test/llm/compat-notes.test.ts"],
	},
	{
		id: "MK02",
		file: "src/llm/compat-notes.ts",
		description: "the base-path note shows a baseUrl's query (an API key) again",
		edits: [
			{
				find: 'const base = shownUrl(model.baseUrl).replace(/\\/+$/, "");',
				replace: 'const base = model.baseUrl.replace(/\\/+$/, "");',
			},
		],
		tests: ["test/llm/compat-notes.test.ts"],
	},
	{
		id: "MK03",
		file: "src/llm/compat-notes.ts",
		description: "the endpoint-path note names a baseUrl with its user and password again",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
		edits: [{ find: "(${shownUrl(model.baseUrl)}) ends with", replace: "(${model.baseUrl}) ends with" }],
		tests: ["test/llm/compat-notes.test.ts"],
	},
	{
		id: "MH01",
		file: "src/resources/discovery.ts",
		description:
			"a folder inside the skills or prompts folder that cannot be listed (EACCES) is passed over in silence again: its skills are just not there (claude-code#80291)",
		edits: [
			{
				find: 'if (code !== "ENOENT" && code !== "ENOTDIR") unreadable?.set(dir, errorMessage(error));',
				replace: "void code;",
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MH02",
		file: "src/resources/context-files.ts",
		description:
			'an AGENTS.md that is a symbolic link to itself is reported as a link to a file "which does not exist" again (deepagents#2255)',
		edits: [
			{
				find: 'loop: (error as NodeJS.ErrnoException).code === "ELOOP"',
				replace: "loop: false",
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MH03",
		file: "src/resources/discovery.ts",
		description:
			"node_modules inside the skills, prompts and extensions folders is walked: thousands of files read at every start, and a package's SKILL.md offered to the model (opencode#30337)",
		edits: [
			{
				find: 'if (dirent.name.startsWith(".") || dirent.name === "node_modules") continue;',
				replace: 'if (dirent.name.startsWith(".")) continue;',
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MH04",
		file: "src/resources/resource-loader.ts",
		description:
			"any entry named .git marks the repository root again: a stray empty .git folder in a sub-folder hides the repository's .agents/skills (codex#25651)",
		edits: [
			{
				find: 'if (isGitMarker(join(dir, ".git"))) return dir;',
				replace: 'if (existsSync(join(dir, ".git"))) return dir;',
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MF01",
		file: "src/llm/errors.ts",
		description:
			"a quoted field name or an identifier holding `timeout` counts as a timeout again: a Responses stream error refusing a 'timeout' field (no status ahead of it) is retried 3 times (~14 s) before the user sees it",
		edits: [
			{
				find: "/(?<![\\w'`]|\\\\\")timed? ?out(?:_error)?(?![\\w'`]|\\\\\")/i,",
				replace: "/timed? ?out/i,",
			},
		],
		tests: ["test/recovery/errors.test.ts", "test/llm/wire/classification.test.ts"],
	},
	{
		id: "MF02",
		file: "src/llm/errors.ts",
		description: 'a 4xx refusal whose JSON names a "timeout" field is taken for a timeout and retried',
		edits: [
			{
				find: "if (REFUSAL_STATUS.test(errorMessage)) return false;",
				replace:
					"if (REFUSAL_STATUS.test(errorMessage)) return TIMEOUT_PATTERNS.some((pattern) => pattern.test(errorMessage));",
			},
		],
		tests: ["test/recovery/errors.test.ts"],
	},
	{
		id: "MF03",
		file: "src/cli/rpc-mode.ts",
		description:
			"commands behind set_model no longer wait for it: a get_state written right behind it answers first, with the old model",
		edits: [{ find: "\t\tif (SWITCHING_COMMANDS.has(command.type)) switching = task;\n", replace: "" }],
		tests: ["test/pi-races/rpc-command-bursts.test.ts"],
	},
	{
		id: "MF04",
		file: "src/settings/json-file.ts",
		description:
			"a whitespace-only settings.json is a parse error: settle starts with it refused, and a model switch is refused as for a broken file",
		edits: [
			{
				find: 'if (text.trim() === "") return { status: "ok", value: {} };',
				replace: 'if (text === "") return { status: "ok", value: {} };',
			},
		],
		tests: ["test/pi-races/settings-file-writers.test.ts"],
	},
	{
		id: "MF05",
		file: "src/session/agent-session.ts",
		description:
			"a model switch a read-only settings file cannot save rejects again although it happened: RPC answers success:false for a switch that took place",
		edits: [
			{
				find: '\t\tif (unsaved) {\n\t\t\tthis.events.emit({\n\t\t\t\ttype: "default_not_saved",\n\t\t\t\tmessage: `Switched to',
				replace:
					'\t\tif (unsaved) {\n\t\t\tthrow unsaved;\n\t\t\tthis.events.emit({\n\t\t\t\ttype: "default_not_saved",\n\t\t\t\tmessage: `Switched to',
			},
		],
		tests: ["test/session/model-thinking-levels.test.ts", "test/pi-races/settings-file-writers.test.ts"],
	},
	{
		id: "MF06",
		file: "src/session/agent-session.ts",
		description: "a thinking level a read-only settings file cannot save is applied but throws again",
		edits: [
			{
				find: '\t\tif (unsaved) {\n\t\t\tthis.events.emit({\n\t\t\t\ttype: "default_not_saved",\n\t\t\t\tmessage: `Thinking level',
				replace:
					'\t\tif (unsaved) {\n\t\t\tthrow unsaved;\n\t\t\tthis.events.emit({\n\t\t\t\ttype: "default_not_saved",\n\t\t\t\tmessage: `Thinking level',
			},
		],
		tests: ["test/session/model-thinking-levels.test.ts"],
	},
	{
		id: "MF07",
		file: "src/settings/settings-manager.ts",
		description: "a settings write that failed (read-only) is not reported by drainErrors()",
		edits: [
			{
				find: 'this.keepUndrained([{ type: "error", scope, path: file, key, message: error.message, error }]);',
				replace: "",
			},
		],
		tests: ["test/session/model-thinking-levels.test.ts"],
	},
	{
		id: "MF08",
		file: "src/settings/json-file.ts",
		description:
			"a settings write into a folder that is not one throws the temp file's raw ENOTDIR cleanup error instead of the typed IO error",
		edits: [
			{
				find: "\t\ttry {\n\t\t\trmSync(temp, { force: true });\n\t\t} catch {}\n",
				replace: "\t\trmSync(temp, { force: true });\n",
			},
		],
		tests: ["test/session/model-thinking-levels.test.ts"],
	},
	{
		id: "MF09",
		file: "src/cli/interactive-render.ts",
		description:
			"settle -i says nothing when /model or /thinking applied but the read-only settings file kept the old default",
		edits: [
			{
				find: 'case "default_not_saved":\n\t\t\t\tthis.line(',
				replace: 'case "default_not_saved":\n\t\t\t\treturn;\n\t\t\t\tthis.line(',
			},
		],
		tests: ["test/pi-races/settings-file-writers.test.ts"],
	},
	{
		id: "MF10",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p says nothing when a model switch applied but the read-only settings file kept the old default",
		edits: [
			{
				find: 'if (event.type === "default_not_saved") out.stderr(',
				replace: 'if (event.type === "default_not_saved" && false) out.stderr(',
			},
		],
		tests: ["test/pi-races/settings-file-writers.test.ts"],
	},
	{
		id: "MM01",
		file: "src/extensions/runner.ts",
		description:
			"a session_before_compact handler returning {} after another supplied the compaction discards it again (the default summarizer runs)",
		edits: [
			{
				find: "if (cancellable && value && value !== FAILED && !decidesNothing(value)) {",
				replace: "if (cancellable && value && value !== FAILED) {",
			},
		],
		tests: [
			"test/pi-races/compaction-failed-usable.test.ts",
			"test/extensions/dispatch.test.ts",
			"test/extensions/pi-differential-divergences.test.ts",
		],
	},
	{
		id: "MI01",
		file: "src/tools/edit-diff.ts",
		description:
			"claude-code#37403: an oldText that matches only with other indentation (spaces for the file's tabs) gets the plain not-found refusal, naming no line",
		edits: [
			{
				find: "throw notFound(path, editIndex, total, indentationHint(folded.text, needle));",
				replace: "throw notFound(path, editIndex, total);",
			},
		],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "MI02",
		file: "src/tools/edit-diff.ts",
		description:
			"claude-code#9163: an oldText matching two places once indentation is ignored names only the first line, as if it were the one",
		edits: [{ find: "if (lines.length > 1) {", replace: "if (false) {" }],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "MI03",
		file: "src/tools/edit-diff.ts",
		description:
			"claude-code#26996: an oldText whose first line is sent unindented (it may start mid-line) is blamed for that line's indentation instead of the first line that really differs",
		edits: [
			{
				find: 'if (ours === theirs || (i === 0 && ours === "")) continue;',
				replace: "if (ours === theirs) continue;",
			},
		],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "MI04",
		file: "src/tools/edit.ts",
		description:
			"openclaw#56554: an oldText not found in a file changed on disk since the model read it says nothing of the change",
		edits: [
			{
				find: "throw await staleNote(error, absolutePath, path, options.readStamps);",
				replace: "throw error;",
			},
		],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "MI05",
		file: "src/tools/edit.ts",
		description: "openclaw#56554: every not-found refusal says the file changed since read, a file never read included",
		edits: [{ find: "!(await readStamps?.changedSince(absolutePath))", replace: "false" }],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "MO01",
		file: "src/extensions/runner.ts",
		description:
			"a session_before_compact handler returning { cancel: false } after another supplied the compaction discards it (the default summarizer runs)",
		edits: [
			{
				find: '(key === "cancel" && field === false)',
				replace: "false",
			},
		],
		tests: ["test/pi-races/compaction-failed-usable.test.ts"],
	},
	{
		id: "MO02",
		file: "src/session/boundaries.ts",
		description:
			"each turn_end dispatch leaves its abort watch on the run's signal: listeners pile up on ctx.signal, one per turn of the run",
		edits: [{ find: 'signal.removeEventListener("abort", wait);', replace: "" }],
		tests: ["test/pi-races/abort-stop-hook.test.ts"],
	},
	{
		id: "MO03",
		file: "src/llm/errors.ts",
		description:
			"a Gemini 400 refusal (JSON body, no status prefix) naming a tool property timeout is retried again as if it were a timeout",
		edits: [{ find: '|"code":\\s*4(?:0[0-79]|1\\d|2[0-8]|[3-9]\\d)\\b|^Validation', replace: "|^Validation" }],
		tests: ["test/recovery/errors.test.ts"],
	},
	{
		id: "MO04",
		file: "src/llm/errors.ts",
		description:
			"a Bedrock ValidationException naming a request key [timeout] is retried again as if it were a timeout",
		edits: [{ find: "|^Validation error: /;", replace: "/;" }],
		tests: ["test/recovery/errors.test.ts"],
	},
	{
		id: "MN01",
		file: "src/session/provider-stream.ts",
		description: 'an event stream cut mid-answer is again shown as undici\'s bare "terminated" (no address, no cause)',
		edits: [
			{
				find: "(BARE_CONNECTION_ERROR.test(text) || (cutBody && CUT_STREAM.test(text)))",
				replace: "BARE_CONNECTION_ERROR.test(text)",
			},
		],
		tests: ["test/pi-races/provider-unreachable.test.ts"],
	},
	{
		id: "MN02",
		file: "src/cli/interactive-mode.ts",
		description: "settle -i: a line typed while /compact runs is again read with no sign it was taken",
		edits: [
			{
				find: "if (waitingOn && line.trim()) printer.notice(",
				replace: "if (false) printer.notice(",
			},
		],
		tests: ["test/pi-races/cli-compaction-queue.test.ts"],
	},
	{
		id: "MN03",
		file: "src/cli/interactive-mode.ts",
		description: "settle -i: a line typed while an extension's command runs is again read with no sign it was taken",
		edits: [
			{
				find: "waitingOn = command ?",
				replace: "waitingOn = false ?",
			},
		],
		tests: ["test/pi-races/cli-compaction-queue.test.ts"],
	},
	{
		id: "MN04",
		file: "src/session/compaction-runner.ts",
		description:
			"the check before a prompt again retries a threshold compaction on the unchanged context it just failed on (two attempts per prompt)",
		edits: [{ find: "failed?.message === last &&", replace: "false &&" }],
		tests: ["test/pi-races/compaction-failed-usable.test.ts"],
	},
	{
		id: "MN05",
		file: "src/session/compaction-runner.ts",
		description:
			"after a failed threshold compaction, a lower threshold (a smaller window, or a larger compaction.reserveTokens on the same model) no longer compacts before the next prompt",
		edits: [{ find: "threshold.thresholdTokens >= failed.thresholdTokens", replace: "true" }],
		tests: ["test/pi-races/compaction-failed-usable.test.ts"],
	},
	{
		id: "MK04",
		file: "machines/prompt-operation.machine.ts",
		description:
			"a follow-up queued while the agent_before_settle boundary runs (after its look at the queues) is settled past and stranded again (queue-races seed 360509987)",
		edits: [
			{
				find: "\t\t\t\t\t// Before the stall check: input queued meanwhile is progress, a stall would strand it.\n\t\t\t\t\tqueuedDuringBoundaryRuns,\n",
				replace: "",
			},
		],
		tests: ["test/machines/prompt-operation.test.ts"],
	},
	{
		id: "MK05",
		file: "machines/prompt-operation.machine.ts",
		description: "an aborted agent_before_settle boundary runs a message queued while it ran, after the abort",
		edits: [
			{
				find: 'BEFORE_SETTLE_FAILED: [\n\t\t\t\t\t{ guard: "abortRequested", target: "settling" },\n',
				replace: "BEFORE_SETTLE_FAILED: [\n",
			},
		],
		tests: ["test/machines/prompt-operation.test.ts"],
	},
	{
		id: "MT01",
		file: "src/agent/agent-loop.ts",
		description: "a tool call named functions.<tool> (GPT-5's Codex namespace) is refused as an unknown tool",
		edits: [{ find: "final = withNamespacedToolNames(final, this.context.tools);", replace: "" }],
		tests: ["test/pi-races/tool-call-namespaces.test.ts"],
	},
	{
		id: "MT02",
		file: "src/llm/gemini-stop.ts",
		description: "an answer Gemini ended MALFORMED_FUNCTION_CALL is final, not sent again",
		edits: [{ find: "\tif (errorMessage.startsWith(MALFORMED_CALL)) return true;\n", replace: "" }],
		tests: ["test/pi-races/gemini-malformed-function-call.test.ts"],
	},
	{
		id: "MT03",
		file: "src/session/provider-stream.ts",
		description: "an answer Gemini ended MALFORMED_FUNCTION_CALL fails as pi-ai's bare 'An unknown error occurred'",
		edits: [
			{
				find: "refusalText(stop) ?? geminiStopText(geminiStop) ?? contentFilterText(text) ?? text",
				replace: "refusalText(stop) ?? contentFilterText(text) ?? text",
			},
		],
		tests: ["test/pi-races/gemini-malformed-function-call.test.ts"],
	},
	{
		id: "MT04",
		file: "src/llm/validation.ts",
		description:
			"an argument a tool does not declare is refused without naming it (pi's 'must not have additional properties')",
		edits: [
			{
				find: "return `must not have additional properties (",
				replace: "return `must not have additional properties`; // (",
			},
		],
		tests: ["test/pi-races/undeclared-tool-arguments.test.ts", "test/llm/validation.test.ts"],
	},
	{
		id: "MP01",
		file: "src/resources/resource-loader.ts",
		description: "a .git folder the user cannot read no longer marks the repository root: .agents/skills above it load",
		edits: [{ find: "return isAccessDenied(error);", replace: "return false;" }],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MP02",
		file: "src/session/agent-session.ts",
		description: "a model switch the session file cannot record leaves the new model saved as the default",
		edits: [{ after: "putBack = this.settingsManager.saveDefaultModel", find: "\t\t\t\tputBack?.();\n", replace: "" }],
		tests: ["test/session/model-thinking-levels.test.ts"],
	},
	{
		id: "MP03",
		file: "src/session/agent-session.ts",
		description: "a model switch the session file cannot record still switches the running agent",
		edits: [
			{
				after: "putBack = this.settingsManager.saveDefaultModel",
				find: "const previous = this.model;\n",
				replace: "const previous = this.model;\n\t\tthis.agent.state.model = model;\n",
			},
		],
		tests: ["test/session/model-thinking-levels.test.ts"],
	},
	{
		id: "MP04",
		file: "src/resources/resource-loader.ts",
		description: "an installed package's folder that cannot be read is passed over without a word again",
		edits: [
			{
				find: "packageFiles(root, item.entry, absent, unreadable)",
				replace: "packageFiles(root, item.entry, absent)",
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MP05",
		file: "src/resources/resource-loader.ts",
		description:
			"a folder an extension's resources_discover adds that cannot be read is passed over without a word again",
		edits: [{ find: "skillFilesAt(path, unreadable).map(", replace: "skillFilesAt(path).map(" }],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MP06",
		file: "src/resources/resource-loader.ts",
		description: "extendResources drops what discovery said of the skill paths (a --skill path that does not exist)",
		edits: [
			{
				find: "this.buildSkills(next.skillCandidates, next.skillPathDiagnostics)",
				replace: "this.buildSkills(next.skillCandidates, [])",
			},
		],
		tests: ["test/resources/resource-loader.test.ts"],
	},
	{
		id: "MP07",
		file: "src/cli/main.ts",
		description:
			"settle -p does not say the warnings of the folders resources_discover added (collected before it ran)",
		edits: [
			{
				find: "\t\t\t\t\t\t\tsayProviderWarnings();\n\t\t\t\t\t\t\tsayDiscoveredWarnings();\n",
				replace: "\t\t\t\t\t\t\tsayProviderWarnings();\n",
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MP08",
		file: "src/cli/rpc-mode.ts",
		description: "settle --rpc does not say the warnings of the folders resources_discover added",
		edits: [{ find: "bind(runtime.session).then(onSessionStarted,", replace: "bind(runtime.session).then(undefined," }],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MP09",
		file: "src/cli/interactive-mode.ts",
		description: "settle -i does not say the warnings of the folders resources_discover added",
		edits: [
			{
				find: "for (const warning of options.warningsAfterStart?.() ?? [])",
				replace: "for (const warning of [] as string[])",
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MP10",
		file: "src/session/agent-session.ts",
		description: "a thinking level the session file cannot record leaves the new level saved as the default",
		edits: [
			{
				after: "putBack = this.settingsManager.saveDefaultThinkingLevel",
				find: "\t\t\t\t\tputBack?.();\n",
				replace: "",
			},
		],
		tests: ["test/session/model-thinking-levels.test.ts"],
	},
	{
		id: "MP11",
		file: "src/session/agent-session.ts",
		description: "a thinking level the session file cannot record is still put in use",
		edits: [
			{
				after: "putBack = this.settingsManager.saveDefaultThinkingLevel",
				find: "\t\tif (effective !== previous) {\n\t\t\ttry {\n",
				replace: "\t\tthis.agent.state.thinkingLevel = effective;\n\t\tif (effective !== previous) {\n\t\t\ttry {\n",
			},
		],
		tests: ["test/session/model-thinking-levels.test.ts"],
	},
	{
		id: "MQ01",
		file: "src/llm/errors.ts",
		description: "a gateway's ESOCKETTIMEDOUT (the request library's idle-socket timeout) is final again, not retried",
		edits: [{ find: "ETIMEDOUT|ESOCKETTIMEDOUT|EPIPE", replace: "ETIMEDOUT|EPIPE" }],
		tests: ["test/recovery/errors.test.ts", "test/llm/wire/classification.test.ts"],
	},
	{
		id: "MQ02",
		file: "src/llm/errors.ts",
		description: "a gateway naming httpx's ReadTimeout or ConnectTimeout alone is final again, not retried",
		edits: [{ find: "\t/\\b(?:Read|Connect|Write|Pool)Timeout\\b/,\n", replace: "" }],
		tests: ["test/recovery/errors.test.ts", "test/llm/wire/classification.test.ts"],
	},
	{
		id: "MQ03",
		file: "src/llm/errors.ts",
		description: "a response.failed with code request_timeout (or a bare upstream_request_timeout) is final again",
		edits: [
			{
				find: "\t/(?<![\\w'`]|\\\\\")(?:upstream_)?request_timeout(?![\\w'`]|\\\\\")/i,\n",
				replace: "",
			},
		],
		tests: ["test/recovery/errors.test.ts", "test/llm/wire/classification.test.ts"],
	},
	{
		id: "MQ04",
		file: "src/llm/errors.ts",
		description:
			"a stream error refusing a quoted 'request_timeout' field (no status ahead of it) is retried as a timeout",
		edits: [
			{
				find: "/(?<![\\w'`]|\\\\\")(?:upstream_)?request_timeout(?![\\w'`]|\\\\\")/i,",
				replace: "/(?:upstream_)?request_timeout/i,",
			},
		],
		tests: ["test/recovery/errors.test.ts", "test/llm/wire/classification.test.ts"],
	},
	{
		id: "MQ05",
		file: "src/tools/write.ts",
		description: "write over a CRLF file writes LF-only content with LF again (a whole-file line-ending diff)",
		edits: [{ find: '!content.includes("\\r") && isCrlfFile(head);', replace: '!content.includes("\\r") && false;' }],
		tests: ["test/pi-races/write-line-endings.test.ts"],
	},
	{
		id: "MQ06",
		file: "src/tools/write.ts",
		description: "content that brings its own CRLF breaks, over a CRLF file, gets each of them doubled to CR CR LF",
		edits: [
			{
				find: 'content.includes("\\n") && !content.includes("\\r") && isCrlfFile',
				replace: 'content.includes("\\n") && isCrlfFile',
			},
		],
		tests: ["test/pi-races/write-line-endings.test.ts"],
	},
	{
		id: "MQ07",
		file: "src/tools/write.ts",
		description: "a file mixing CRLF and LF breaks is taken for a CRLF file: LF content written over it gets CRLF",
		edits: [{ find: 'text.split("\\r\\n").length - 1 === breaks', replace: 'text.split("\\r\\n").length - 1 > 0' }],
		tests: ["test/pi-races/write-line-endings.test.ts"],
	},
	{
		id: "MQ08",
		file: "src/agent/agent-loop.ts",
		description:
			"a tool call's lone surrogate is saved as streamed: the session file holds half an emoji the command never ran with and the request never sent",
		edits: [{ find: "\t\tfinal = withWellFormedToolArguments(final);\n", replace: "" }],
		tests: ["test/pi-races/lone-surrogate-tool-arguments.test.ts"],
	},
	{
		id: "MQ09",
		file: "src/rpc/jsonl.ts",
		description: "--mode json and RPC lines carry a streamed lone surrogate as an escape strict JSON readers refuse",
		edits: [{ find: 'if (line.includes("\\\\ud")) line = ', replace: 'if (line.includes("\\\\ud")) void ' }],
		tests: ["test/pi-races/lone-surrogate-tool-arguments.test.ts"],
	},
	{
		id: "MS01",
		file: "src/session/provider-stream.ts",
		description:
			"a 429 or 529 whose Retry-After is over retry.provider.maxRetryDelayMs (3 h) is slept by the provider client itself again: settle -p silent for hours (lobehub#13572)",
		edits: [
			{
				find: "if (!overCap && !waitInText && !isAccountFailureText(",
				replace: "if (!waitInText && !isAccountFailureText(",
			},
		],
		tests: ["test/pi-races/retry-after-hours.test.ts"],
	},
	{
		id: "MS02",
		file: "src/llm/errors.ts",
		description:
			"a 429 saying the plan's quota has been exhausted (resets days later) is retried as a rate limit again: twelve requests for one refusal (qwen-code#7841)",
		edits: [{ find: "\t/quota[ _](?:has been |is )?exhausted/i,\n", replace: "" }],
		tests: ["test/pi-races/quota-refusals.test.ts", "test/recovery/errors.test.ts"],
	},
	{
		id: "MS03",
		file: "src/cli/print-mode.ts",
		description:
			"settle -p ends a run whose Retry-After is over retry.maxAgentDelayMs with the provider's text alone again: nothing names the cap nor how to wait (claude-code#81330)",
		edits: [
			{
				find: "compactionOffHint(runtime.session, last) ??\n\t\t\t\tretryWaitHint(last, runtime.session.settingsManager.getRetrySettings());",
				replace: "compactionOffHint(runtime.session, last);",
			},
		],
		tests: ["test/pi-races/retry-after-hours.test.ts"],
	},
	{
		id: "MS04",
		file: "src/cli/interactive-render.ts",
		description:
			"settle -i shows a failure not retried for its Retry-After over retry.maxAgentDelayMs as the provider's error alone again: nothing names the cap (claude-code#81330)",
		edits: [{ find: "if (hint) this.notice(hint);", replace: "void hint;" }],
		tests: ["test/pi-races/retry-after-hours.test.ts"],
	},
	{
		id: "MS05",
		file: "src/cli/retry-wait-hint.ts",
		description:
			"the CLI's Not-retried line appears for a requested wait within retry.maxAgentDelayMs too (claude-code#81330's hint on a retried 429)",
		edits: [{ find: "requested <= maxAgentDelayMs", replace: "requested < 0" }],
		tests: ["test/pi-races/retry-after-hours.test.ts"],
	},
	{
		id: "MS06",
		file: "src/session/provider-stream.ts",
		description:
			"retry.provider.maxRetryDelayMs: 0 (the cap off, as pi-ai documents) makes every Retry-After over the cap: the client never waits one, the session retries it instead",
		edits: [
			{
				find: "const overCap = cap > 0 && ((asked",
				replace: "const overCap = ((asked",
			},
		],
		tests: ["test/pi-races/retry-after-hours.test.ts"],
	},
	{
		id: "MR01",
		file: "src/extensions/runner.ts",
		description:
			"the handlers after a boundary handler left behind at an abort run once it returns, late, against the next answer (oh-my-pi#6489)",
		edits: [
			{
				find: "if (watch.abandoned?.aborted) return { entries: [], continue: false, context, valid: true };",
				replace: "",
			},
		],
		tests: ["test/pi-races/abort-stop-hook.test.ts"],
	},
	{
		id: "MR02",
		file: "src/session/boundaries.ts",
		description:
			"a boundary handler left behind at an abort is reported under every extension handling the event, not the one that held it",
		edits: [
			{
				find: "reportAbandoned(s, base.type, running, graceMs);",
				replace: 'reportAbandoned(s, base.type, s.runner().handlerPaths(base.type).join(", "), graceMs);',
			},
		],
		tests: ["test/pi-races/abort-stop-hook.test.ts"],
	},
	{
		id: "MR03",
		file: "src/tools/edit-diff.ts",
		description:
			"edit's ASCII shortcut in the fold also takes curly quotes, dashes and no-break spaces: an oldText typed with straight quotes no longer matches them",
		edits: [{ find: "cluster.charCodeAt(0) < 0x80", replace: "cluster.charCodeAt(0) < 0x3001" }],
		tests: ["test/tools/edit.test.ts"],
	},
	{
		id: "MR04",
		file: "src/session/compaction-runner.ts",
		description:
			"after the summarizer failed on one model, a switch to another model with the same window does not compact before the next prompt: the failure is carried to the new model",
		edits: [{ find: "failed.model === modelKey(s.model()) &&", replace: "" }],
		tests: ["test/pi-races/compaction-failed-usable.test.ts"],
	},
	{
		id: "MR05",
		file: "src/cli/interactive-mode.ts",
		description:
			"settle -i: a line typed while a ! bash command runs shows no sign it was taken until the command ends",
		edits: [{ find: "waitingOn = `!", replace: "waitingOn = undefined && `!" }],
		tests: ["test/pi-races/cli-compaction-queue.test.ts"],
	},
	{
		id: "MR06",
		file: "src/tools/edit-diff.ts",
		description:
			"edit's indentation hint describes a tab and spaces in another order alike ('the file has a tab, then 2 spaces there, the oldText a tab, then 2 spaces')",
		edits: [{ find: "const runs = whitespace.match(", replace: 'const runs = [...whitespace].sort().join("").match(' }],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "MX01",
		file: "machines/prompt-operation.machine.ts",
		description:
			"the boundary's stall check comes before input queued while it ran: a follow-up queued while a stalled boundary asks to continue again is settled past and stranded",
		edits: [
			{
				find: '\t\t\t\t\t// Before the stall check: input queued meanwhile is progress, a stall would strand it.\n\t\t\t\t\tqueuedDuringBoundaryRuns,\n\t\t\t\t\t{\n\t\t\t\t\t\tguard: { type: "boundaryContinuationStalled", params: ({ event }) => ({ output: event.output }) },\n\t\t\t\t\t\ttarget: "settling",\n\t\t\t\t\t\tactions: { type: "recordStall", params: { reason: "boundary_continuation" } },\n\t\t\t\t\t},\n',
				replace:
					'\t\t\t\t\t{\n\t\t\t\t\t\tguard: { type: "boundaryContinuationStalled", params: ({ event }) => ({ output: event.output }) },\n\t\t\t\t\t\ttarget: "settling",\n\t\t\t\t\t\tactions: { type: "recordStall", params: { reason: "boundary_continuation" } },\n\t\t\t\t\t},\n\t\t\t\t\tqueuedDuringBoundaryRuns,\n',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts"],
	},
	{
		id: "MV01",
		file: "src/resources/extensions.ts",
		description: "jiti (the extension loader) is required when Settle loads, not on the first extension file",
		edits: [
			{
				find: 'let jitiModule: typeof import("jiti") | undefined;',
				replace:
					'let jitiModule: typeof import("jiti") | undefined = createRequire(import.meta.url)("jiti") as typeof import("jiti");',
			},
		],
		tests: ["test/cli/real-provider-modules.test.ts"],
	},
	{
		id: "MV02",
		file: "src/lazy-deps.ts",
		description: "picomatch (globs) is required when Settle loads, not on the first glob",
		edits: [
			{
				find: 'export const loadPicomatch = requiredOnFirstUse<typeof picomatch>("picomatch");',
				replace:
					'const picomatchNow = require("picomatch") as typeof picomatch;\nexport const loadPicomatch = () => picomatchNow;',
			},
		],
		tests: ["test/cli/real-provider-modules.test.ts"],
	},
	{
		id: "MU01",
		file: "src/llm/gemini-stop.ts",
		description: "a Gemini answer stopped SAFETY / RECITATION is reported as pi-ai's 'An unknown error occurred' again",
		edits: [{ find: "!POLICY_STOPS.has(stop.reason)", replace: "POLICY_STOPS.has(stop.reason)" }],
		tests: ["test/pi-races/gemini-malformed-function-call.test.ts"],
	},
	{
		id: "MU02",
		file: "src/llm/errors.ts",
		description: "Kimi's 429 'Your quota will reset at 09-18 15:39:00 UTC.' is retried as a rate limit again",
		edits: [{ find: "\t/quota will reset (?:at|when)\\b/i,\n", replace: "" }],
		tests: ["test/pi-races/quota-refusals.test.ts", "test/recovery/errors.test.ts"],
	},
	{
		id: "MU03",
		file: "src/llm/errors.ts",
		description: "Kimi's \"You've reached your weekly (7-day) usage limit.\" is retried as a rate limit again",
		edits: [{ find: "\t/reached your (?:daily|weekly|monthly)\\b[^.]{0,24}usage limit/i,\n", replace: "" }],
		tests: ["test/recovery/errors.test.ts"],
	},
	{
		id: "MU04",
		file: "src/llm/errors.ts",
		description: "Moonshot's 429 exceeded_current_quota_error is retried as a rate limit again",
		edits: [{ find: "\t/exceeded_current_quota_error/i,\n", replace: "" }],
		tests: ["test/recovery/errors.test.ts"],
	},
	{
		id: "MU05",
		file: "src/resources/resource-loader.ts",
		description: "a `--skill` folder's unreadable sub-folder is passed over without a word again",
		edits: [{ find: "skillFilesAt(path, skillPathsUnreadable)", replace: "skillFilesAt(path)" }],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MU06",
		file: "src/resources/resource-loader.ts",
		description: "an unreadable folder both discovery and a `--skill` path reach is named twice",
		edits: [
			{
				find: "notYetNamed(skillPathsUnreadable, skillPathDiagnostics)",
				replace: "skillPathsUnreadable",
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "MU07",
		file: "src/session/agent-session.ts",
		description:
			"a model switch whose thinking level the session file cannot take rejects with the file's bare error, as if the model had not switched",
		edits: [{ find: "\t\t\tlevelNotRecorded = error;\n", replace: "\t\t\tthrow error;\n" }],
		tests: ["test/cli/rpc-switch-level-unrecorded.test.ts"],
	},
	{
		id: "MW01",
		file: "src/cli/faux-script.ts",
		description:
			"a --faux-script answer keeps the time the script was loaded: a run's answers predate the sub-agent's session, and -c continues the sub-agent",
		edits: [{ find: "return () => ({ ...message, timestamp: Date.now() });", replace: "return message;" }],
		tests: ["test/pi-races/subagent-children.test.ts"],
	},
	{
		id: "MY01",
		file: "src/compaction/branch-summary.ts",
		description:
			"a branch of nothing but tool results is summarized by the model again: a request pi never makes, which can fail or be aborted (tree-differential seed -1620587218)",
		edits: [
			{
				find: 'if (all.messages.every((message) => message.role === "toolResult")) {',
				replace: 'if (all.messages.length === 0 && all.messages.every((message) => message.role === "toolResult")) {',
			},
		],
		tests: ["test/compaction/branch-summary.test.ts"],
	},
	{
		id: "MZ01",
		file: "src/session/provider-stream.ts",
		description:
			"a Retry-After the OpenAI client reads by parseFloat ('5, 5', or retry-after-ms 0 beside it) over retry.provider.maxRetryDelayMs is slept by the client again, silently: Settle's stricter parse saw no wait",
		edits: [{ find: " || clientWait > cap)", replace: ")" }],
		tests: ["test/pi-races/retry-after-hours.test.ts"],
	},
	{
		id: "MZ02",
		file: "src/llm/errors.ts",
		description:
			"a gateway's 429 'requests per minute quota exhausted' reads as a spent plan again: fatal at once, though the window clears in a minute",
		edits: [
			{
				find: "const PER_MINUTE_QUOTA = /PerMinute|\\bper[ -](?:minute|second)\\b/i;",
				replace: "const PER_MINUTE_QUOTA = /PerMinute/;",
			},
		],
		tests: ["test/recovery/errors.test.ts"],
	},
	{
		id: "MZ03",
		file: "src/agent/tool-call-names.ts",
		description:
			"a call to a tool really named functions.read runs read instead, when both tools are declared (the namespace is stripped regardless)",
		edits: [{ find: " || tools.some((tool) => tool.name === block.name)", replace: "" }],
		tests: ["test/pi-races/tool-call-namespaces.test.ts"],
	},
	{
		id: "MZ04",
		file: "src/llm/gemini-stop.ts",
		description:
			"Gemini's IMAGE_SAFETY stop is no content-policy stop again: its safety ratings go unnamed and nothing says to reword the prompt",
		edits: [{ find: '\t"IMAGE_SAFETY",\n', replace: "" }],
		tests: ["test/pi-races/gemini-malformed-function-call.test.ts"],
	},
	{
		id: "MZ05",
		file: "src/llm/gemini-stop.ts",
		description:
			"an answer Gemini ends UNEXPECTED_TOOL_CALL (or OTHER, LANGUAGE…) fails with pi-ai's bare 'An unknown error occurred' again, the reason lost",
		edits: [
			{
				find: "if (!POLICY_STOPS.has(stop.reason)) return `$",
				replace: "if (!POLICY_STOPS.has(stop.reason)) return undefined && `$",
			},
		],
		tests: ["test/pi-races/gemini-malformed-function-call.test.ts"],
	},
	{
		id: "NI01",
		file: "src/session/compaction-runner.ts",
		description:
			'a request refused for an output cap that takes the model\'s window (maxTokens 8192 of 8192) is again told to be sent shorter, though no prompt can be shorter than "hi" (gpustack#929)',
		edits: [
			{
				find: "const outputCap = cap && texts.outputCapTakesWindow(cap) ? cap : undefined;",
				replace: "const outputCap = undefined;",
			},
		],
		tests: ["test/pi-races/output-cap-window.test.ts"],
	},
	{
		id: "NI02",
		file: "src/compaction/texts.ts",
		description:
			"every unanswered overflow with nothing to compact blames the model's maxTokens, also a context that really is too long for a 128k window and a 2048-token cap (gpustack#929)",
		edits: [
			{
				find: "return cap.contextWindow > 0 && cap.requestedMaxTokens * 2 >= cap.contextWindow;",
				replace: "return cap.contextWindow > 0;",
			},
		],
		tests: ["test/pi-races/output-cap-window.test.ts"],
	},
	{
		id: "NH01",
		file: "src/tools/shell.ts",
		description:
			"a command's timeout sends SIGKILL at once again: its `trap … EXIT` never runs, its lock file stays (OpenHands/software-agent-sdk#3120)",
		edits: [{ find: "\t\t\t\t\t\t\tterminate();\n", replace: "\t\t\t\t\t\t\tkill();\n" }],
		tests: ["test/pi-races/bash-background.test.ts"],
	},
	{
		id: "NH02",
		file: "src/tools/shell.ts",
		description:
			"after a timeout's SIGTERM nothing follows with SIGKILL: a trap that never ends holds the call for good (OpenHands/software-agent-sdk#3120)",
		edits: [{ find: "\t\t\t\tescalation = setTimeout(kill, TIMEOUT_TERM_GRACE_MS);\n", replace: "" }],
		tests: ["test/pi-races/bash-background.test.ts"],
	},
	{
		id: "NL01",
		file: "src/resources/extensions.ts",
		description:
			"jiti's failed-transform marker written as a literal again: it lands in the bundle's shared chunk, jiti never caches that chunk's transform, and each require of settle from a CommonJS extension transpiles ~1 MB anew (~4 s of CPU)",
		edits: [{ find: ".includes(JITI_ERROR);", replace: '.includes("__JITI_ERROR__");' }],
		tests: ["test/resources/extensions.test.ts"],
	},
	{
		id: "NF01",
		file: "src/llm/gemini-stop.ts",
		description:
			"a prompt Gemini blocks before any answer (promptFeedback.blockReason, no candidates) reads as an empty answer, unnamed",
		edits: [
			{
				find: 'if (!chunk.candidates?.length && typeof feedback?.blockReason === "string") {',
				replace: 'if (!chunk.candidates?.length && typeof feedback?.blockReason === "number") {',
			},
		],
		tests: ["test/pi-races/gemini-malformed-function-call.test.ts"],
	},
	{
		id: "NF02",
		file: "src/llm/errors.ts",
		description:
			"GitHub Copilot's 'Please wait 17 seconds before trying again' is not read as the wait asked for: retries use the default backoff, a wait of hours is not named",
		edits: [
			{
				find: '\\\\s+before`, "gi"),',
				replace: '\\\\s+before never`, "gi"),',
			},
		],
		tests: ["test/pi-races/copilot-rate-limit-wait.test.ts"],
	},
	{
		id: "NF03",
		file: "src/llm/errors.ts",
		description:
			"a wait spelt with spaces between its parts ('15 hours 23 minutes', Copilot's) reads as its first part only",
		edits: [
			{
				find: "DURATION_ONE}(?:\\\\s*",
				replace: "DURATION_ONE}(?:",
			},
		],
		tests: ["test/pi-races/copilot-rate-limit-wait.test.ts"],
	},
	{
		id: "NF04",
		file: "src/session/provider-stream.ts",
		description:
			"a refusal whose wait is said only in its text is retried by the OpenAI client on its own backoff, blind to the wait asked for",
		edits: [
			{
				find: "(asked === undefined && parseRequestedRetryDelayMs(body) !== undefined)",
				replace: "(asked === undefined && parseRequestedRetryDelayMs(body) === -1)",
			},
		],
		tests: ["test/pi-races/copilot-rate-limit-wait.test.ts"],
	},
	{
		id: "NF05",
		file: "src/resources/resource-loader.ts",
		description:
			"a `--prompt-template` / additionalPromptTemplatePaths folder that cannot be listed is passed over without a word",
		edits: [
			{
				find: "for (const filePath of promptFilesAt(path, false, promptPathsUnreadable)) {",
				replace: "for (const filePath of promptFilesAt(path, false)) {",
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "NF06",
		file: "src/cli/print-mode.ts",
		description:
			"an extension command's ctx.reload() in --rpc / -p says nothing of what the reload found (unreadable folders, an extension's resources_discover folders included), though start-up names them",
		edits: [
			{
				find: "for (const warning of reloadedResourceWarnings(session)) out.stderr(",
				replace: "for (const warning of [] as string[]) out.stderr(",
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "NF07",
		file: "src/cli/interactive-mode.ts",
		description:
			"an extension command's ctx.reload() in -i says nothing of what the reload loaded and found, where /reload names each unreadable folder",
		edits: [
			{
				find: "\t\t\t\t\tawait target.reload();\n\t\t\t\t\treportReload(host);",
				replace: "\t\t\t\t\tawait target.reload();",
			},
		],
		tests: ["test/pi-races/startup-odd-trees.test.ts"],
	},
	{
		id: "NF08",
		file: "src/session/agent-session.ts",
		description:
			"a host that binds only its own ctx.reload() loses the session's other command actions (ctx.newSession, ctx.fork, ctx.waitForIdle are undefined)",
		edits: [
			{
				find: "runner.bindCommandContext({ ...this.defaultCommandActions(), ...bindings.commandContextActions });",
				replace:
					"runner.bindCommandContext((bindings.commandContextActions ?? this.defaultCommandActions()) as ExtensionCommandContextActions);",
			},
		],
		tests: ["test/cli/rpc-replacing-session.test.ts"],
	},
	{
		id: "NF09",
		file: "src/settings/settings-manager.ts",
		description:
			"a settings file that cannot be written takes a change silently, as pi 0.73.1's does (the error only in drainErrors(), read only at start-up): RPC set_auto_compaction answers success and nothing is saved",
		edits: [
			{
				find: '\t\t\t\tthis.keepUndrained([{ type: "error", scope, path: file, key, message: error.message, error }]);\n\t\t\t}\n\t\t\tthrow error;',
				replace:
					'\t\t\t\tthis.keepUndrained([{ type: "error", scope, path: file, key, message: error.message, error }]);\n\t\t\t\treturn [];\n\t\t\t}\n\t\t\tthrow error;',
			},
		],
		tests: ["test/pi-races/settings-file-writers.test.ts"],
	},
	{
		id: "NG01",
		file: "src/extensions/runner.ts",
		description:
			"a boundary handler's ctx.signal is read from the session again: one left behind after the abort's grace sees the next run's signal, not aborted",
		edits: [{ find: "return scope.signal ?? own.signal;", replace: "return own.signal;" }],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NG02",
		file: "src/extensions/runtime.ts",
		description:
			"pi.appendEntry from a handler left behind after the abort's grace is not refused: its entry lands in the next operation's branch",
		edits: [{ find: 'runtime.refuseLeftBehind("pi.appendEntry");', replace: "" }],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NG03",
		file: "src/extensions/runtime.ts",
		description:
			"pi.sendMessage from a handler left behind after the abort's grace is not refused: its message joins the next operation",
		edits: [{ find: 'runtime.refuseLeftBehind("pi.sendMessage");', replace: "" }],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NG04",
		file: "src/extensions/runtime.ts",
		description:
			"pi.sendUserMessage from a handler left behind after the abort's grace is not refused: it queues a turn the user did not ask for",
		edits: [{ find: 'runtime.refuseLeftBehind("pi.sendUserMessage");', replace: "" }],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NG05",
		file: "src/extensions/runner.ts",
		description:
			"ctx.ui of a handler left behind after the abort's grace is not refused: its late notification shows in the next operation",
		edits: [{ find: 'runtime.refuseLeftBehind("ctx.ui", scope);', replace: "" }],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NG06",
		file: "src/extensions/runtime.ts",
		description:
			"a handler that returned in time is taken for left behind when another handler of the dispatch is: its own later work is refused",
		edits: [
			{
				find: "return scope?.abandoned?.aborted === true && !scope.settledInTime;",
				replace: "return scope?.abandoned?.aborted === true;",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NG07",
		file: "src/extensions/runner.ts",
		description: "a refusal the left-behind handler lets escape is reported twice",
		edits: [
			{
				find: "if (!isReportedRefusal(error)) this.emitError(errorRecord(path, scope.event, error));",
				replace: "this.emitError(errorRecord(path, scope.event, error));",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NG08",
		file: "src/session/boundaries.ts",
		description:
			"the boundary dispatch is not given its operation's signal: a turn_end handler left behind reads the next run's ctx.signal",
		edits: [{ find: "\t\tabandoned: abandoned.signal,\n\t\tsignal,\n", replace: "\t\tabandoned: abandoned.signal,\n" }],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NM01",
		file: "src/llm/model-runtime.ts",
		description:
			'a request to a model whose provider an extension unregistered goes through another provider\'s client, keyless: "No API key for provider" instead of naming the unregistration (huggingface/tau#694)',
		edits: [
			{
				find: '\t\t\tif (unavailable !== undefined) return streamFromMessage(emptyAssistantMessage(model, "error", unavailable));\n',
				replace: "",
			},
		],
		tests: ["test/pi-races/extension-provider-unregistered.test.ts"],
	},
	{
		id: "NN01",
		file: "src/session/agent-session.ts",
		description:
			"a teardown leaves the user's running shell command alone: the dispose kills it, executeBash rejects SESSION_CLOSED and the old file never says it ran",
		edits: [{ find: "\tbash.abortAll();\n\tconst commandsEnded", replace: "\tconst commandsEnded" }],
		tests: ["test/runtime/teardown-user-bash.test.ts"],
	},
	{
		id: "NN02",
		file: "src/session/agent-session.ts",
		description:
			"a teardown cancels the user's shell command but does not wait for its result: the session is disposed before it is recorded",
		edits: [{ find: "\tawait commandsEnded;\n", replace: "" }],
		tests: ["test/runtime/teardown-user-bash.test.ts"],
	},
	{
		id: "NN03",
		file: "src/session/agent-session.ts",
		description:
			"executeBash is taken while the runtime replaces the session: a command started after the teardown's cancel is killed unrecorded by the dispose",
		edits: [
			{
				find: "\t\tconst refusal = this.inputRefusal();\n\t\tif (refusal) return Promise.reject(refusal);\n\t\treturn this.bash.execute(",
				replace: "\t\treturn this.bash.execute(",
			},
		],
		tests: ["test/runtime/teardown-user-bash.test.ts"],
	},
	{
		id: "NN04",
		file: "src/runtime/runtime.ts",
		description:
			"inspectSessions / trace() follow the new session only from onSessionReplaced (after the rebind): what its session_start runs is missing",
		edits: [
			{
				find: "const off = this.installedListeners.add((session) => {",
				replace: "const off = this.onSessionReplaced(({ session }) => {",
			},
		],
		tests: ["test/runtime/session-replaced.test.ts"],
	},
	{
		id: "NN05",
		file: "src/cli/rpc-mode.ts",
		description:
			"settle --rpc: a bash command during an extension's replacement goes to the session being replaced and is refused with BUSY instead of waiting for the new one",
		edits: [
			{
				find: "\t\t\t\tconst result = await sendToCurrentSession(runtime, (current) =>\n\t\t\t\t\tcurrent.executeBash(bashCommand, undefined, options),\n\t\t\t\t);\n",
				replace: "\t\t\t\tconst result = await session.executeBash(bashCommand, undefined, options);\n",
			},
		],
		tests: ["test/cli/rpc-replacing-session.test.ts"],
	},
	{
		id: "NQ01",
		file: "src/agent/agent-loop.ts",
		description:
			"a tool_call handler left behind after the abort's grace is never marked so: its late pi.appendEntry / ctx.ui land in the next operation",
		edits: [
			{
				find: "\t\t\t\t\tabandonment.aborted = true;\n\t\t\t\t\treturn immediate(toolCall, abandonedHookMessage",
				replace: "\t\t\t\t\treturn immediate(toolCall, abandonedHookMessage",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NQ02",
		file: "src/agent/agent-loop.ts",
		description:
			"a tool_result handler left behind after the abort's grace is never marked so: its late pi.appendEntry / ctx.ui land in the next operation",
		edits: [
			{
				find: "\t\t\t\t\tabandonment.aborted = true;\n\t\t\t\t\tresult = errorResult(abandonedHookMessage",
				replace: "\t\t\t\t\tresult = errorResult(abandonedHookMessage",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NQ03",
		file: "src/extensions/runner.ts",
		description:
			"tool_call handlers get the session's plain context again: a left-behind one reads the next run's ctx.signal and its ctx.ui / pi calls go through",
		edits: [
			{
				find: "? runInHandlerScope(scope, () => entry.handler(event, this.scopedContext(path, scope)))",
				replace: "? entry.handler(event, this.forExtension(this.createContext(), path))",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NQ04",
		file: "src/session/agent-session.ts",
		description: "the session no longer tells tool_result dispatches their operation: a left-behind handler acts late",
		edits: [
			{
				find: "\t\t\t\t\t\t},\n\t\t\t\t\t\t{ signal, abandoned, graceMs: this.agent.toolAbortGraceMs },\n",
				replace: "\t\t\t\t\t\t},\n",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NQ05",
		file: "src/extensions/runner.ts",
		description:
			"a tool_call handler call counts as returned in time once it returns, even late: the work it leaves running then acts in the next operation",
		edits: [
			{
				find: "if (scope) scope.settledInTime = scope.abandoned?.aborted !== true;",
				replace: "if (scope) scope.settledInTime = true;",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NQ06",
		file: "src/settings/settings-manager.ts",
		description:
			"drainErrors keeps every failed write of the same key: a host that never drains it grows by one per failed write",
		edits: [{ find: "\t\t\tif (same >= 0) this.undrained.splice(same, 1);\n", replace: "" }],
		tests: ["test/settings/settings-manager.test.ts"],
	},
	{
		id: "NQ07",
		file: "src/settings/settings-manager.ts",
		description: "drainErrors is unbounded again: failed writes of ever new keys (a thinking level per model) pile up",
		edits: [
			{
				find: "\t\tif (this.undrained.length > UNDRAINED_LIMIT) this.undrained.splice(0, this.undrained.length - UNDRAINED_LIMIT);\n",
				replace: "",
			},
		],
		tests: ["test/settings/settings-manager.test.ts"],
	},
	{
		id: "NS01",
		file: "src/extensions/runtime.ts",
		description:
			"a handler the runtime's teardown left behind is refused too: an RPC tool_call gate whose dialog a new_session ended gets STALE_CONTEXT for its notify instead of notifying",
		edits: [
			{ find: "if (this.sessionClosing || !leftBehind(scope)) return;", replace: "if (!leftBehind(scope)) return;" },
		],
		tests: ["test/pi-races/rpc-dialog-replaced-session.test.ts"],
	},
	{
		id: "NT01",
		file: "src/errors.ts",
		description:
			"instanceof SettleError by prototype again: a SettleError from a library's own copy of settle fails the host's check, and normalizeError wraps it as INTERNAL, losing its code",
		edits: [
			{
				find: 'return typeof value === "object" && value !== null && SETTLE_ERROR_BRAND in value;',
				replace: "return Function.prototype[Symbol.hasInstance].call(SettleError, value);",
			},
		],
		tests: ["test/package/pack.test.ts"],
	},
	{
		id: "NT02",
		file: "src/rpc/client.ts",
		description:
			"settle/rpc's missing-CLI error no longer names where it looked: an app that bundled settle/rpc is told only that the command was not found",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: '`The settle command was not found next to settle/rpc (looked for ${paths.join(" and ")}). ` +',
				replace: '"The settle command was not found next to settle/rpc. " +',
			},
		],
		tests: ["test/package/pack.test.ts"],
	},
	{
		id: "NW01",
		file: "machines/prompt-operation.machine.ts",
		description:
			"the post-run decision reads the current retry settings, not the announced retry's: retry turned off in an agent_end{willRetry: true} listener drops the announced retry",
		edits: [
			{
				find: 'return context.retryAnnouncement !== "none" && announced ? announced : context.retry;',
				replace: "return context.retry;",
			},
		],
		tests: ["test/session/retry.test.ts"],
	},
	{
		id: "NW02",
		file: "src/compaction/request.ts",
		description:
			"a summary request's retry ignores the wait the provider asked for: a rate-limited summary is retried after the plain backoff, and a wait past maxAgentDelayMs is retried early",
		edits: [{ find: "...(requestedDelayMs !== undefined ? { requestedDelayMs } : {}),", replace: "" }],
		tests: ["test/session/summarization-retry.test.ts"],
	},
	{
		id: "NW03",
		file: "src/compaction/request.ts",
		description:
			"a summary request's retry delays shrink within the call (no floor): the wait after a Retry-After is forgotten",
		edits: [{ find: "floorMs: delayMs,", replace: "" }],
		tests: ["test/session/summarization-retry.test.ts"],
	},
	{
		id: "NW04",
		file: "machines/prompt-operation.machine.ts",
		description: "the previous delay of a retry sequence passes a maxAgentDelayMs lowered mid-sequence",
		edits: [
			{
				find: "settings.maxAgentDelayMs > 0 ? Math.min(floor, settings.maxAgentDelayMs) : floor,",
				replace: "floor,",
			},
		],
		tests: ["test/recovery/retry-policy.test.ts"],
	},
	{
		id: "NW05",
		file: "src/session/run-outcome.ts",
		description:
			"retry.* set straight through session.settingsManager is not read at the run's end: a failure is retried with retry.enabled off",
		edits: [
			{
				find: "\tsyncRetrySettings(s);\n\tconst context = s.snapshot().context;",
				replace: "\tconst context = s.snapshot().context;",
			},
		],
		tests: ["test/session/retry.test.ts"],
	},
	{
		id: "NU01",
		file: "src/llm/tool-call-ids.ts",
		description:
			"another model's tool call ids go to a Mistral chat-completions model by the generic rule: Claude's `toolu_…` refused, every request after the switch fails (eca#233)",
		edits: [
			{
				find: 'model.api === "openai-completions" && requiresMistralToolIds(model) ? mistralId : ID_RULES[model.api]',
				replace: "ID_RULES[model.api]",
			},
		],
		tests: ["test/pi-races/mistral-tool-call-ids.test.ts"],
	},
	{
		id: "NU02",
		file: "src/llm/tool-call-ids.ts",
		description:
			"a model's `compat.requiresMistralToolIds` is not read: a self-hosted Devstral whose provider is not named mistral keeps refusing the ids with the setting set (llxprt-code#760)",
		edits: [{ find: 'if (typeof set === "boolean") return set;', replace: "" }],
		tests: ["test/pi-races/mistral-tool-call-ids.test.ts"],
	},
	{
		id: "NU03",
		file: "src/llm/compat-notes.ts",
		description:
			'Mistral\'s "Tool call id was … length of 9" refusal names no setting: the user gets the 400 alone (llxprt-code#760)',
		edits: [
			{ find: 'compat: `"requiresMistralToolIds": true`,', replace: 'compat: `"requiresToolResultName": true`,' },
		],
		tests: ["test/pi-races/mistral-tool-call-ids.test.ts"],
	},
	{
		id: "NU04",
		file: "src/llm/pi-ai.ts",
		description:
			'a history with tool calls goes with no tools offered as it is: Anthropic refuses it ("must define tools"), Bedrock too, on every `--no-tools` prompt (anthropic-sdk-python#494)',
		edits: [
			{
				find: "\tonContext(toolHistoryAsText),\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/tool-history-without-tools.test.ts"],
	},
	{
		id: "NU05",
		file: "src/llm/tool-history-as-text.ts",
		description:
			"Bedrock is not among the APIs that need tools for tool blocks: its request goes with toolUse and no toolConfig (bedrock-access-gateway#239)",
		edits: [{ find: '"anthropic-messages", "bedrock-converse-stream"', replace: '"anthropic-messages"' }],
		tests: ["test/pi-races/tool-history-without-tools.test.ts"],
	},
	{
		id: "NU06",
		file: "src/llm/tool-history-as-text.ts",
		description:
			"each tool result goes as a user message of its own: two results of one answer make two user messages in a row",
		edits: [{ find: 'if (previous?.role === "user") {', replace: "if (previous === undefined) {" }],
		tests: ["test/pi-races/tool-history-without-tools.test.ts"],
	},
	{
		id: "NU07",
		file: "src/llm/pi-ai.ts",
		description:
			"the prompt before an aborted answer and the next prompt go to DeepSeek as two user messages in a row: refused on every later request (cherry-studio#5051)",
		edits: [
			{
				find: "\tonContext(joinedUserTurns),\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/successive-user-messages.test.ts"],
	},
	{
		id: "NU08",
		file: "src/llm/joined-user-turns.ts",
		description:
			"the aborted answer between two prompts is kept in the join's view: the prompts are never adjacent, so DeepSeek still gets two user messages in a row",
		edits: [
			{
				find: 'if (message.role === "assistant" && (message.stopReason === "aborted" || message.stopReason === "error")) continue;',
				replace: "",
			},
		],
		tests: ["test/pi-races/successive-user-messages.test.ts"],
	},
	{
		id: "NX01",
		file: "src/extensions/runtime.ts",
		description:
			"pi.setActiveTools drops an unknown (misspelt) name without a word, as pi 0.73.1: the extension author never learns the tool is gone",
		edits: [
			{
				find: "const unknown = unknownToolNames(registered, toolNames);",
				replace: "const unknown = unknownToolNames(registered, []);",
			},
		],
		tests: ["test/bad-input/active-tool-names.test.ts", "test/cli/extension-unknown-tools.test.ts"],
	},
	{
		id: "NX02",
		file: "src/session/agent-session.ts",
		description: "session.setActiveToolsByName returns no unknown names: the host's typo goes unnoticed",
		edits: [
			{
				find: "\t\t\tthis.getAllTools().map((tool) => tool.name),\n\t\t\tnames,\n",
				replace: "\t\t\tthis.getAllTools().map((tool) => tool.name),\n\t\t\t[],\n",
			},
		],
		tests: ["test/bad-input/active-tool-names.test.ts"],
	},
	{
		id: "NX03",
		file: "src/session/prompt-pipeline.ts",
		description:
			'a prompt to a model whose provider was unregistered is refused NO_AUTH "No API key found", sending the user looking for a key (tau#694), instead of naming the unregistration',
		edits: [
			{ find: "const unavailable = runtime.unavailableReason?.(model);", replace: "const unavailable = undefined;" },
		],
		tests: ["test/session/model-unavailable.test.ts", "test/pi-races/extension-provider-unregistered.test.ts"],
	},
	{
		id: "NX04",
		file: "src/session/agent-session.ts",
		description: "session.modelUnavailable never says the selected model's provider was unregistered",
		edits: [
			{
				find: "return model && this.modelRuntime.unavailableReason?.(model);",
				replace: "return model && undefined;",
			},
		],
		tests: ["test/session/model-unavailable.test.ts", "test/pi-races/extension-provider-unregistered.test.ts"],
	},
	{
		id: "NX05",
		file: "src/cli/rpc-mode.ts",
		description: "RPC get_state leaves modelUnavailable out: a client sees the model as usable until a prompt fails",
		edits: [
			{
				find: "...(session.modelUnavailable === undefined ? {} : { modelUnavailable: session.modelUnavailable }),",
				replace: "",
			},
		],
		tests: ["test/pi-races/extension-provider-unregistered.test.ts"],
	},
	{
		id: "NX06",
		file: "src/cli/interactive-commands.ts",
		description: "settle -i's /model shows a model whose provider was unregistered as if usable",
		edits: [{ find: "if (session.modelUnavailable) host.warn(session.modelUnavailable);", replace: "" }],
		tests: ["test/pi-races/extension-provider-unregistered.test.ts"],
	},
	{
		id: "NX07",
		file: "src/llm/errors.ts",
		description:
			'a Gemini non-answer (SAFETY, OTHER, a blocked prompt) whose free finishMessage reads as transient ("terminated", "try again", "timeout") is retried, to be blocked again',
		edits: [
			{
				find: "if (geminiStop !== undefined) return geminiStop;",
				replace: "if (geminiStop === true) return geminiStop;",
			},
		],
		tests: ["test/pi-races/gemini-malformed-function-call.test.ts"],
	},
	{
		id: "NV01",
		file: "src/session/agent-session.ts",
		description:
			"a replacement that aborted a run and rolled back leaves the session marked torn down: every later prompt() rejects SESSION_CLOSED though its run answered",
		edits: [{ find: "\ttearingDown.delete(session);\n", replace: "" }],
		tests: ["test/runtime/teardown-rollback-resumes.test.ts"],
	},
	{
		id: "NV02",
		file: "src/session/agent-session.ts",
		description:
			"a replacement that rolled back leaves the runner marked closing: a handler its teardown's abort left behind is never refused, its late entry is written",
		edits: [{ find: ".markSessionClosing(false);", replace: ";" }],
		tests: ["test/runtime/teardown-rollback-resumes.test.ts"],
	},
	{
		id: "NV03",
		file: "src/session/boundaries.ts",
		description: 'the left-behind report says "a agent_before_settle handler"',
		edits: [{ find: 'event === "agent_before_settle" ? "an" : "a"', replace: '"a"' }],
		tests: ["test/pi-races/abort-stop-hook.test.ts"],
	},
	{
		id: "NV04",
		file: "src/extensions/runner.ts",
		description:
			"a tool_call / tool_result / turn_end / agent_before_settle handler's ctx lists no members of its own again: { ...ctx } has no ui, cwd or signal",
		edits: [
			{
				// The proxy lists none of the members: a spread copy gets none (as from a prototype).
				find: "return new Proxy(own, {\n\t\t\tget: (target, key) => {",
				replace: "return new Proxy(own, {\n\t\t\townKeys: () => [],\n\t\t\tget: (target, key) => {",
			},
		],
		tests: ["test/extensions/scoped-context-shape.test.ts"],
	},
	{
		id: "NV05",
		file: "src/extensions/runner.ts",
		description:
			"the tool_call handlers after one left behind start late, once it returns: they run for a call that is over, their ctx refused as if left behind",
		edits: [
			{
				find: "\t\t\tif (watch?.abandoned?.aborted) return undefined;\n\t\t\tlet value: unknown;",
				replace: "\t\t\tlet value: unknown;",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NV06",
		file: "src/extensions/runner.ts",
		description: "the tool_result handlers after one left behind start late, once it returns",
		edits: [
			{
				find: "\t\t\t// As in emitToolCall: nothing starts once the loop gave up on the hook.\n\t\t\tif (watch?.abandoned?.aborted) return undefined;\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "NV07",
		file: "src/session/agent-session.ts",
		description:
			"a teardown step a rollback overtook while a reload held it goes on once the reload ends: it cancels the user's shell command on the live session",
		edits: [{ find: "if (rollbacks.get(session) !== rolledBackBefore) return;", replace: "" }],
		tests: ["test/runtime/reload-cut-off-rollback.test.ts"],
	},
	{
		id: "NZ01",
		file: "src/llm/pi-ai.ts",
		description:
			"Bedrock requests go as pi-ai builds them: the prompts around an aborted answer, or tool results and a steer, make two user messages in a row, refused on every later request (Portkey-AI/gateway#748)",
		edits: [
			{
				find: "\tonOptions(converseMessagesOptions),\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/bedrock-alternating-roles.test.ts"],
	},
	{
		id: "NZ02",
		file: "src/llm/converse-messages.ts",
		description:
			"successive Converse messages of one role are never joined: Bedrock refuses the request as not alternating",
		edits: [
			{
				find: "if (previous?.role === message?.role && Array.isArray(previous?.content) && Array.isArray(message?.content)) {",
				replace: "if (previous === message) {",
			},
		],
		tests: ["test/pi-races/bedrock-alternating-roles.test.ts"],
	},
	{
		id: "NZ03",
		file: "src/llm/converse-messages.ts",
		description:
			"blank text blocks stay in Bedrock requests: an extension's message with empty text is refused as blank on every later request (OpenHands#5339)",
		edits: [{ find: ".filter((block) => !isBlankText(block))", replace: "" }],
		tests: ["test/pi-races/bedrock-alternating-roles.test.ts"],
	},
	{
		id: "NZ04",
		file: "src/llm/converse-messages.ts",
		description:
			"a tool result whose text is blank goes to Bedrock as is: refused as blank on every later request (OpenHands#5722)",
		edits: [{ find: ".map(withoutBlankText)", replace: "" }],
		tests: ["test/pi-races/bedrock-alternating-roles.test.ts"],
	},
	{
		id: "NZ05",
		file: "src/llm/pi-ai.ts",
		description:
			"Gemini requests go as pi-ai builds them: an extension's message of empty text goes as an empty text part, refused on every later request (zuisong/gemini-openai-proxy#83)",
		edits: [{ find: "\tonContext(withoutBlankGeminiText),\n", replace: "" }],
		tests: ["test/pi-races/gemini-empty-text.test.ts"],
	},
	{
		id: "NZ06",
		file: "src/llm/gemini-empty-text.ts",
		description: "blank text blocks of user messages are kept for Gemini: the empty text part is refused",
		edits: [{ find: 'part.type !== "text" || part.text.trim() !== ""', replace: "true" }],
		tests: ["test/pi-races/gemini-empty-text.test.ts"],
	},
	{
		id: "NZ07",
		file: "src/llm/mistral-tool-turns.ts",
		description:
			"Mistral requests go as pi-ai builds them: a steer after tool results follows the tool message, refused as \"Unexpected role 'user' after role 'tool'\" on every later request (zed#37021)",
		edits: [{ find: 'if (model.api === "mistral-conversations") return true;', replace: "" }],
		tests: ["test/pi-races/mistral-user-after-tool.test.ts"],
	},
	{
		id: "NZ08",
		file: "src/llm/mistral-tool-turns.ts",
		description:
			"no assistant turn goes between tool results and the user message after them: Mistral refuses the order",
		edits: [{ find: 'bridged.push({ role: "assistant", content: BRIDGE });', replace: "" }],
		tests: ["test/pi-races/mistral-user-after-tool.test.ts"],
	},
	{
		id: "PA01",
		file: "machines/prompt-operation.machine.ts",
		description:
			"agent_end{willRetry: false} no longer binds the run: a listener that turns retries on gets the failed run retried after agent_end said it would not be",
		edits: [{ find: '\t\t\tcontext.retryAnnouncement !== "declined" &&\n', replace: "" }],
		tests: ["test/session/retry.test.ts"],
	},
	{
		id: "PA02",
		file: "src/session/event-bridge.ts",
		description: "the bridge no longer tells the machine agent_end declined a retry (RETRY_DECLINED)",
		edits: [
			{
				find: 'else if (lastAnswerFailed(s, messages)) s.send({ type: "RETRY_DECLINED" });',
				replace: "else if (lastAnswerFailed(s, messages)) void 0;",
			},
		],
		tests: ["test/session/retry.test.ts"],
	},
	{
		id: "PA03",
		file: "src/extensions/runtime.ts",
		description:
			"pi.setActiveTools with only unknown names says 'the other names were applied' though no tool is active now",
		edits: [
			{ find: "const anyApplied = unknown.length < new Set(toolNames).size;", replace: "const anyApplied = true;" },
		],
		tests: ["test/bad-input/active-tool-names.test.ts"],
	},
	{
		id: "PA04",
		file: "src/extensions/runner.ts",
		description:
			"a per-call handler ctx copied by descriptors reads the extension context's members: a left-behind handler's clone sees the next run's signal",
		edits: [{ find: "if (!read || !descriptor) return descriptor;", replace: "return descriptor;" }],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "PE01",
		file: "src/session/event-bridge.ts",
		description:
			"listeners' agent_end.willRetry decided again after the extensions' handlers: one that changed retry.* makes them disagree",
		edits: [
			{
				find: "willRetry: retrying && !s.snapshot().context.abortRequested,",
				replace: "willRetry: willRetry(s, event.messages),",
			},
		],
		tests: ["test/session/retry.test.ts"],
	},
	{
		id: "PE02",
		file: "src/session/event-bridge.ts",
		description: "an extension's abort() in its agent_end handler no longer turns the listeners' willRetry false",
		edits: [{ find: "willRetry: retrying && !s.snapshot().context.abortRequested,", replace: "willRetry: retrying," }],
		tests: ["test/session/retry.test.ts"],
	},
	{
		id: "PE03",
		file: "src/errors.ts",
		description: "normalizeError passes on a value with SettleError's brand but no code or message as it is",
		edits: [
			{
				find: 'if (typeof error.code === "string" && typeof error.message === "string") return error;',
				replace: "return error;",
			},
		],
		tests: ["test/runtime/normalize-error.test.ts"],
	},
	{
		id: "PE04",
		file: "src/errors.ts",
		description: "a branded value's message is said to be missing though it has one",
		edits: [{ find: 'typeof fields.message === "string" ? "" : "message"', replace: '"message"' }],
		tests: ["test/runtime/normalize-error.test.ts"],
	},
	{
		id: "PD01",
		file: "src/llm/converse-messages.ts",
		description:
			"a tool result with no content at all goes to Bedrock as `content: []`: refused by Nemotron on every later request (pydantic-ai#6115)",
		edits: [{ find: "(inner.length > 0 && !inner.some(isBlankText))", replace: "!inner.some(isBlankText)" }],
		tests: ["test/pi-races/bedrock-alternating-roles.test.ts"],
	},
	{
		id: "PD02",
		file: "src/llm/converse-messages.ts",
		description:
			"Bedrock messages are joined after an extension's before_provider_request ran: the handler sees two user messages in a row, and the payload it returns goes unjoined, refused",
		edits: [
			{
				find: "\t\tacceptableMessages(payload);\n\t\treturn outer ? outer(payload, payloadModel) : undefined;",
				replace:
					"\t\tconst next = outer ? outer(payload, payloadModel) : undefined;\n\t\tacceptableMessages(payload);\n\t\treturn next;",
			},
		],
		tests: ["test/pi-races/bedrock-alternating-roles.test.ts"],
	},
	{
		id: "PH01",
		file: "src/llm/errors.ts",
		description:
			"vLLM's `the model's context length is only N tokens` (input plus max_tokens over the window) is a plain failure: no compaction, the turn ends in the error (opencode#17746)",
		edits: [{ find: "\t/context length is only [\\d,]+ tokens/i,\n", replace: "" }],
		tests: ["test/pi-races/overflow-wordings.test.ts"],
	},
	{
		id: "PH02",
		file: "src/llm/errors.ts",
		description:
			"Kimi's `total message size N exceeds limit M` (its request size cap) is a plain failure: no compaction, the long session stuck (kimi-code#1862)",
		edits: [{ find: "\t/total message size \\d+ exceeds limit \\d+/i,\n", replace: "" }],
		tests: ["test/pi-races/overflow-wordings.test.ts"],
	},
	{
		id: "PH03",
		file: "src/llm/errors.ts",
		description:
			"Kimi Code's 401 `k3-256k supports only 256K context.` is a refused key: no compaction, `settle -p` exits 4 asking for a key (kimi-code#2613)",
		edits: [{ find: "\t/supports only \\d+k? context\\b/i,\n", replace: "" }],
		tests: ["test/pi-races/overflow-as-401.test.ts"],
	},
	{
		id: "PH04",
		file: "src/llm/failures.ts",
		description:
			"a 401 whose text is a context overflow is typed NO_AUTH: a host tells the user to check a key that works (kimi-code#2613)",
		edits: [{ find: " &&\n\t\t!isOverflowErrorText(text);", replace: ";" }],
		tests: ["test/pi-races/overflow-as-401.test.ts"],
	},
	{
		id: "PH05",
		file: "src/llm/errors.ts",
		description:
			"a bodiless 429 is read as Cerebras' bodiless overflow: a rate limit compacts the conversation instead of waiting (pi#1038)",
		edits: [{ find: "/^4(?:00|13)\\s*(?:status code)?", replace: "/^4(?:00|13|29)\\s*(?:status code)?" }],
		tests: ["test/pi-races/rate-limit-not-overflow.test.ts"],
	},
	{
		id: "PH06",
		file: "src/compaction/summarize.ts",
		description:
			"a summary request asks for 0.8 of the reserve whatever the model's output cap: on a 1M window with reserveTokens 312500 it asks 250000 of a 128000-token model, refused, and every compaction fails (pi#4390)",
		edits: [
			{
				find: "return model.maxTokens > 0 ? Math.min(fromReserve, model.maxTokens) : fromReserve;",
				replace: "return fromReserve;",
			},
		],
		tests: ["test/pi-races/compaction-summary-output-cap.test.ts"],
	},
	{
		id: "PJ01",
		file: "src/llm/kimi-reasoning-content.ts",
		description:
			"Kimi's thinking streamed as `reasoning` (OpenCode Go) goes back under that name: refused, reasoning_content missing on the tool-call turn (pi#4251)",
		edits: [{ find: 'field !== undefined && field !== "reasoning_content"', replace: "false" }],
		tests: ["test/pi-races/kimi-reasoning-content.test.ts"],
	},
	{
		id: "PJ02",
		file: "src/llm/kimi-reasoning-content.ts",
		description:
			"a tool call Kimi made without thinking goes back without reasoning_content: refused on every later request (kilocode#5528)",
		edits: [{ find: 'message.reasoning_content = "";', replace: "" }],
		tests: ["test/pi-races/kimi-reasoning-content.test.ts"],
	},
	{
		id: "PJ03",
		file: "src/llm/kimi-reasoning-content.ts",
		description: "a Kimi model is not recognized: its tool-call turns go back without reasoning_content (pi#4251)",
		edits: [{ find: "/kimi/i.test(model.id)", replace: "/^moonshot/.test(model.provider)" }],
		tests: ["test/pi-races/kimi-reasoning-content.test.ts"],
	},
	{
		id: "PJ04",
		file: "src/session/provider-stream.ts",
		description:
			"a refusal of thinking off by a model that always reasons says nothing of the level or setting that fixes it (rakazo#114)",
		edits: [{ find: "if (offNote) text =", replace: "if (offNote) void" }],
		tests: ["test/pi-races/reasoning-mandatory-off.test.ts"],
	},
	{
		id: "PJ05",
		file: "src/session/provider-stream.ts",
		description: "the thinking-off note is added with thinking on too, naming a cause that is not the refusal's",
		edits: [
			{
				find: "if (reasoning || !model.reasoning || !REASONING_MANDATORY",
				replace: "if (!model.reasoning || !REASONING_MANDATORY",
			},
		],
		tests: ["test/pi-races/reasoning-mandatory-off.test.ts"],
	},
	{
		id: "PJ06",
		file: "src/llm/stateless-reasoning.ts",
		description:
			"a reasoning item an answer cut mid-reasoning left with nothing after it goes back: refused on every later request (continue#8933)",
		edits: [{ find: "\t\t} else if (!followed) continue;", replace: "\t\t}" }],
		tests: ["test/pi-races/responses-reasoning-alone.test.ts"],
	},
	{
		id: "PJ07",
		file: "src/llm/stateless-reasoning.ts",
		description:
			"the next prompt after a reasoning item counts as the item that followed it: the cut answer's reasoning goes back, refused (continue#8933)",
		edits: [
			{
				find: 'followed = item.type === "function_call" || (item.type === "message" && item.role === "assistant");',
				replace: 'followed = item.type === "function_call" || item.type === "message" || item.role === "user";',
			},
		],
		tests: ["test/pi-races/responses-reasoning-alone.test.ts"],
	},
	{
		id: "PJ08",
		file: "src/session/provider-stream.ts",
		description:
			"a Responses stream's response.incomplete goes to pi-ai as it came: the answer cut at max_output_tokens reads as finished, no warning (langchain#33840)",
		edits: [{ find: "\t\t\t\t? completedIncompleteStream", replace: "\t\t\t\t? undefined" }],
		tests: ["test/pi-races/answer-cut-at-output-cap.test.ts"],
	},
	{
		id: "PJ09",
		file: "src/llm/responses-incomplete.ts",
		description:
			"only the `event:` line of response.incomplete is renamed: the client reads the data's type, the cut stays unseen",
		edits: [{ find: 'if (data?.type !== "response.incomplete") return undefined;', replace: "return undefined;" }],
		tests: ["test/pi-races/answer-cut-at-output-cap.test.ts"],
	},
	{
		id: "PJ10",
		file: "src/llm/responses-incomplete.ts",
		description: "the line a chunk ended in the middle of is dropped, not carried to the next chunk: the stream breaks",
		edits: [{ find: "carry = Buffer.from(bytes.subarray(end));", replace: "carry = Buffer.alloc(0);" }],
		tests: ["test/llm/responses-incomplete.test.ts"],
	},
	{
		id: "PG01",
		file: "src/cli/host.ts",
		description:
			"`--session <id> --cwd <dir>` of a moved project's session ignores --cwd: refused with advice to pass --cwd (maka#2529)",
		edits: [
			{ find: "\t\t\tif (cwdGiven !== undefined && movedAway(elsewhere)) return elsewhere.path;\n", replace: "" },
		],
		tests: ["test/pi-races/moved-project-sessions.test.ts"],
	},
	{
		id: "PG02",
		file: "src/cli/host.ts",
		description:
			"`--session <id> --cwd <dir>` takes over another project's session whose folder still exists (claude-code#37954)",
		edits: [{ find: "others === 0 && !existsSync(cwd);", replace: "others === 0;" }],
		tests: ["test/pi-races/moved-project-sessions.test.ts"],
	},
	{
		id: "PG03",
		file: "src/cli/host.ts",
		description:
			"`settle --session` / `-c` of a newer-format session file tells a command-line user to open it with `{ readOnly: true }` (pi#9426)",
		edits: [{ find: "newerSessionFormatForCli(error) ?? errorMessage(error)", replace: "errorMessage(error)" }],
		tests: ["test/pi-races/newer-session-format.test.ts"],
	},
	{
		id: "PG04",
		file: "src/cli/interactive-commands.ts",
		description:
			"`/resume` and `/import` of a newer-format session file answer in the SDK's terms (`readOnly`) (pi#9426)",
		edits: [
			{
				find: '\tif (newer) throw new SettleError("INVALID_SESSION_FILE", newer, { details: (error as SettleError).details });\n',
				replace: "",
			},
		],
		tests: ["test/pi-races/newer-session-format.test.ts"],
	},
	{
		id: "PG05",
		file: "src/cli/session-picker.ts",
		description: "the `-r` pick of a newer-format session file answers in the SDK's terms (`readOnly`) (pi#9426)",
		edits: [{ find: "locked ?? newer ?? (error", replace: "locked ?? (error" }],
		tests: ["test/pi-races/newer-session-format.test.ts"],
	},
	{
		id: "PG06",
		file: "src/store/session-manager.ts",
		description:
			"`forkFrom` of a newer-format session file copies its entries under a v3 header (pi#9426): `settle --fork` of it exits 0",
		edits: [
			{
				find: "\t\tif (version > CURRENT_SESSION_VERSION) {\n\t\t\t// Its entries would go",
				replace: "\t\tif (version < 0) {\n\t\t\t// Its entries would go",
			},
		],
		tests: ["test/pi-races/newer-session-format.test.ts"],
	},
	{
		id: "PG07",
		file: "src/cli/interactive-commands.ts",
		description: "`/import` of a newer-format session file answers in the SDK's terms (`readOnly`) (pi#9426)",
		edits: [
			{
				find: 'rethrowInChatTerms(error, "so it was not imported");',
				replace:
					'const locked = sessionLockedInChat(error, "so it was not imported", "");\n\t\tif (locked) throw new SettleError("SESSION_LOCKED", locked);',
			},
		],
		tests: ["test/pi-races/newer-session-format.test.ts"],
	},
	{
		id: "PF01",
		file: "src/tools/edit-diff.ts",
		description:
			"edit's tolerant match folds each code point alone: a decomposed accent (NFD, as macOS tools save it) never equals the composed one a model types, and the edit is not found",
		edits: [{ find: "const COMBINING = /^[\\p{M}\\u1160-\\u11FF]$/u;", replace: "const COMBINING = /^$/u;" }],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "PF02",
		file: "src/tools/edit-diff.ts",
		description:
			"edit's fold joins combining marks but not Hangul jamo: Korean saved decomposed is not found by the syllables a model types",
		edits: [{ find: "const COMBINING = /^[\\p{M}\\u1160-\\u11FF]$/u;", replace: "const COMBINING = /^[\\p{M}]$/u;" }],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "PF03",
		file: "src/tools/edit-diff.ts",
		description:
			"edit never lets an oldText of whole lines match a last line without a final break: `hello\\n` is not found in a file holding `hello`",
		edits: [{ find: "const haystack = wholeLines && withBreak ?", replace: "const haystack = false ?" }],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "PF04",
		file: "src/tools/edit-diff.ts",
		description:
			"an edit matched through the added final break writes the newText's own final break: a file that ended without one now ends with one",
		edits: [{ find: "newText: throughAddedBreak && edit.newText", replace: "newText: false && edit.newText" }],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "PF05",
		file: "src/tools/edit-diff.ts",
		description:
			"a whitespace-only oldText ending in a line break matches the added final break: its newText is appended to a file that does not hold it",
		edits: [{ find: ' && edit.oldText.trim() !== ""', replace: "" }],
		tests: ["test/pi-races/edit-matching.test.ts"],
	},
	{
		id: "PF06",
		file: "src/tools/image.ts",
		description:
			"an ICO favicon saved as .png is not named: read refuses it as a generic binary file, saying nothing of an icon or how to convert it",
		edits: [{ find: 'if (icon) return "ICO";', replace: "" }],
		tests: ["test/pi-races/read-misnamed-images.test.ts"],
	},
	{
		id: "PF07",
		file: "src/tools/image.ts",
		description: "the ICO sniff skips the image count: a header with no image at all is named an icon",
		edits: [{ find: "(bytes[4] ?? 0) + (bytes[5] ?? 0) > 0", replace: "true" }],
		tests: ["test/tools/read.test.ts"],
	},
	{
		id: "PF08",
		file: "src/tools/edit.ts",
		description:
			"edit's `edits` sent as one replacement object, not an array of one, is left as it is: validation refuses the call and the model gives up on edit",
		edits: [{ find: "if (isOneReplacement(args.edits)) args.edits = [args.edits];", replace: "" }],
		tests: ["test/pi-races/edit-tool.test.ts"],
	},
	{
		id: "PF09",
		file: "src/tools/edit.ts",
		description:
			"edit's `edits` sent as a JSON string of one replacement object stays a string: validation refuses the call",
		edits: [{ find: "else if (isOneReplacement(parsed)) args.edits = [parsed];", replace: "" }],
		tests: ["test/pi-races/edit-tool.test.ts"],
	},
	{
		id: "PK01",
		description:
			"a tool_call / tool_result handler left behind after a configured abort grace is told pi's 1000 ms, not the grace the loop waited",
		file: "src/extensions/runtime.ts",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "${scope.graceMs ?? DEFAULT_TOOL_ABORT_GRACE_MS} ms of it)",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "${DEFAULT_TOOL_ABORT_GRACE_MS} ms of it)",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "PK02",
		description:
			"a turn_end / agent_before_settle handler that ignores the abort is reported as not returning within 1000 ms although the configured grace was waited",
		file: "src/session/boundaries.ts",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "handler did not return within ${graceMs} ms of the abort",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "handler did not return within ${DEFAULT_TOOL_ABORT_GRACE_MS} ms of the abort",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "PK03",
		description:
			"a boundary handler that ignores the abort is given up on after 1000 ms whatever agent.toolAbortGraceMs says",
		file: "src/session/boundaries.ts",
		edits: [
			{ find: "s.sleep(graceMs, settled.signal)", replace: "s.sleep(DEFAULT_TOOL_ABORT_GRACE_MS, settled.signal)" },
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "PK04",
		description: "a tool_call handler's scope is not told the agent's grace: left behind, it reads pi's 1000 ms",
		file: "src/session/agent-session.ts",
		edits: [
			{
				find: "(input) => rewrittenArgumentsProblem(context.tools, toolCall, input),\n\t\t\t\t\t{ signal, abandoned, graceMs: this.agent.toolAbortGraceMs },",
				replace:
					"(input) => rewrittenArgumentsProblem(context.tools, toolCall, input),\n\t\t\t\t\t{ signal, abandoned },",
			},
		],
		tests: ["test/pi-races/left-behind-handler.test.ts"],
	},
	{
		id: "PK05",
		description:
			"a per-call handler ctx takes assignments on the extension's shared context: what one tool_call / turn_end call sets is there in the next run's",
		file: "src/extensions/runner.ts",
		edits: [
			{
				find: "\t\t\t\twritten ??= new Map();\n\t\t\t\twritten.set(key, value);\n\t\t\t\treturn true;",
				replace: "\t\t\t\treturn Reflect.set(target, key, value);",
			},
		],
		tests: ["test/extensions/scoped-context-shape.test.ts"],
	},
	{
		id: "PK06",
		description:
			"what a handler assigned on its per-call ctx is readable but not listed: a spread copy of ctx drops it",
		file: "src/extensions/runner.ts",
		edits: [{ find: "return written ? [...new Set([...keys, ...written.keys()])] : keys;", replace: "return keys;" }],
		tests: ["test/extensions/scoped-context-shape.test.ts"],
	},
	{
		id: "PK07",
		description:
			"a Mistral model over Chat Completions (a gateway, compat.requiresMistralToolIds) gets no assistant turn between tool results and a steer: refused as \"Unexpected role 'user' after role 'tool'\" on every later request (zed#37021)",
		file: "src/llm/mistral-tool-turns.ts",
		edits: [
			{
				find: 'if (model.api !== "openai-completions" || !requiresMistralToolIds(model)) return false;',
				replace: "return false;",
			},
		],
		tests: ["test/pi-races/mistral-user-after-tool.test.ts"],
	},
	{
		id: "PK08",
		description:
			'Gemini requests go with two model turns in a row where a blank message the model answered was left out: refused, "Please ensure that multiturn requests alternate between user and model" (hermes-agent#55125)',
		file: "src/llm/pi-ai.ts",
		edits: [{ find: "\tonOptions(alternatingGeminiTurnsOptions),\n", replace: "" }],
		tests: ["test/pi-races/gemini-empty-text.test.ts"],
	},
	{
		id: "PK09",
		description: "model turns in a row in a Gemini payload are kept apart, not joined: the request does not alternate",
		file: "src/llm/gemini-empty-text.ts",
		edits: [
			{
				find: 'content?.role === "model" &&\n\t\t\tprevious?.role === "model" &&',
				replace: 'content?.role === "none" &&\n\t\t\tprevious?.role === "model" &&',
			},
		],
		tests: ["test/pi-races/gemini-empty-text.test.ts"],
	},
	{
		id: "PK10",
		description:
			"a blank last user message to Claude on Bedrock goes as a message holding only pi-ai's cache point: refused as an empty message (zed#59436)",
		file: "src/llm/converse-messages.ts",
		edits: [
			{ find: "\t\tif (previous?.role !== message?.role && isOnlyCachePoints(message)) continue;\n", replace: "" },
		],
		tests: ["test/pi-races/bedrock-alternating-roles.test.ts"],
	},
	{
		id: "PP01",
		file: "src/cli/main.ts",
		description:
			'print mode keeps a blank prompt argument: `settle -p " " "rename the helper"` sends a user message of spaces before the real one (prime-agent#605)',
		edits: [
			{
				find: "readsPrompt ? host.messages.filter((message) => !isBlank(message)) : host.messages",
				replace: "host.messages",
			},
		],
		tests: ["test/pi-races/print-blank-prompt.test.ts"],
	},
	{
		id: "PP02",
		file: "src/cli/main.ts",
		description:
			'only an empty prompt argument counts as none: `settle -p "  "` asks the model with a message of spaces and exits 0 (prime-agent#605)',
		edits: [{ find: 'return message.trim() === "";', replace: 'return message === "";' }],
		tests: ["test/pi-races/print-blank-prompt.test.ts"],
	},
	{
		id: "PP03",
		file: "src/cli/print-mode.ts",
		description:
			'print mode goes on after a failed step: `settle -p "step 1" "step 2"` with step 1 refused sends step 2 and exits 0 on its answer (KSP-CKAN/CKAN#2941)',
		edits: [
			{ find: "if (unanswered !== undefined || cancelledRetry !== undefined) break;", replace: "" },
			{ find: "if (answer !== answeredBefore && answer && isFailed(answer)) break;", replace: "" },
		],
		tests: ["test/pi-races/print-failed-step.test.ts"],
	},
	{
		id: "PN01",
		file: "src/session/agent-session.ts",
		description:
			"a triggerless custom message sent during a retry's backoff is held until the operation settles: the retried request never sees it, it is saved after the answer (pi steers it into the retry)",
		edits: [{ find: "\t\t\t\t!retryFollows(this.snapshot) &&\n", replace: "" }],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "PN02",
		file: "src/session/prompt-pipeline.ts",
		description:
			"sendCustomMessage({triggerTurn: true}) during a manual compaction or a tree navigation resolves but is parked in the Agent's steering queue: unlisted, unsaved, and slipped into whatever prompt comes next",
		edits: [{ find: "if (!s.isStreaming()) {\n\t\t\tconst manual", replace: "if (false) {\n\t\t\tconst manual" }],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "PN03",
		file: "src/session/prompt-pipeline.ts",
		description:
			"a triggered custom message refused during a tree navigation says compaction is in progress (the wrong thing to wait for)",
		edits: [
			{
				find: 'const manual = input.phase === "compacting" && input.compactionReason === "manual";',
				replace: "const manual = true;",
			},
		],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "PN04",
		file: "src/session/operation-actors.ts",
		description:
			"a prompt aborted during its preflight (a slow before_agent_start) keeps the next-turn messages it took: its run never starts, and they are in no request, no log, and no longer listed",
		edits: [{ find: "s.queues.restoreNextTurn(nextTurn);", replace: "" }],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "PN05",
		file: "src/session/bash-runner.ts",
		description:
			"a `!` result recorded while a tree navigation's summary runs is written at once: it stays on the branch being left, gone from the context navigated to",
		edits: [{ find: "if (holdsSideMessages(this.s))", replace: "if (this.s.isStreaming())" }],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "PN06",
		file: "src/session/agent-session.ts",
		description:
			"a custom message sent while a tree navigation's summary runs is appended at once: it stays on the branch being left, gone from the context navigated to",
		edits: [
			{
				find: "if (holdsSideMessages(this.internals)) this.queues.holdCustom(custom);",
				replace: "if (false) this.queues.holdCustom(custom);",
			},
		],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "PN07",
		file: "src/session/tree-navigation.ts",
		description:
			"what was held while a tree navigation ran is not written when it ends: the `!` result and the custom message wait, unsaved, for the next prompt",
		edits: [{ find: "\t\t\ts.queues.flushPendingBash();\n\t\t\ts.queues.flushPendingCustom();\n", replace: "" }],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "PQ01",
		file: "src/llm/kimi-reasoning-content.ts",
		description:
			"with models.json's requiresReasoningContentOnAssistantMessages, Kimi's thinking stays under `reasoning` beside pi-ai's empty reasoning_content: its earlier thinking is lost (pi#5309)",
		edits: [{ find: '=== "string" && message[name] !== ""', replace: '=== "string"' }],
		tests: ["test/pi-races/kimi-reasoning-content.test.ts"],
	},
	{
		id: "PQ02",
		file: "src/extensions/runner.ts",
		description:
			"a per-call handler ctx answers a delete of a name the call never assigned with false: `delete ctx.scratch` throws a TypeError in the handler, unlike pi's plain object",
		edits: [
			{
				find: "\t\t\t\twritten?.delete(key);\n\t\t\t\treturn true;",
				replace: "\t\t\t\treturn written?.delete(key) === true;",
			},
		],
		tests: ["test/extensions/scoped-context-shape.test.ts"],
	},
	{
		id: "PR01",
		description:
			"a skill's `$ARGUMENTS` left as written: the model gets the placeholder, not what the user typed (claude-code#46922)",
		file: "src/resources/skills.ts",
		edits: [{ find: "\tbody = substituteSkillArguments(body, args);\n", replace: "" }],
		tests: ["test/pi-races/skills-arguments.test.ts"],
	},
	{
		id: "PR02",
		description:
			"arguments placed in a skill by `$ARGUMENTS` are repeated below the skill block as well (claude-code#46922)",
		file: "src/resources/skills.ts",
		edits: [{ find: "args && !placed ?", replace: "args ?" }],
		tests: ["test/pi-races/skills-arguments.test.ts"],
	},
	{
		id: "PR03",
		description:
			"an extension command registered as `/deploy` keeps its slash: `/deploy prod` goes to the model, only `//deploy` runs it (agent-afk#1654)",
		file: "src/extensions/runtime.ts",
		edits: [{ find: 'given.replace(/^\\/+/, "")', replace: "given" }],
		tests: ["test/pi-races/extension-command-names.test.ts"],
	},
	{
		id: "PR04",
		description:
			"`/skill:<folder>` for a skill named otherwise in its front matter goes to the model as typed (agent-skills#330)",
		file: "src/resources/skills.ts",
		edits: [{ find: " ?? skillInFolder(skills, name)", replace: "" }],
		tests: ["test/pi-races/skills-folder-names.test.ts"],
	},
	{
		id: "PR05",
		description: "a skill in a folder of that name wins over the skill that has the name (agent-skills#330)",
		file: "src/resources/skills.ts",
		edits: [
			{
				find: "return skills.find((candidate) => candidate.name === name) ?? skillInFolder(skills, name);",
				replace: "return skillInFolder(skills, name) ?? skills.find((candidate) => candidate.name === name);",
			},
		],
		tests: ["test/pi-races/skills-folder-names.test.ts"],
	},
	{
		id: "PR06",
		description: "`settle -i` calls `/skill:<folder>` of a skill named otherwise an unknown command (agent-skills#330)",
		file: "src/cli/interactive-mode.ts",
		edits: [{ find: " &&\n\t\t\t!reachesSkill(line, session())", replace: "" }],
		tests: ["test/pi-races/skills-folder-names.test.ts"],
	},
	{
		id: "PS01",
		description:
			"`!` commands no longer redraw lines: a progress bar's `\\r` frames reach the model and the session file glued into one line (copilot-cli#3191)",
		file: "src/session/bash-runner.ts",
		edits: [{ find: "\t\t\tredrawCarriageReturns: true,\n", replace: "" }],
		tests: ["test/pi-races/bash-user-command-output.test.ts"],
	},
	{
		id: "PS02",
		description:
			"control characters are dropped before the redraw: a `!` progress bar's `\\r` is gone before it is read, its frames glued (copilot-cli#3191)",
		file: "src/tools/output-accumulator.ts",
		edits: [
			{
				find: "const redrawnPlain = this.redrawCarriageReturns ? redrawLines(plain) : plain;",
				replace:
					"const redrawnPlain = this.redrawCarriageReturns ? redrawLines(this.dropControlCharacters ? withoutControlCharacters(plain) : plain) : plain;",
			},
		],
		tests: ["test/pi-races/bash-user-command-output.test.ts"],
	},
	{
		id: "PS03",
		description:
			"a `!` command's output goes to the model in a fixed three-backtick fence: a fence in the output (`cat README.md`) closes it early (getspecstory#241)",
		file: "src/session/convert-to-llm.ts",
		edits: [{ find: 'return "`".repeat(longest + 1);', replace: 'return "```";' }],
		tests: ["test/pi-races/bash-user-command-output.test.ts"],
	},
	{
		id: "PS04",
		description:
			"output with single backticks only gets a fence one longer than them (two backticks): no fence at all in Markdown",
		file: "src/session/convert-to-llm.ts",
		edits: [{ find: '\tif (!output.includes("```")) return "```";\n', replace: "" }],
		tests: ["test/pi-races/bash-user-command-output.test.ts"],
	},
	{
		id: "PS05",
		description:
			"a `!` output cut to its tail with no full-output file (an unusable temp folder) reaches the model with nothing saying it was cut (antirez/ds4#680)",
		file: "src/session/convert-to-llm.ts",
		edits: [{ find: "\t} else if (message.truncated) {", replace: "\t} else if (message.truncated && false) {" }],
		tests: ["test/pi-races/bash-user-command-output.test.ts"],
	},
	{
		id: "PT01",
		description:
			"Codex's \"We're currently experiencing high demand\" (its `server_is_overloaded` code dropped by pi-ai) is not retried: the turn fails at once (codex#6761)",
		file: "src/llm/errors.ts",
		edits: [{ find: "\t/experiencing (?:unusually )?high demand/i,\n", replace: "" }],
		tests: ["test/pi-races/retry-codex-failures.test.ts"],
	},
	{
		id: "PT02",
		description:
			'a stream cut with "Premature close" (or "Premature end") is not retried: the turn fails at once (Roo-Code#2822)',
		file: "src/llm/errors.ts",
		edits: [
			{
				find: "return TIMEOUT_PATTERNS.some(matches) || CUT_BODY_PATTERNS.some(matches);",
				replace: "return TIMEOUT_PATTERNS.some(matches);",
			},
		],
		tests: ["test/pi-races/retry-premature-close.test.ts"],
	},
	{
		id: "PT03",
		description:
			"a provider's 400 refusal that merely names a premature close is retried as a cut stream: the refused request is sent again (Roo-Code#2822)",
		file: "src/llm/errors.ts",
		edits: [
			{
				find: "if (REFUSAL_STATUS.test(errorMessage)) return false;",
				replace:
					"if (REFUSAL_STATUS.test(errorMessage)) return CUT_BODY_PATTERNS.some((pattern) => pattern.test(errorMessage));",
			},
		],
		tests: ["test/pi-races/retry-premature-close.test.ts"],
	},
	{
		id: "PT04",
		description:
			'Bedrock\'s mid-stream modelStreamErrorException ("… Retry your request.") is not retried: the turn ends with the fault (oh-my-pi#12449)',
		file: "src/llm/errors.ts",
		edits: [{ find: "\t/^model stream error:/i,\n", replace: "" }],
		tests: ["test/pi-races/retry-bedrock-stream-faults.test.ts"],
	},
	{
		id: "PT05",
		description: "Groq's 498 (flex tier at capacity) is not retried: the turn fails at once (laravel/ai#925)",
		file: "src/llm/errors.ts",
		edits: [{ find: "\t/^498\\b/,\n", replace: "" }],
		tests: ["test/pi-races/retry-capacity.test.ts"],
	},
	{
		id: "PT06",
		description: "498 read anywhere in the text: a 400 that names 498 (a limit) is retried (laravel/ai#925)",
		file: "src/llm/errors.ts",
		edits: [{ find: "\t/^498\\b/,\n", replace: "\t/\\b498\\b/,\n" }],
		tests: ["test/pi-races/retry-capacity.test.ts"],
	},
	{
		id: "PT07",
		description:
			'Grok\'s "The model is currently at capacity due to high demand" in an accepted stream is not retried (opengeni#1643)',
		file: "src/llm/errors.ts",
		edits: [{ find: "\t/\\bcurrently at capacity\\b/i,\n", replace: "" }],
		tests: ["test/pi-races/retry-capacity.test.ts"],
	},
	{
		id: "PX01",
		description:
			"settle -c continues a newer session file that holds no message (a chat opened on an empty file and left) over an older conversation (oh-my-pi#12538)",
		file: "src/store/discovery.ts",
		edits: [{ find: "		if (!holdsMessage(read.contents.entries)) {", replace: "		if (false) {" }],
		tests: ["test/pi-races/session-folder-races.test.ts"],
	},
	{
		id: "PX02",
		description:
			"settle exits 1 on two extensions registering one tool name while its message says the first is used, as if it went on",
		file: "src/cli/host.ts",
		edits: [
			{
				find: '": settle does not start with both; rename one"',
				replace: '": the first is used; rename one"',
			},
		],
		tests: ["test/cli/extension-conflicts.test.ts"],
	},
	{
		id: "PX03",
		description:
			"`settle -i` takes `  /review a.ts` for the template, then sends it as typed: the model gets the slash text (claude-code#82846)",
		file: "src/cli/interactive-mode.ts",
		edits: [{ find: "await submit(command ? line.trim() : line, followUp", replace: "await submit(line, followUp" }],
		tests: ["test/pi-races/indented-slash-commands.test.ts"],
	},
	{
		id: "PX04",
		description:
			"`/skill:Code Review a.ts` of a skill named `Code Review` goes to the model as typed: the name ends at its space (claude-code#88814)",
		file: "src/resources/skills.ts",
		edits: [
			{
				find: "return spaced ? { skill: spaced, args: afterPrefix.slice(spaced.name.length).trim() } : undefined;",
				replace: "return undefined;",
			},
		],
		tests: ["test/pi-races/skills-spaced-names.test.ts"],
	},
	{
		id: "PX05",
		description:
			"`/skill:Code Review Strict` runs `Code Review` with the argument `Strict`: the shorter name with spaces wins",
		file: "src/resources/skills.ts",
		edits: [{ find: "name.length > spaced.name.length", replace: "name.length < spaced.name.length" }],
		tests: ["test/pi-races/skills-spaced-names.test.ts"],
	},
	{
		id: "PX06",
		description:
			"a skill named by the first word is passed over when words follow: `/skill:Code Review a.ts` runs `Code Review` although a skill is named `Code`",
		file: "src/resources/skills.ts",
		edits: [
			{
				find: 'if (skill) return { skill, args: space === -1 ? "" : afterPrefix.slice(space + 1).trim() };',
				replace: 'if (skill && !/\\s/.test(afterPrefix)) return { skill, args: "" };',
			},
		],
		tests: ["test/pi-races/skills-spaced-names.test.ts"],
	},
	{
		id: "PX07",
		description:
			"`settle -i` calls `/skill:Code Review a.ts` of a skill named `Code Review` an unknown command (claude-code#88814)",
		file: "src/cli/interactive-mode.ts",
		edits: [
			{
				find: "skillInvocation(text.slice(7), session",
				replace: "skillInvocation(text.slice(7).split(/\\s/)[0]!, session",
			},
		],
		tests: ["test/pi-races/skills-spaced-names.test.ts"],
	},
	{
		id: "PU01",
		description:
			"`--model <bare id>` several keyed providers serve refuses though the settings' defaultProvider is one of them (pi#1419, botmux#1003)",
		file: "src/runtime/sdk.ts",
		edits: [{ find: "\tif (preferred) return preferred;\n", replace: "" }],
		tests: ["test/pi-races/model-shared-ids.test.ts"],
	},
	{
		id: "PU02",
		description:
			"a scope's bare id several providers serve takes the first listed, not the settings' defaultProvider's (pi#1419)",
		file: "src/runtime/model-scope.ts",
		edits: [
			{
				find: "return byId.length === 1 ? byId[0] : preferredAmong(byId, preferredProvider);",
				replace: "return byId.length === 1 ? byId[0] : undefined;",
			},
		],
		tests: ["test/pi-races/model-shared-ids.test.ts"],
	},
	{
		id: "PU03",
		description:
			"the runtime factory resolves `enabledModels` / `--models` without the settings' defaultProvider (pi#1419)",
		file: "src/runtime/factory.ts",
		edits: [
			{
				find: "services.modelRuntime.getAvailable(), preferredProvider)",
				replace: "services.modelRuntime.getAvailable())",
			},
		],
		tests: ["test/pi-races/model-shared-ids.test.ts"],
	},
	{
		id: "PU04",
		description: "a `!command` header in models.json is dropped without a warning (pi#909)",
		file: "src/runtime/models-json.ts",
		edits: [
			{
				find: 'headersWhere(entry, headerModels, (value) => value.startsWith("!"))',
				replace: 'headersWhere(entry, headerModels, (value) => value.startsWith("!!"))',
			},
		],
		tests: ["test/pi-races/models-json-unapplied.test.ts"],
	},
	{
		id: "PU05",
		description:
			"a model entry's `!command` header in models.json is dropped without a warning, only the provider's warned about (pi#909)",
		file: "src/runtime/models-json.ts",
		edits: [
			{
				find: 'headersWhere(entry, headerModels, (value) => value.startsWith("!"))',
				replace: 'headersWhere(entry, Object.values(modelOverrides ?? {}), (value) => value.startsWith("!"))',
			},
		],
		tests: ["test/pi-races/models-json-unapplied.test.ts"],
	},
	{
		id: "PU06",
		description: "`--model`'s not-found error says nothing of a models.json that was not read (pi#5418)",
		file: "src/runtime/sdk.ts",
		edits: [
			{
				find: "const unread = modelsFileError(modelRuntime);",
				replace: "const unread: string | undefined = undefined;",
			},
		],
		tests: ["test/pi-races/models-json-unapplied.test.ts"],
	},
	{
		id: "PV01",
		description:
			"bytes that are not UTF-8 are decoded to U+FFFD without a word again: an AGENTS.md, SYSTEM.md or APPEND_SYSTEM.md in Windows-1252 or GBK gives no warning (codex#23223)",
		file: "src/tools/text-encoding.ts",
		edits: [
			{
				find: 'return { text: new TextDecoder("utf-8").decode(bytes), notUtf8: true };',
				replace: 'return { text: new TextDecoder("utf-8").decode(bytes) };',
			},
		],
		tests: ["test/pi-races/prompt-files-not-utf8.test.ts"],
	},
	{
		id: "PV02",
		description:
			"a context file that is not UTF-8 is sent without a warning: the user never learns why the rules read wrong (codex#23223)",
		file: "src/resources/context-files.ts",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "readPromptTextFile(path, `context file ${name}`, diagnostics)",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "readPromptTextFile(path, `context file ${name}`, [])",
			},
		],
		tests: ["test/pi-races/prompt-files-not-utf8.test.ts"],
	},
	{
		id: "PV03",
		description: "a SYSTEM.md or APPEND_SYSTEM.md that is not UTF-8 is sent without a warning (codex#23223)",
		file: "src/resources/resource-loader.ts",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "readPromptTextFile(path, `${what} file`, diagnostics)",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				replace: "readPromptTextFile(path, `${what} file`, [])",
			},
		],
		tests: ["test/pi-races/prompt-files-not-utf8.test.ts"],
	},
	{
		id: "PV04",
		description:
			"an @folder argument is read as a file again: a raw EISDIR, nothing says it is a folder or how to have its files read (gemini-cli#4028)",
		file: "src/cli/main.ts",
		edits: [
			{
				find: "if (found.isDirectory()) throw new CliError(folderFileArgument(path, absolute), EXIT_USAGE);",
				replace: "",
			},
		],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "PV05",
		description:
			"an @file that is not UTF-8 reaches the model as U+FFFD with no note again: it cannot tell the accents are lost, nor how to read them (claude-code#9019)",
		file: "src/cli/main.ts",
		edits: [
			{
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
				find: "? `${notUtf8FileArgumentNote(absolute)}\\n`",
				replace: '? ""',
			},
		],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "PV06",
		description: "an @file that is not UTF-8 is sent without a warning to the user (claude-code#9019)",
		file: "src/cli/main.ts",
		edits: [{ find: "if (notUtf8) out.stderr(notUtf8FileArgumentWarning(path, absolute));", replace: "" }],
		tests: ["test/pi-races/cli-files.test.ts"],
	},
	{
		id: "PW01",
		description:
			"a custom message sent without triggerTurn during the threshold compaction after a run is held to settle, never answered (pi steers it and continues)",
		file: "src/session/agent-session.ts",
		edits: [{ find: ' &&\n\t\t\t\t!this.snapshot.matches("compacting");', replace: ";" }],
		tests: ["test/pi-races/compaction-queue.test.ts"],
	},
	{
		id: "PW02",
		description: "dispose() mid-run drops the held `!` bash results and custom messages instead of writing them",
		file: "src/session/agent-session.ts",
		edits: [{ find: "\t\tthis.messagesAtDispose.push(...this.queues.writeHeldAtDispose());\n", replace: "" }],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "PW03",
		description: "dispose() writes the held custom messages but not the held bash results",
		file: "src/session/queues.ts",
		edits: [
			{
				find: "const held = [...this.pendingBash, ...this.pendingCustom];",
				replace: "const held = [...this.pendingCustom];",
			},
		],
		tests: ["test/session/queues.test.ts"],
	},
	{
		id: "PW04",
		description:
			"RpcClient's waitForIdle / collectEvents reject at `timeout` after the call however many events flow (pi's fixed timer), not after that long without an event",
		file: "src/rpc/client.ts",
		edits: [{ find: "\t\t\t\t\ttimer?.refresh();\n", replace: "" }],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "PW05",
		description:
			"Anthropic's 429 `Extra usage is required for long context requests` is retried as a rate limit (hermes-agent#4747) instead of compacted",
		file: "src/llm/errors.ts",
		edits: [{ find: "\tif (LONG_CONTEXT_PLAN_REFUSAL.test(errorMessage)) return true;\n", replace: "" }],
		tests: ["test/llm/wire/anthropic-errors.test.ts", "test/recovery/errors.test.ts"],
	},
	{
		id: "PW06",
		description:
			"a request carries every image of the history however many bytes (pi#1936: 413 request_too_large, and compaction keeps the recent screenshots)",
		file: "src/session/images.ts",
		edits: [{ find: "images <= max && bytes <= maxBytes &&", replace: "images <= max &&" }],
		tests: ["test/pi-races/image-limits.test.ts"],
	},
	{
		id: "PW07",
		description:
			"past the request's image byte budget the older images are still sent (only the count cap replaces them)",
		file: "src/session/images.ts",
		edits: [{ find: "if (kept > keepWithinBytes) {", replace: "if (false) {" }],
		tests: ["test/pi-races/image-limits.test.ts"],
	},
	{
		id: "PZ01",
		description:
			"past the request's image byte budget the oldest go one image at a time: each new screenshot rewrites the cached prefix",
		file: "src/session/images.ts",
		edits: [
			{
				find: "const drop = Math.ceil((total - maxBytes) / batch) * batch;",
				replace: "const drop = total - maxBytes;",
			},
		],
		tests: ["test/pi-races/image-limits.test.ts"],
	},
	{
		id: "PZ02",
		description: "the byte budget counts the images the count cap already replaced, so fewer of the newest are sent",
		file: "src/session/images.ts",
		edits: [
			{
				find: "newestWithinBytes(sizes.slice(total - keep), maxBytes)",
				replace: "newestWithinBytes(sizes, maxBytes) - (total - keep)",
			},
		],
		tests: ["test/pi-races/image-limits.test.ts"],
	},
	{
		id: "PZ03",
		description:
			"settle -c passes over a newer session where the person only ran a `!` command, continuing an older one (oh-my-pi#12538)",
		file: "src/store/discovery.ts",
		edits: [
			{
				find: '(entry.type === "message" && entry.message.role === "bashExecution"),',
				replace: "false,",
			},
		],
		tests: ["test/pi-races/session-folder-races.test.ts"],
	},
	{
		id: "QB01",
		description:
			"export page: an answer's usage line leaves out its cache-write tokens (its cost no longer accounted for)",
		file: "src/export/page.ts",
		edits: [{ find: '(num(u.cacheWrite) ? ", " + fmtTokens(u.cacheWrite) + " cache write" : "") + ', replace: "" }],
		tests: ["test/pi-races/usage-in-export.test.ts"],
	},
	{
		id: "QB02",
		description:
			"a summarization answer's usage is not reported: a failed compaction's billed answers vanish from the totals",
		file: "src/compaction/request.ts",
		edits: [
			{
				find: 'if (final.usage && final.stopReason !== "error") options.onAnswerUsage?.(final.usage);',
				replace: "",
			},
		],
		tests: ["test/pi-races/usage-failed-compaction.test.ts"],
	},
	{
		id: "QB03",
		description: "an error summarization answer's usage is taken as billed: a refused compaction writes a usage entry",
		file: "src/compaction/request.ts",
		edits: [{ find: 'if (final.usage && final.stopReason !== "error")', replace: "if (final.usage)" }],
		tests: ["test/session/summarization-retry.test.ts"],
	},
	{
		id: "QB04",
		description: "a failed compaction's summary usage is not recorded",
		file: "src/session/compaction-runner.ts",
		edits: [{ find: 'await recordUnsavedSummaryUsage(s, "compaction", job.model, billed, note);', replace: "" }],
		tests: ["test/pi-races/usage-failed-compaction.test.ts", "test/pi-races/compaction-summary-cut.test.ts"],
	},
	{
		id: "QA01",
		description:
			"a command holding backticks is written in single backticks again: ``Ran `echo `date`` `` closes early and the rest reads as plain text",
		file: "src/session/convert-to-llm.ts",
		edits: [
			{
				find: "inlineCode(message.command)",
				replace: '"`" + message.command + "`"',
			},
		],
		tests: ["test/recovery/convert-to-llm.test.ts", "test/pi-races/bash-user-command-output.test.ts"],
	},
	{
		id: "QA02",
		description:
			"the inline fence of a command is two backticks whatever runs it holds: a command holding `` closes it early",
		file: "src/session/convert-to-llm.ts",
		edits: [{ find: "while (runs.has(length)) length++;", replace: "length = 2;" }],
		tests: ["test/recovery/convert-to-llm.test.ts"],
	},
	{
		id: "QA03",
		description:
			"a command starting or ending with a backtick gets no padding space: its backtick merges into the fence",
		file: "src/session/convert-to-llm.ts",
		edits: [{ find: 'text.startsWith("`") || text.endsWith("`") ? " " : ""', replace: '""' }],
		tests: ["test/recovery/convert-to-llm.test.ts"],
	},
	{
		id: "QA04",
		description:
			"an executeBash stopped by its timeout is recorded as cancelled only: the model reads (command cancelled)",
		file: "src/session/bash-runner.ts",
		edits: [
			{
				find: "if (timedOut && options.timeout !== undefined) result.timedOutAfter = options.timeout;",
				replace: "",
			},
		],
		tests: ["test/lifetime/session-dispose.test.ts"],
	},
	{
		id: "QA05",
		description: "a timed-out bash result's timedOutAfter is not copied into the recorded message",
		file: "src/session/bash-runner.ts",
		edits: [
			{
				find: "if (result.timedOutAfter !== undefined) message.timedOutAfter = result.timedOutAfter;",
				replace: "",
			},
		],
		tests: ["test/lifetime/session-dispose.test.ts"],
	},
	{
		id: "QA06",
		description: "a bash message that timed out is told to the model as (command cancelled)",
		file: "src/session/convert-to-llm.ts",
		edits: [{ find: "if (message.timedOutAfter !== undefined) {", replace: "if (false) {" }],
		tests: ["test/recovery/convert-to-llm.test.ts", "test/lifetime/session-dispose.test.ts"],
	},
	{
		id: "QA07",
		description:
			'recordBashResult takes a timedOutAfter that is no number ("5"): the model reads "timed out after 5" from a string',
		file: "src/session/input-check.ts",
		edits: [
			{
				find: '!(typeof timedOutAfter === "number" && timedOutAfter > 0)',
				replace: "false",
			},
		],
		tests: ["test/bad-input/message-shapes.test.ts"],
	},
	{
		id: "QA08",
		description:
			"a modelOverrides header holding a !command is left out of requests without a warning (the provider's and models' headers are warned)",
		file: "src/runtime/models-json.ts",
		edits: [
			{
				find: 'headersWhere(entry, headerModels, (value) => value.startsWith("!"))',
				replace: 'headersWhere(entry, listed, (value) => value.startsWith("!"))',
			},
		],
		tests: ["test/pi-races/models-json-unapplied.test.ts"],
	},
	{
		id: "QA09",
		description: "a skill file that is not UTF-8 loads with U+FFFD and no warning",
		file: "src/resources/skills.ts",
		edits: [
			{
				find: 'raw = readPromptTextFile(filePath, "skill file", diagnostics);',
				replace: "raw = readTextFile(filePath);",
			},
		],
		tests: ["test/pi-races/prompt-files-not-utf8.test.ts"],
	},
	{
		id: "QA10",
		description: "a prompt template that is not UTF-8 loads with U+FFFD and no warning",
		file: "src/resources/prompt-templates.ts",
		edits: [
			{
				find: 'raw = readPromptTextFile(filePath, "prompt template", diagnostics);',
				replace: "raw = readTextFile(filePath);",
			},
		],
		tests: ["test/pi-races/prompt-files-not-utf8.test.ts"],
	},
	{
		id: "QA11",
		description:
			"SessionManager.continueRecent opens the newest file by mtime again: a header-only file or one whose mtime a copy bumped is taken over the session settle -c continues",
		file: "src/store/session-manager.ts",
		edits: [
			{ find: "\tlatestActiveSession,\n", replace: "\tlatestActiveSession,\n\treadSessionHeader,\n" },
			{ find: "\topenSync,\n", replace: "\topenSync,\n\treaddirSync,\n" },
			{
				find: "return recent ? SessionManager.openReadAhead(recent.read, dir, cwd) : SessionManager.create(cwd, dir);",
				replace:
					"const newest = readdirSync(dir).filter((name) => name.endsWith('.jsonl')).map((name) => join(dir, name)).filter((path) => readSessionHeader(path)?.cwd === resolve(cwd)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];\n\t\treturn recent && newest ? SessionManager.open(newest, dir, cwd) : SessionManager.create(cwd, dir);",
			},
		],
		tests: ["test/pi-races/session-folder-races.test.ts", "test/store/pi-differential-files.property.test.ts"],
	},
	{
		id: "QC01",
		description:
			"read of an empty file returns empty text again: a Chat Completions model is sent pi-ai's '(see attached image)'",
		file: "src/tools/read.ts",
		edits: [
			{
				find: "if (ended && (headBuffer.length === 0 || headBuffer.equals(UTF8_BOM))) window.empty = true;",
				replace: "",
			},
		],
		tests: ["test/pi-races/read-empty-files.test.ts"],
	},
	{
		id: "QC02",
		description:
			"read of an empty file at an offset past its end is refused as 'beyond end of file (1 lines total)' again",
		file: "src/tools/read.ts",
		edits: [
			{ find: "if (start >= window.totalLines && !window.empty) {", replace: "if (start >= window.totalLines) {" },
		],
		tests: ["test/pi-races/read-empty-files.test.ts"],
	},
	{
		id: "QC03",
		description: "edit's 'Found N occurrences' error names no lines again",
		file: "src/tools/edit-diff.ts",
		edits: [{ find: "\t\t\twhere,\n", replace: '\t\t\t"",\n' }],
		tests: ["test/pi-races/edit-ambiguous-lines.test.ts", "test/tools/edit.test.ts"],
	},
	{
		id: "QC04",
		description: "a tolerantly matched ambiguous oldText names lines from offsets into the folded text, not the file",
		file: "src/tools/edit-diff.ts",
		edits: [
			{
				find: "(at) => haystack.sourceStart[at] ?? content.length);",
				replace: "(at) => at);",
			},
		],
		tests: ["test/pi-races/edit-ambiguous-lines.test.ts"],
	},
	{
		id: "QC05",
		description: "edit's ambiguous error lists every line of a text found many times, however many",
		file: "src/tools/edit-diff.ts",
		edits: [{ find: "const MAX_LISTED_LINES = 10;", replace: "const MAX_LISTED_LINES = 100;" }],
		tests: ["test/pi-races/edit-ambiguous-lines.test.ts"],
	},
	{
		id: "QC06",
		description: "edit's ambiguous error counts lines from 0: each named line is one too low",
		file: "src/tools/edit-diff.ts",
		edits: [{ find: "\tlet line = 1;\n\t// The first break", replace: "\tlet line = 0;\n\t// The first break" }],
		tests: ["test/pi-races/edit-ambiguous-lines.test.ts", "test/tools/edit.test.ts"],
	},
	{
		id: "QD01",
		file: "src/extensions/runner.ts",
		description:
			"a context result the model reads none of is never ignored: pi-lens#13's guidance-only list (role system) replaces the conversation and the prompt never reaches the model",
		edits: [
			{
				find: "if (value.messages.length > 0 && !value.messages.some(isSentToModel) && current.some(isSentToModel)) {",
				replace:
					"if (value.messages.length < 0 && !value.messages.some(isSentToModel) && current.some(isSentToModel)) {",
			},
		],
		tests: ["test/pi-races/extension-context-rewrites.test.ts"],
	},
	{
		id: "QD02",
		file: "src/cli/termination.ts",
		description:
			"a signal while a session_start handler never returns ends settle -p without naming it (gentle-pi#1007)",
		edits: [{ find: "\t\tif (starting) process.stderr.write(starting);\n", replace: "" }],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "QD03",
		file: "src/cli/interactive-mode.ts",
		description:
			"settle -i's second Ctrl+C before the first prompt waits for a session_start handler that never returns (gentle-pi#1007)",
		edits: [
			{
				find: "DOUBLE_INTERRUPT_MS && !started) {",
				replace: "DOUBLE_INTERRUPT_MS && !started && closing) {",
			},
		],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "QD04",
		file: "src/extensions/runtime.ts",
		description:
			"a refused pi.sendMessage is reported without the sender: the error line reads <runtime> and names no extension (oh-my-pi#4345)",
		edits: [
			{
				find: 'runtime.reportError({ ...errorRecord("<runtime>", event, error), sentBy: extension.path });',
				replace: 'runtime.reportError(errorRecord("<runtime>", event, error));',
			},
		],
		tests: ["test/pi-races/extension-send-message-shapes.test.ts"],
	},
	{
		id: "QG01",
		file: "src/runtime/sdk.ts",
		description:
			"each created session adds its own process 'exit' listener (claude-code#45782: eleven at once print MaxListenersExceededWarning); the listener check by identity must still see it",
		edits: [
			{
				find: "\tconst invalid = createOptionsError(options);",
				replace: '\tprocess.on("exit", () => {});\n\tconst invalid = createOptionsError(options);',
			},
		],
		tests: ["test/pi-races/sdk-hosts.test.ts"],
	},
	{
		id: "QE01",
		description:
			"settle -p says nothing when a retry is cancelled in its backoff (gemini-cli#11223): stderr ends on 'Retrying in 60.0 s'",
		file: "src/cli/print-mode.ts",
		edits: [
			{ find: "event.finalError === RETRY_CANCELLED &&", replace: "event.finalError === RETRY_CANCELLED && false &&" },
		],
		tests: ["test/pi-races/print-interrupt.test.ts"],
	},
	{
		id: "QE02",
		description:
			"settle -p says a retry cancelled while its retried answer streamed twice ('Aborted after 1 retry attempt.' and 'Request was aborted')",
		file: "src/cli/print-mode.ts",
		edits: [{ find: 'session.messages.at(-1)?.role !== "assistant"', replace: "true" }],
		tests: ["test/pi-races/print-interrupt.test.ts"],
	},
	{
		id: "QE03",
		description:
			"settle -p stopped in a retry's backoff exits 0 and prints the text before the failed request as the answer (antigravity-cli#1018)",
		file: "src/cli/print-mode.ts",
		edits: [{ find: "if (cancelledRetry !== undefined) return EXIT_FAILURE;", replace: "" }],
		tests: ["test/pi-races/print-interrupt.test.ts"],
	},
	{
		id: "QF01",
		description:
			"The HTML export labels a `!` command that timed out as cancelled again, while the model read 'Command timed out after N seconds'",
		file: "src/export/page.ts",
		edits: [{ find: 'typeof m.timedOutAfter === "number" ?', replace: "false ?" }],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "QF02",
		description:
			"A failed branch summary's billed summary answer is dropped again: /session's tokens and spent leave out what the failed /tree summary cost",
		file: "src/session/tree-navigation.ts",
		edits: [{ find: 'await recordUnsavedSummaryUsage(s, "branch_summary", model, billed, note);', replace: "" }],
		tests: ["test/pi-races/usage-failed-compaction.test.ts", "test/pi-races/branch-summary-budget.test.ts"],
	},
	{
		id: "QF03",
		description:
			"A `!` command's bytes that are not UTF-8 are not kept: no full-output file holds the Latin-1/GBK bytes the output shows as U+FFFD",
		file: "src/session/bash-runner.ts",
		edits: [{ find: "\t\t\tkeepBytesNotUtf8: true,\n", replace: "" }],
		tests: ["test/pi-races/bash-user-command-output.test.ts", "test/pi-races/interactive-chat.test.ts"],
	},
	{
		id: "QF04",
		description: "A `!` command's result no longer says some output bytes were not UTF-8 (notUtf8 never set)",
		file: "src/session/bash-runner.ts",
		edits: [{ find: "if (snapshot.notUtf8) result.notUtf8 = true;", replace: "" }],
		tests: ["test/pi-races/bash-user-command-output.test.ts", "test/pi-races/interactive-chat.test.ts"],
	},
	{
		id: "QF05",
		description:
			"The model reads a `!` command's U+FFFD output with no note that bytes were replaced or where they are kept",
		file: "src/session/convert-to-llm.ts",
		edits: [{ find: "if (message.notUtf8) {", replace: "if (false) {" }],
		tests: ["test/pi-races/bash-user-command-output.test.ts"],
	},
	{
		id: "QF06",
		description: "settle -i shows a `!` command's U+FFFD output without saying bytes were not UTF-8 text",
		file: "src/cli/interactive-mode.ts",
		edits: [
			{
				find: 'if (result.notUtf8) printer.notice("(bytes that are not UTF-8 text are shown as \\ufffd)");',
				replace: "",
			},
		],
		tests: ["test/pi-races/interactive-chat.test.ts"],
	},
	{
		id: "QF07",
		description:
			"settle -i's /model <bare id> ignores defaultProvider again: an id two providers serve is refused while --model takes the default provider's",
		file: "src/cli/interactive-commands.ts",
		edits: [
			{
				find: "exactModelMatch(args, available, session.settingsManager.getDefaultProvider())",
				replace: "exactModelMatch(args, available)",
			},
		],
		tests: ["test/pi-races/model-shared-ids.test.ts"],
	},
	{
		id: "QF08",
		description:
			"settle -i's /skill:Code with only a skill `code` is a bare 'unknown command' again, not naming /skill:code (names are case-sensitive)",
		file: "src/cli/interactive-commands.ts",
		edits: [{ find: 'if (name.startsWith("skill:")) {', replace: "if (false) {" }],
		tests: ["test/pi-races/skills-spaced-names.test.ts"],
	},
	{
		id: "QH01",
		file: "src/lazy-deps.ts",
		description: "proper-lockfile loads graceful-fs again (~6 ms of every settle run that writes)",
		edits: [
			{
				find: '[createRequire(require.resolve("proper-lockfile")).resolve("graceful-fs")]: require("node:fs"),',
				replace: "",
			},
		],
		tests: ["test/imports/import-graph.test.ts"],
	},
	{
		id: "QH02",
		file: "src/lazy-deps.ts",
		description: "proper-lockfile's signal-exit loads node:assert again (~7 ms of every settle run that writes)",
		edits: [{ find: "assert: assertLoadedOnDemand(),", replace: "" }],
		tests: ["test/imports/import-graph.test.ts"],
	},
	{
		id: "QM01",
		description:
			"edit's ambiguous error searches for the next line break again from each match: a one-line minified bundle with 400,000 matches took 4 s",
		file: "src/tools/edit-diff.ts",
		edits: [
			{
				find: "(nextBreak === -1 || start <= nextBreak)) continue;",
				replace:
					'(content.indexOf("\\n", lineStarts.at(-1)) === -1 || start <= content.indexOf("\\n", lineStarts.at(-1)))) continue;',
			},
		],
		tests: ["test/pi-races/edit-ambiguous-lines.test.ts"],
	},
	{
		id: "QM02",
		description:
			"read sends a file holding only a UTF-8 byte-order mark as its invisible mark, not as empty (0 bytes and a UTF-16 mark alone are)",
		file: "src/tools/read.ts",
		edits: [{ find: "headBuffer.length === 0 || headBuffer.equals(UTF8_BOM)", replace: "headBuffer.length === 0" }],
		tests: ["test/pi-races/read-empty-files.test.ts"],
	},
	{
		id: "QJ01",
		file: "src/store/session-manager.ts",
		description:
			"a migration rewrite stopped by a full disk leaves its half-written temp copy beside the session (pi#9708)",
		edits: [
			{ find: "for (const written of [temp, backup]) if (written) rmSync(written, { force: true });", replace: "" },
		],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "QJ02",
		file: "src/store/session-manager.ts",
		description: "a migration rewrite stopped by a full disk leaves its half-written .bak of a v1 file (pi#9708)",
		edits: [{ find: "for (const written of [temp, backup])", replace: "for (const written of [temp])" }],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "QJ03",
		file: "src/store/session-manager.ts",
		description:
			"a failed migration rewrite throws Node's bare error, naming neither the file nor what to do (pi#9708)",
		edits: [{ find: "throw migrationWriteError(file, fromVersion, error);", replace: "throw error;" }],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "QJ04",
		file: "src/store/session-manager.ts",
		description:
			"the partial copies migrations killed mid-rewrite left beside a session stay there for good (openclaw#44812)",
		edits: [{ find: "\t\tremoveDeadMigrationCopies(file);\n", replace: "" }],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "QJ05",
		file: "src/store/session-manager.ts",
		description: "a migration removes other sessions' leftover copies too, not only its own file's (openclaw#44812)",
		edits: [
			{
				find: "name.startsWith(prefix) && /^\\d+$/.test(name.slice(prefix.length))",
				replace: "/\\.migrating-\\d+$/.test(name)",
			},
		],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "QJ06",
		file: "src/store/session-manager.ts",
		description:
			"a migration removes any file named <file>.migrating-<anything>, also one of the user's (openclaw#44812)",
		edits: [{ find: "&& /^\\d+$/.test(name.slice(prefix.length))", replace: "" }],
		tests: ["test/pi-races/big-old-session-files.test.ts"],
	},
	{
		id: "QJ07",
		file: "src/cli/session-picker.ts",
		description:
			"the resume list prints a stored session name as written: its newline splits the row, its escapes reach the terminal (hermes-agent#66683)",
		edits: [{ find: "oneLineText(info.name)", replace: "info.name" }],
		tests: ["test/pi-races/session-names.test.ts"],
	},
	{
		id: "QJ08",
		file: "src/cli/interactive-commands.ts",
		description: "/session prints a stored session name's newline and escapes as written (hermes-agent#66683)",
		edits: [{ find: "oneLineText(session.sessionName)", replace: "session.sessionName" }],
		tests: ["test/pi-races/session-names.test.ts"],
	},
	{
		id: "QJ09",
		file: "src/cli/interactive-commands.ts",
		description:
			"/name with no text prints a stored session name's newline and escapes as written (hermes-agent#66683)",
		edits: [{ find: "oneLineText(current)", replace: "current" }],
		tests: ["test/pi-races/session-names.test.ts"],
	},
	{
		id: "QK01",
		file: "src/session/provider-stream.ts",
		description: "an output cap over the server's limit keeps the bare refusal: no note naming maxTokens",
		edits: [
			{ find: "const compatNote = capNote ?? compatOptionNote(", replace: "const compatNote = compatOptionNote(" },
		],
		tests: ["test/pi-races/output-cap-over-server-limit.test.ts"],
	},
	{
		id: "QK02",
		file: "src/session/provider-stream.ts",
		description: "the note says the model's maxTokens was asked for, not pi-ai's cap of at most 32000",
		edits: [
			{
				find: "const requested = request.maxTokens ?? defaultRequestedMaxTokens(model);",
				replace: "const requested = request.maxTokens ?? model.maxTokens;",
			},
		],
		tests: ["test/pi-races/output-cap-over-server-limit.test.ts"],
	},
	{
		id: "QK03",
		file: "src/llm/compat-notes.ts",
		description: "a limit worded 'between 1 and 1024' is not read: no note for colibri's refusal",
		edits: [{ find: "/\\bbetween -?\\d+ and (\\d+)/i,", replace: "" }],
		tests: ["test/pi-races/output-cap-over-server-limit.test.ts"],
	},
	{
		id: "QK04",
		file: "src/llm/compat-notes.ts",
		description: "a limit worded '<= 12288' is not read: no note for Volcengine's refusal",
		edits: [{ find: "(?:<=|less than or equal to|", replace: "(?:less than or equal to|" }],
		tests: ["test/pi-races/output-cap-over-server-limit.test.ts"],
	},
	{
		id: "QK05",
		file: "src/session/compaction-runner.ts",
		description:
			"the window a refusal states is ignored: a wrong models.json window hides the cap, 'send it shorter' for 'hi'",
		edits: [
			{
				find: "contextWindow: serverWindow ?? model.contextWindow,",
				replace: "contextWindow: model.contextWindow,",
			},
		],
		tests: ["test/pi-races/output-cap-window.test.ts"],
	},
	{
		id: "QK06",
		file: "src/compaction/texts.ts",
		description:
			"a stated input that alone fills the window still reads as the cap's fault: no advice to send it shorter",
		edits: [
			{
				find: "return window > 0 && tokens < window ? window : undefined;",
				replace: "return window > 0 ? window : undefined;",
			},
		],
		tests: ["test/pi-races/output-cap-window.test.ts"],
	},
	{
		id: "QK07",
		file: "src/compaction/texts.ts",
		description: "the server's window is not named as the contextWindow to set",
		edits: [{ find: "(cap.configuredWindow === undefined", replace: "(true" }],
		tests: ["test/pi-races/output-cap-window.test.ts"],
	},
	{
		id: "QL01",
		description: "read says '(1 lines total)' and '1 more lines in file' again",
		file: "src/tools/read.ts",
		edits: [{ find: 'count === 1 ? "line" : "lines"', replace: '"lines"' }],
		tests: ["test/pi-races/read-tool.test.ts", "test/pi-races/read-long-line.test.ts"],
	},
	{
		id: "QL02",
		description: "edit in an empty file says only 'must match exactly' again, not that the file is empty",
		file: "src/tools/edit-diff.ts",
		edits: [
			{
				find: 'if (found.count === 0 && content === "") throw inEmptyFile(path, editIndex, total);',
				replace: "",
			},
		],
		tests: ["test/tools/edit.test.ts"],
	},
	{
		id: "QL03",
		description: "the HTML export shows no sign that a ! command's bytes that were not UTF-8 were replaced",
		file: "src/export/page.ts",
		edits: [{ find: "if (m.notUtf8) status +=", replace: "if (false) status +=" }],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "QL04",
		description: "a failed ctx.compact of an extension is reported as <runtime> with no sentBy again",
		file: "src/extensions/runner.ts",
		edits: [{ find: "runner.startCompaction(options, extensionPath);", replace: "runner.startCompaction(options);" }],
		tests: ["test/extensions/api.test.ts"],
	},
	{
		id: "QL05",
		description: "settle -i: input ending while a session_start handler never returns waits for it again",
		file: "src/cli/interactive-mode.ts",
		edits: [{ find: "\t\tfinish();\n\t\tstopIfStillStarting();\n\t});", replace: "\t\tfinish();\n\t});" }],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "QL06",
		description: "a prompt aborted during its own hooks reports preflightResult 'started' again (nothing was sent)",
		file: "src/session/agent-session.ts",
		edits: [
			{
				find: 'pending.preflightResult?.(aborted ? "aborted" : event.disposition);',
				replace: "pending.preflightResult?.(event.disposition);",
			},
		],
		tests: ["test/session/prompt-pipeline.test.ts"],
	},
	{
		id: "QP01",
		description:
			"edit keeps every match's offset again to count them: 'aa' in 10 MB of 'a' keeps ten million numbers (out of a 64 MB heap)",
		file: "src/tools/edit-diff.ts",
		edits: [
			{ find: "let count = 0;", replace: "const every: number[] = [];" },
			{ find: "count++;", replace: "every.push(i);" },
			{ find: "return { count, lineStarts };", replace: "return { count: every.length, lineStarts };" },
		],
		tests: ["test/pi-races/edit-ambiguous-lines.test.ts"],
	},
	{
		id: "QP02",
		description:
			"pi#9785: the bash tool takes `timeout: 120000` as seconds again: a hung command holds the run 33 hours, the model never told the unit",
		file: "src/tools/bash.ts",
		edits: [{ find: "\t\t\tcheckTimeoutUnit(timeout);\n", replace: "" }],
		tests: ["test/pi-races/bash-timeouts.test.ts"],
	},
	{
		id: "QP03",
		description:
			"pi#9785: every bash timeout from 10000 s up is refused as milliseconds, a genuine 10800 (3 hours) too",
		file: "src/tools/bash.ts",
		edits: [{ find: "timeout < 10_000 || timeout % 1000 !== 0", replace: "timeout < 10_000" }],
		tests: ["test/pi-races/bash-timeouts.test.ts"],
	},
	{
		id: "QP04",
		description:
			"edit keeps a start per match, not per line, for the ambiguous error: a one-line bundle's copies are listed as line 1 over and over",
		file: "src/tools/edit-diff.ts",
		edits: [{ find: "if (lineStarts.length > 0 && (nextBreak === -1 || start <= nextBreak)) continue;", replace: "" }],
		tests: ["test/pi-races/edit-ambiguous-lines.test.ts"],
	},
	{
		id: "QP05",
		description:
			"the export's answer line names only the model asked (openrouter/auto), not the one the provider says answered",
		file: "src/export/page.ts",
		edits: [{ find: '+ answeredBy + " · "', replace: '+ " · "' }],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "QP06",
		description:
			"the export header's models list the model asked, not the one that answered (as /session's usage does)",
		file: "src/export/render.ts",
		edits: [
			{ find: "const answered = message.responseModel || message.model;", replace: "const answered = message.model;" },
		],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "QS01",
		description:
			"settle --json binds its extensions with the default error handler: an extension's error is prose on stderr only, no extension_error line on stdout",
		file: "src/cli/print-mode.ts",
		edits: [
			{
				find: "json ? { onError: jsonExtensionError(session, out) } : {}",
				replace: "{}",
			},
		],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "QS02",
		description:
			"settle --json's refused prompt (no API key) writes no error line: the stream ends after the session header with no word of why",
		file: "src/cli/print-mode.ts",
		edits: [
			{
				find: 'if (json) out.stdout(jsonLine({ type: "error", ...(code ? { code } : {}), message: text }));',
				replace: "",
			},
		],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "QS03",
		description:
			"settle --rpc: ctx.shutdown() from an event handler (agent_end) only sets the flag; the process waits for the next command line, which may never come",
		file: "src/cli/rpc-mode.ts",
		edits: [
			{
				find: "				stopReading();\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/rpc-termination.test.ts"],
	},
	{
		id: "QU01",
		description:
			"startOperation resets the announced retry settings in a context field of their own again: a 20th context key, so every assign's copy of the context is a dictionary-mode object",
		file: "machines/prompt-operation.machine.ts",
		edits: [
			{
				find: 'runCause: "prompt" as RunCause,',
				replace: 'runCause: "prompt" as RunCause,\n\t\t\t\tannouncedRetry: undefined,',
			},
		],
		tests: ["test/machines/prompt-operation.test.ts"],
	},
	{
		id: "QQ01",
		description: 'settle -p "/compact [instructions]" is sent to the model as a prompt again; nothing compacts',
		file: "src/cli/print-mode.ts",
		edits: [
			{
				find: "const compact = images ? undefined : compactCommand(runtime.session, message);",
				replace: "const compact = images ? undefined : undefined;",
			},
		],
		tests: ["test/pi-races/print-compact.test.ts"],
	},
	{
		id: "QQ02",
		description: 'settle -p "/compact" runs the built-in over an extension command named compact',
		file: "src/cli/print-mode.ts",
		edits: [
			{
				find: 'if (!match || session.getCommands().some((command) => command.name === "compact")) return undefined;',
				replace: "if (!match) return undefined;",
			},
		],
		tests: ["test/pi-races/print-compact.test.ts"],
	},
	{
		id: "QQ03",
		description:
			"a compaction an extension's session_before_compact cancels is reported as a bare 'Compaction cancelled' again",
		file: "src/session/compaction-runner.ts",
		edits: [
			{
				find: "if (decision?.cancel) throw new CompactionCancelled(decidedBy);",
				replace: "if (decision?.cancel) throw new CompactionCancelled();",
			},
		],
		tests: ["test/pi-races/compaction-hook-cancel.test.ts", "test/pi-races/print-compact.test.ts"],
	},
	{
		id: "QQ04",
		description: "compaction_end of a compaction an extension cancelled no longer names the extension (cancelledBy)",
		file: "src/session/compaction-runner.ts",
		edits: [{ find: "if (cancelledBy !== undefined) end.cancelledBy = cancelledBy;", replace: "" }],
		tests: ["test/pi-races/compaction-hook-cancel.test.ts"],
	},
	{
		id: "QQ05",
		description: "a cancelled session_before_* names the first handler's extension, not the one that cancelled",
		file: "src/extensions/runner.ts",
		edits: [{ find: "decidedBy = entry.extension.path;", replace: "decidedBy = handlers[0]!.extension.path;" }],
		tests: ["test/pi-races/compaction-hook-cancel.test.ts"],
	},
	{
		id: "QQ06",
		description: "settle -i says 'Compaction (manual) aborted.' again when an extension cancelled it",
		file: "src/cli/interactive-render.ts",
		edits: [
			{
				find: "if (event.aborted && event.cancelledBy !== undefined) {",
				replace: 'if (event.aborted && event.cancelledBy === "") {',
			},
		],
		tests: ["test/pi-races/print-compact.test.ts"],
	},
	{
		id: "QR01",
		description:
			"clearQueue() no longer drops a steer / follow-up whose input hooks still run (it is queued after the clear)",
		file: "src/session/queues.ts",
		edits: [{ find: "\t\t\tturn.cleared = true;\n", replace: "" }],
		tests: ["test/pi-races/queue-clear-in-flight.test.ts"],
	},
	{
		id: "QR02",
		description: "steer() / followUp() queue a message clearQueue() dropped while its input hooks ran",
		file: "src/session/prompt-pipeline.ts",
		edits: [
			{
				find: '\t\tif (order.cleared) throw new SettleError("ABORTED", clearedBeforeQueued(kind, submitted));\n',
				replace: "",
			},
		],
		tests: ["test/pi-races/queue-clear-in-flight.test.ts"],
	},
	{
		id: "QR03",
		description: "a busy prompt() / sendUserMessage() queues a message clearQueue() dropped while its input hooks ran",
		file: "src/session/prompt-pipeline.ts",
		edits: [{ find: "\t\tif (order?.cleared) throw", replace: "\t\tif (order?.cleared && false) throw" }],
		tests: ["test/pi-races/queue-clear-in-flight.test.ts"],
	},
	{
		id: "QR04",
		description: "settle -i prints an error for a line Ctrl+C's clearQueue() dropped and listed as not sent",
		file: "src/cli/interactive-mode.ts",
		edits: [
			{
				find: 'error.code === "ABORTED" && error.message.includes(CLEARED_BEFORE_QUEUED)',
				replace: 'error.code === "ABORTED" && error.message.includes(CLEARED_BEFORE_QUEUED) && false',
			},
		],
		tests: ["test/pi-races/queue-clear-in-flight.test.ts"],
	},
	{
		id: "QR05",
		description: "clearQueue() destroys a custom message an extension steered (neither returned nor delivered)",
		file: "src/session/queues.ts",
		edits: [
			{
				find: "for (const message of removed.steering) if (!listed.has(message)) this.agent.steer(message);",
				replace: "",
			},
		],
		tests: ["test/pi-races/queue-clear-custom.test.ts"],
	},
	{
		id: "QR06",
		description: "clearQueue() destroys a custom message an extension queued as a follow-up",
		file: "src/session/queues.ts",
		edits: [
			{
				find: "for (const message of removed.followUp) if (!listed.has(message)) this.agent.followUp(message);",
				replace: "",
			},
		],
		tests: ["test/pi-races/queue-clear-custom.test.ts"],
	},
	{
		id: "QT01",
		description: "templates in a sub-folder of a prompts folder are passed over without a warning again",
		file: "src/resources/resource-loader.ts",
		edits: [
			{
				find: 'for (const layer of layers)\n\t\t\t\tpromptPathDiagnostics.push(...nestedTemplateWarnings(join(layer.baseDir, "prompts"), reached));',
				replace: "for (const layer of layers) void layer;",
			},
		],
		tests: ["test/pi-races/prompt-templates-subfolders.test.ts"],
	},
	{
		id: "QT02",
		description:
			"a sub-folder's templates loaded by a settings entry or --prompt-template are still warned about as not loaded",
		file: "src/resources/resource-loader.ts",
		edits: [{ find: ".filter((file) => !reached.has(file))", replace: ".filter(() => true)" }],
		tests: ["test/pi-races/prompt-templates-subfolders.test.ts"],
	},
	{
		id: "QT03",
		description: "unknown keys inside settings objects (compaction.enable) are kept in silence again",
		file: "src/settings/validate.ts",
		edits: [
			{
				find: "if (!keySchema) unknown.push(dotted);",
				replace: 'if (!keySchema && prefix === "") unknown.push(dotted);',
			},
		],
		tests: ["test/pi-races/settings-unknown-keys.test.ts"],
	},
	{
		id: "QT04",
		description: "every unknown top-level settings key is warned about, an extension's own settings included",
		file: "src/settings/settings-manager.ts",
		edits: [{ find: 'if (meant === undefined && !key.includes(".")) return [];', replace: "" }],
		tests: ["test/pi-races/settings-unknown-keys.test.ts"],
	},
	{
		id: "QT05",
		description: "a settings key one level off (retry.timeoutMs) no longer names the key it belongs under",
		file: "src/settings/validate.ts",
		edits: [{ find: "if (moved.length === 1) return moved[0];", replace: "" }],
		tests: ["test/pi-races/settings-unknown-keys.test.ts"],
	},
	{
		id: "QN01",
		description: "a tool's count of one is plural again ('1 matches limit reached', '1 bytes', '1 seconds')",
		file: "src/tools/truncate.ts",
		edits: [{ find: "Number(count) === 1 ? singular : plural", replace: "plural" }],
		tests: ["test/tools/singular-counts.test.ts"],
	},
	{
		id: "QN02",
		description: "write says 'Successfully wrote 1 bytes' again",
		file: "src/tools/write.ts",
		edits: [
			{ find: `Successfully wrote \${counted(bytes, "byte")} to`, replace: `Successfully wrote \${bytes} bytes to` },
		],
		tests: ["test/tools/singular-counts.test.ts", "test/tools/pi-differential.property.test.ts"],
	},
	{
		id: "QN03",
		description: "a user's ! command stopped by its timeout of 1 s tells the model '1 seconds' again",
		file: "src/session/convert-to-llm.ts",
		edits: [
			{
				find: `timed out after \${counted(message.timedOutAfter, "second")}`,
				replace: `timed out after \${message.timedOutAfter} seconds`,
			},
		],
		tests: ["test/recovery/convert-to-llm.test.ts"],
	},
	{
		id: "QN04",
		description: "a torn last line's copy that a full disk cut off is left beside the session file",
		file: "src/store/session-manager.ts",
		edits: [
			{
				find: 'if ((error as NodeJS.ErrnoException).code !== "EEXIST") rmSync(aside, { force: true });',
				replace: "",
			},
		],
		tests: ["test/bad-input/faults-cli.test.ts"],
	},
	{
		id: "QN05",
		description: "a torn last line that cannot be moved aside gives Node's bare error again",
		file: "src/store/session-manager.ts",
		edits: [
			{
				find: "throw fileLeftAsItWasError(\n\t\t\t\t`Could not move the torn last line",
				replace: "throw error;\n\t\t\tthrow fileLeftAsItWasError(\n\t\t\t\t`Could not move the torn last line",
			},
		],
		tests: ["test/bad-input/faults-cli.test.ts"],
	},
	{
		id: "QN06",
		description:
			"settle -i: SIGTERM / SIGHUP while a session_start handler never returns end it without naming the handler again (gentle-pi#1007)",
		file: "src/cli/interactive-mode.ts",
		edits: [{ find: "\t\tif (starting) out.stderr(starting);\n", replace: "" }],
		tests: ["test/pi-races/extension-load-stall.test.ts"],
	},
	{
		id: "QN07",
		description: "settle -i: a prompt Ctrl+C aborted in its own input hook is dropped without a word again",
		file: "src/cli/interactive-mode.ts",
		edits: [{ find: 'if (disposition === "aborted") giveBack([text]);', replace: "" }],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "QN08",
		description: "settle --rpc answers 'started' again for a prompt aborted during its own hooks (nothing was sent)",
		file: "src/cli/rpc-mode.ts",
		edits: [
			{
				find: "function promptResult(disposition: PromptDisposition, sessions: readonly AgentSession[]): RpcPromptResult {\n",
				replace:
					'function promptResult(taken: PromptDisposition, sessions: readonly AgentSession[]): RpcPromptResult {\n\tconst disposition = taken === "aborted" ? "started" : taken;\n',
			},
		],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "QN09",
		description: "RpcClient.prompt() resolves undefined (pi's server) for an 'aborted' prompt response",
		file: "src/rpc/client.ts",
		edits: [{ find: ' && disposition !== "aborted")', replace: ")" }],
		tests: ["test/rpc/rpc-client.test.ts"],
	},
	{
		id: "QV01",
		description:
			"a command's ctx.compact() in its preflight is kept in a context field of its own again: a 20th context key, so every assign's copy of the context is a dictionary-mode object from then on",
		file: "machines/prompt-operation.machine.ts",
		edits: [
			{
				find: "enqueue.assign({ preflightCompactions: { ...context.preflightCompactions, dispatch } });\n\t\t\tenqueue.spawnChild(",
				replace:
					"enqueue.assign({ preflightCompactions: { ...context.preflightCompactions, dispatch }, dispatchCompaction: dispatch } as never);\n\t\t\tenqueue.spawnChild(",
			},
		],
		tests: ["test/machines/prompt-operation.model.test.ts"],
	},
	{
		id: "QV02",
		description:
			"the ended dispatch compaction stays in preflightCompactions: isCompacting stays true and the next PREFLIGHT_DISPATCH_END waits for a compaction that has ended",
		file: "machines/prompt-operation.machine.ts",
		edits: [
			{
				find: "enqueue.assign({ preflightCompactions: rest });",
				replace: "enqueue.assign({ preflightCompactions: context.preflightCompactions });",
			},
		],
		tests: ["test/machines/prompt-operation.test.ts", "test/pi-races/extension-context-compaction.test.ts"],
	},
	{
		id: "QV03",
		description: "the pre-send compaction's end leaves its reason in preflightCompactions: isCompacting stays true",
		file: "machines/prompt-operation.machine.ts",
		edits: [
			{
				find: "return { preflightCompactions: rest };",
				replace: "return { preflightCompactions: context.preflightCompactions };",
			},
		],
		tests: ["test/session/recovery-compaction.test.ts"],
	},
	{
		id: "QW01",
		description:
			"the chat's Queued notice ignores a queued message's images: an image-only steer shows as an empty 'Queued (steer): '",
		file: "src/cli/interactive-render.ts",
		edits: [
			{
				find: "const count = images?.length === texts.length ? images[images.length - 1]! : 0;",
				replace: "const count = 0;",
			},
		],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "QW02",
		description:
			"an overflow compaction an extension cancels no longer names the extension in agent_settled.errorMessage (settle -p's error)",
		file: "src/session/compaction-runner.ts",
		edits: [{ find: "output.cancelledBy = attempt.error.byExtension;", replace: "" }],
		tests: ["test/cli/overflow-unanswered.test.ts"],
	},
	{
		id: "QW03",
		description:
			"RPC switch_session to a path with no file no longer says created: true: the host cannot tell a new session from a resumed one",
		file: "src/runtime/targets.ts",
		edits: [{ find: "\tif (!existed) handle.startsNewSession = true;\n", replace: "" }],
		tests: ["test/cli/rpc.test.ts"],
	},
	{
		id: "QX01",
		description:
			"An input handler's result throws after its ctx.compact(): the preflight no longer waits for the compaction, which outlives the failed prompt (isCompacting while idle)",
		file: "src/session/prompt-pipeline.ts",
		edits: [
			{
				find: "\t\t} finally {\n\t\t\t// Thrown or not:",
				replace: "\t\t} catch (error) {\n\t\t\tthrow error;\n\t\t}\n\t\t{\n\t\t\t// Thrown or not:",
			},
		],
		tests: ["test/pi-races/extension-context-compaction.test.ts"],
	},
	{
		id: "QX02",
		description:
			"A before_agent_start handler's result throws after its ctx.compact(): the preflight no longer waits for the compaction, which outlives the failed prompt",
		file: "src/session/prompt-pipeline.ts",
		edits: [
			{
				find: "\t} finally {\n\t\ts.scratch.beforeAgentStartDepth--;\n",
				replace:
					"\t} catch (error) {\n\t\ts.scratch.beforeAgentStartDepth--;\n\t\tthrow error;\n\t}\n\t{\n\t\ts.scratch.beforeAgentStartDepth--;\n",
			},
		],
		tests: ["test/pi-races/extension-context-compaction.test.ts"],
	},
	{
		id: "QX03",
		description:
			"The trace's compaction line of an overflow an extension's session_before_compact cancelled no longer names the extension",
		file: "src/inspect/trace.ts",
		edits: [{ find: 'if (o.cancelled === true && typeof o.cancelledBy === "string")', replace: "if (false)" }],
		tests: ["test/inspect/debugging-a-bad-run.test.ts"],
	},
	{
		id: "QX04",
		description:
			"--system-prompt / --append-system-prompt naming a file that does not exist: no warning, the path silently becomes the prompt text",
		file: "src/resources/resource-loader.ts",
		edits: [{ find: "if (given && looksLikePath(input)) {", replace: "if (false) {" }],
		tests: ["test/cli/pi-startup-flags.test.ts"],
	},
	{
		id: "QX05",
		description: "A --append-system-prompt text with a space that mentions a path is warned about as a missing file",
		file: "src/resources/resource-loader.ts",
		edits: [{ find: "return !/\\s/.test(value) && (", replace: "return (" }],
		tests: ["test/cli/pi-startup-flags.test.ts"],
	},
	{
		id: "QX06",
		description:
			"settle -i Ctrl+C: a steer the run already took for its turn (kept by clearQueue) is neither put back nor named; the chat says nothing of it",
		file: "src/cli/interactive-mode.ts",
		edits: [
			{
				find: "for (const text of [...target.getSteeringMessages(), ...target.getFollowUpMessages()]) {",
				replace: "for (const text of [] as string[]) {",
			},
		],
		tests: ["test/pi-races/interactive-input.test.ts"],
	},
	{
		id: "QY01",
		description:
			"/session no longer names the file a fork came from: a resumed fork looks like any session (codex#9330)",
		file: "src/cli/interactive-commands.ts",
		edits: [{ find: "if (parent) host.print(", replace: "if (!parent) host.print(" }],
		tests: ["test/pi-races/fork-parent-link.test.ts"],
	},
	{
		id: "QY02",
		description:
			"--session <name> with no session so named here no longer names another project's session of that name and how to resume it there (codex#30995)",
		file: "src/cli/session-lookup.ts",
		edits: [{ find: 'if (!first) return "";', replace: 'return "";' }],
		tests: ["test/pi-races/session-by-name.test.ts"],
	},
	{
		id: "QY03",
		description:
			"the search for another project's session named so matches every session, named or not: a wrong session is offered (codex#30995)",
		file: "src/cli/session-lookup.ts",
		edits: [{ find: "(info: SessionInfo) => info.name === name;", replace: "(_info: SessionInfo) => true;" }],
		tests: ["test/pi-races/session-by-name.test.ts"],
	},
	{
		id: "RB01",
		file: "src/tools/output-accumulator.ts",
		description:
			"pi#4818: the line break ending a command's output counts as one more line: `seq 1 4000` is 'of 4001', and `seq 1 2000` is cut, line 1 dropped",
		edits: [
			{
				find: "return this.lineBreaks + (this.endsWithBreak ? 0 : 1);",
				replace: "return this.lineBreaks + 1;",
			},
		],
		tests: ["test/pi-races/bash-output-lines.test.ts"],
	},
	{
		id: "RB02",
		file: "src/tools/output-accumulator.ts",
		description:
			"openclaw#133213: the final line break is cut as a line of its own: after a line over 50 KB it is all that fits, and the model gets '(no output)'",
		edits: [
			{
				find: "const withoutFinalBreak = ended ? shown.slice(0, -1) : shown;",
				replace: "const withoutFinalBreak = shown;",
			},
		],
		tests: ["test/pi-races/bash-output-lines.test.ts"],
	},
	{
		id: "RB03",
		file: "src/tools/output-accumulator.ts",
		description:
			"openclaw#133213: the size of a last line ended by a line break is the empty rest after it: the note says 'line is 0B'",
		edits: [
			{
				find: "return this.endsWithBreak ? this.endedLineBytes : this.openLineBytes;",
				replace: "return this.openLineBytes;",
			},
		],
		tests: ["test/pi-races/bash-output-lines.test.ts"],
	},
	{
		id: "RB04",
		file: "src/tools/output-accumulator.ts",
		description:
			"openclaw#133213: a line break read apart from its line (a later write) finds itself as the break before: the line's size is 0B",
		edits: [
			{
				find: 'lastNewline > 0 ? text.lastIndexOf("\\n", lastNewline - 1) : -1',
				replace: 'text.lastIndexOf("\\n", lastNewline - 1)',
			},
		],
		tests: ["test/pi-races/bash-output-lines.test.ts"],
	},
	{
		id: "RB05",
		file: "src/cli/interactive-render.ts",
		description:
			"cursor/cursor#3842: settle -i shows a `!` command's progress bar with its `\\r` dropped: every frame glued into one line",
		edits: [{ find: "const drawn = redrawLines(line, true);", replace: "const drawn = line;" }],
		tests: ["test/pi-races/interactive-chat.test.ts"],
	},
	{
		id: "RB06",
		file: "src/tools/output-accumulator.ts",
		description:
			"openclaw#133213: a line longer than the kept tail, ended by the output's final break, is dropped as a leading partial line: '(no output)'",
		edits: [
			{
				find: "const lastLine = newline === -1 || newline === this.tail.length - 1;",
				replace: "const lastLine = newline === -1;",
			},
		],
		tests: ["test/pi-races/bash-output-lines.test.ts"],
	},
	{
		id: "RD01",
		description:
			"a summary request to a Claude model carries the turns' thinking again: Claude refuses it (reasoning_extraction) and every compaction fails (openclaw#129518)",
		file: "src/compaction/serialize.ts",
		edits: [
			{
				find: 'if (model.provider !== "anthropic" && !/claude/i.test(model.id)) return messages;',
				replace: "return messages;",
			},
		],
		tests: ["test/pi-races/summary-thinking-claude.test.ts"],
	},
	{
		id: "RD02",
		description:
			"the compaction summary reads the history with its thinking on a Claude model: the request is refused every time (openclaw#129518)",
		file: "src/compaction/summarize.ts",
		edits: [
			{
				find: "const messages = messagesToSummarize(history, summaryOptions.model);",
				replace: "const messages = history;",
			},
		],
		tests: ["test/pi-races/summary-thinking-claude.test.ts"],
	},
	{
		id: "RD03",
		description:
			"a /tree branch summary on a Claude model quotes the abandoned turns' thinking: the request is refused (oh-my-pi#6439)",
		file: "src/compaction/branch-summary.ts",
		edits: [
			{
				find: "const messages = [...messagesToSummarize(prepared.messages, options.model)];",
				replace: "const messages = [...prepared.messages];",
			},
		],
		tests: ["test/pi-races/summary-thinking-claude.test.ts"],
	},
	{
		id: "RD04",
		description:
			"every model's summary request loses the turns' thinking, not only a Claude model's (pi sends it to the others)",
		file: "src/compaction/serialize.ts",
		edits: [
			{
				find: 'if (model.provider !== "anthropic" && !/claude/i.test(model.id)) return messages;',
				replace: "",
			},
		],
		tests: ["test/pi-races/summary-thinking-claude.test.ts"],
	},
	{
		id: "RD05",
		description:
			"an answer that is only thinking goes back to Anthropic ending on a thinking block: every later request is refused (forgecode#3071)",
		file: "src/llm/pi-ai.ts",
		edits: [{ find: "\tonContext(withoutThinkingOnlyAnswers),\n", replace: "" }],
		tests: ["test/pi-races/thinking-only-answers.test.ts"],
	},
	{
		id: "RD06",
		description:
			"an answer with thinking and text counts as thinking only: the model's own answer is left out of later requests",
		file: "src/llm/thinking-only-answers.ts",
		edits: [{ find: 'if (block.type === "text" && block.text.trim() !== "") return false;', replace: "" }],
		tests: ["test/pi-races/thinking-only-answers.test.ts"],
	},
	{
		id: "RA01",
		description:
			"OpenRouter's daily free-model cap (free-models-per-day) is retried as a rate limit again, the same 429 each time (openclaude#1542)",
		file: "src/llm/errors.ts",
		edits: [{ find: "\t/\\bfree-models-per-day\\b/i,\n", replace: "" }],
		tests: ["test/pi-races/openrouter-rate-limits.test.ts"],
	},
	{
		id: "RA02",
		description:
			"the limiter headers OpenRouter puts in its 429 body are not read: blind retries inside the window (TranslateBooksWithLLMs#125)",
		file: "src/session/provider-stream.ts",
		edits: [{ find: "\t\t\tasked ??= bodyAsked;\n", replace: "" }],
		tests: ["test/pi-races/openrouter-rate-limits.test.ts"],
	},
	{
		id: "RA03",
		description:
			"a wait read from a 429's body leaves the OpenAI client's own blind retries on: they land inside the limiter's window (TranslateBooksWithLLMs#125)",
		file: "src/session/provider-stream.ts",
		edits: [{ find: "bodyAsked !== undefined || (asked", replace: "bodyAsked === -1 || (asked" }],
		tests: ["test/pi-races/openrouter-rate-limits.test.ts"],
	},
	{
		id: "RA04",
		description:
			"OpenRouter's X-RateLimit-Reset in epoch milliseconds is read as seconds: a per-minute window taken for centuries, not retried",
		file: "src/llm/errors.ts",
		edits: [
			{
				find: "if (/^\\d{13}$/.test(text)) return Number(text);",
				replace: "if (/^\\d{13}$/.test(text)) return Number(text) * 1000;",
			},
		],
		tests: ["test/pi-races/openrouter-rate-limits.test.ts"],
	},
	{
		id: "RC01",
		description:
			'an optional argument a model sends as null is coerced again (0, "", false): `read` with limit null refused, an enum failed (mastra#17655)',
		file: "src/llm/argument-shapes.ts",
		edits: [
			{
				find: 'if (!required.includes(key) && !accepts(propertySchema, "null")) delete args[key];',
				replace: 'if (!required.includes(key) && !accepts(propertySchema, "null")) void 0;',
			},
		],
		tests: ["test/pi-races/model-argument-shapes.test.ts", "test/llm/validation.test.ts"],
	},
	{
		id: "RC02",
		description:
			'an array or object argument sent as JSON text is no longer parsed: refused "must be array" (oh-my-pi#3241)',
		file: "src/llm/argument-shapes.ts",
		edits: [{ find: "args[key] = parsed;", replace: "continue;" }],
		tests: ["test/pi-races/model-argument-shapes.test.ts", "test/llm/validation.test.ts"],
	},
	{
		id: "RC03",
		description:
			"a required argument sent as null is left out too: refused as missing instead of coerced as pi-ai does",
		file: "src/llm/argument-shapes.ts",
		edits: [
			{
				find: 'if (!required.includes(key) && !accepts(propertySchema, "null"))',
				replace: 'if (!accepts(propertySchema, "null"))',
			},
		],
		tests: ["test/llm/validation.test.ts"],
	},
	{
		id: "RC04",
		description: 'an argument whose schema type list takes null (`["string", "null"]`) loses the null the model sent',
		file: "src/llm/argument-shapes.ts",
		edits: [
			{
				find: "if (Array.isArray(declared)) return declared.includes(type);",
				replace: "if (Array.isArray(declared)) return false;",
			},
		],
		tests: ["test/pi-races/model-argument-shapes.test.ts"],
	},
	{
		id: "RC05",
		description:
			"a tool_call handler that sets an optional argument to null hands the tool that null, against its schema",
		file: "src/llm/validation.ts",
		edits: [
			{ find: "for (const key of Object.keys(input)) if (!Object.hasOwn(valid, key)) delete input[key];", replace: "" },
		],
		tests: ["test/llm/validation.test.ts"],
	},
	{
		id: "RC06",
		description:
			'JSON text for an argument that takes a string too (`["array", "string"]`, `{}`) is parsed: the tool gets an array for its string',
		file: "src/llm/argument-shapes.ts",
		edits: [{ find: 'if (accepts(schema, "string")) return undefined;', replace: "" }],
		tests: ["test/llm/validation.test.ts"],
	},
	{
		id: "RC07",
		description:
			"a plain /review that two extensions register goes to the model as a prompt again, and neither command runs (pi#1061)",
		file: "src/session/prompt-pipeline.ts",
		edits: [{ find: "if (payload.expandPromptTemplates) refuseSharedCommandName(s, text);", replace: "" }],
		tests: ["test/pi-races/shared-command-names.test.ts"],
	},
	{
		id: "RC08",
		description:
			'settle -i answers a plain /review that two extensions register with "unknown command", naming neither /review:1 nor /review:2 (pi#1061)',
		file: "src/cli/interactive-mode.ts",
		edits: [{ find: "sharing.length > 0", replace: "false" }],
		tests: ["test/pi-races/shared-command-names.test.ts"],
	},
	{
		id: "RF01",
		description:
			"a busy prompt() / sendUserMessage() still in the session machine's mailbox is not dropped by clearQueue(): its text is not returned and it is delivered after the clear",
		file: "src/session/queues.ts",
		edits: [{ find: "\t\tif (clearableText !== undefined) turn.clearable(clearableText);\n", replace: "" }],
		tests: ["test/pi-races/queue-clear-in-flight.test.ts"],
	},
	{
		id: "RF02",
		description:
			"a busy prompt() clearQueue() dropped in the machine's mailbox still runs its input hooks and is queued: the text clearQueue() returned is delivered too",
		file: "src/session/prompt-pipeline.ts",
		edits: [
			{
				find: '\tif (cleared) throw new SettleError("ABORTED", clearedBeforeQueued(cleared, payload.text, false));\n\t// Its place',
				replace: "\t// Its place",
			},
		],
		tests: ["test/pi-races/queue-clear-in-flight.test.ts"],
	},
	{
		id: "RF03",
		description:
			"clearQueue() leaves a dropped mailbox request's reserved turn open: a steer() / followUp() sent after the clear waits for the machine to reach the dropped one",
		file: "src/session/queues.ts",
		edits: [
			{
				find: "\t\t\tthis.clearedRequests.set(requestId, turn.kind);\n\t\t\tturn.done();\n",
				replace: "\t\t\tthis.clearedRequests.set(requestId, turn.kind);\n",
			},
		],
		tests: ["test/pi-races/queue-clear-in-flight.test.ts"],
	},
	{
		id: "RF04",
		description:
			"RPC switch_session to the current session's unwritten path, written by its own session_shutdown meanwhile, says created: true though the switch continued that file",
		file: "src/runtime/targets.ts",
		edits: [{ find: "\t\thandle.startsNewSession = false;\n", replace: "" }],
		tests: ["test/cli/rpc.test.ts"],
	},
	{
		id: "RF05",
		description:
			"settle -i /name while the first message's run has started (not yet written) says quitting keeps no session, though quitting then waits for the run and keeps it",
		file: "src/cli/interactive-commands.ts",
		edits: [{ find: " && !session.isStreaming;", replace: ";" }],
		tests: ["test/pi-races/interactive-session-commands.test.ts"],
	},
	{
		id: "RF06",
		description: "settle -i /help lists the skill commands although enableSkillCommands is false (pi leaves them out)",
		file: "src/cli/interactive-commands.ts",
		edits: [
			{
				find: "const skillCommands = session.settingsManager.getEnableSkillCommands();",
				replace: "const skillCommands = true;",
			},
		],
		tests: ["test/cli/skill-commands-setting.test.ts"],
	},
	{
		id: "RF07",
		description:
			"settle -i /skill:<name> of a skill a settings filter switched off says only 'unknown command', naming neither the file nor the filter",
		file: "src/cli/interactive-mode.ts",
		edits: [
			{
				find: 'const switchedOff = command.name.startsWith("skill:") ? switchedOffSkills(loader) : [];',
				replace: "const switchedOff: never[] = [];",
			},
		],
		tests: ["test/cli/skill-commands-setting.test.ts"],
	},
	{
		id: "RF08",
		description: "the resource loader reports no filtered-out skills: /skill:<name> of one is an unknown command again",
		file: "src/resources/resource-loader.ts",
		edits: [
			{
				find: "filteredOutSkills: o.noSkills ? [] : filteredOut(discoveredSkills),",
				replace: "filteredOutSkills: [],",
			},
		],
		tests: ["test/cli/skill-commands-setting.test.ts"],
	},
	{
		id: "RF09",
		description:
			"a prompt() with streamingBehavior that clearQueue() dropped in the mailbox, reaching the machine once idle, runs as a prompt of its own: the text clearQueue() returned is delivered too",
		file: "src/session/prompt-pipeline.ts",
		edits: [{ find: '\tif (cleared && payload.kind === "text") {', replace: "\tif (false) {" }],
		tests: ["test/pi-races/queue-clear-in-flight.test.ts"],
	},
	{
		id: "RE01",
		file: "src/cli/chat-input.ts",
		description:
			"a line feed typed on its own (Ghostty's Shift+Enter, Ctrl+J) goes to readline again: the first after any Enter is dropped, the next sends the message half typed (claude-code#1282)",
		edits: [
			{
				find: 'if (name === "enter" && meta !== true && !this.pasting && !returnInThisRead) {',
				replace: "if (false) {",
			},
		],
		tests: ["test/pi-races/interactive-keys.test.ts"],
	},
	{
		id: "RE02",
		file: "src/cli/chat-input.ts",
		description:
			"the line feed of a CRLF Enter is taken for a typed line break: the next message starts with an empty line (claude-code#1282)",
		edits: [{ find: "!this.pasting && !returnInThisRead) {", replace: "!this.pasting) {" }],
		tests: ["test/pi-races/interactive-keys.test.ts"],
	},
	{
		id: "RE03",
		file: "src/cli/interactive-mode.ts",
		description:
			"a typed line feed ends the line without holding it: the message goes at once, half typed (claude-code#1282)",
		edits: [
			{ find: "const lineBreak = lines.pasting || lines.lineFeedTyped;", replace: "const lineBreak = lines.pasting;" },
		],
		tests: ["test/pi-races/interactive-keys.test.ts"],
	},
	{
		id: "RE04",
		file: "src/cli/chat-input.ts",
		description: "Esc is ignored again: it stops neither an answer, a tool nor a retry's wait (dreb#262)",
		edits: [{ find: 'else if (key?.name === "escape" && !this.pasting) this.onEscape?.();', replace: "" }],
		tests: ["test/pi-races/interactive-keys.test.ts"],
	},
	{
		id: "RE05",
		file: "src/cli/interactive-mode.ts",
		description: "Esc aborts only at a question: a run, a tool or a retry's wait goes on (dreb#262)",
		edits: [
			{
				find: "if (questions.pending || (busy() && !abortStalled)) interrupt();",
				replace: "if (questions.pending) interrupt();",
			},
		],
		tests: ["test/pi-races/interactive-keys.test.ts"],
	},
	{
		id: "RE06",
		file: "src/cli/chat-input.ts",
		description:
			"a terminal resize redraws the prompt while a run prints again: the line being printed is wiped and `> ` lands in the run's output (pi#4568)",
		edits: [{ find: "\t\t\tif (this.showsPrompt?.() === false) return;\n", replace: "" }],
		tests: ["test/pi-races/terminal-resize.test.ts"],
	},
	{
		id: "RE07",
		file: "src/cli/interactive-mode.ts",
		description:
			"a terminal resize never redraws the prompt: the line being typed is left as the old width wrapped it (pi#4568)",
		edits: [
			{ find: "lines.showsPrompt = () => promptShown || questionShown;", replace: "lines.showsPrompt = () => false;" },
		],
		tests: ["test/pi-races/terminal-resize.test.ts"],
	},
	{
		id: "RE08",
		file: "src/cli/chat-input.ts",
		description:
			"Alt+Enter (ESC + Enter) is dropped again, without a word: no follow-up is queued, nothing is sent (pi#7257)",
		edits: [{ find: 'if (name === "return" && meta === true && !this.pasting) {', replace: "if (false) {" }],
		tests: ["test/pi-races/interactive-keys.test.ts"],
	},
	{
		id: "RE09",
		file: "src/cli/interactive-mode.ts",
		description: "Alt+Enter during a run steers it instead of queueing a follow-up (pi#7257)",
		edits: [{ find: 'followUp ? "followUp" : "steer"', replace: '"steer"' }],
		tests: ["test/pi-races/interactive-keys.test.ts"],
	},
	{
		id: "RJ01",
		file: "src/export/index.ts",
		description:
			"an in-memory session (--no-session, SessionManager.inMemory) is refused again: 'Cannot export in-memory session to HTML', no page (pi-coding-agent-action#282)",
		edits: [
			{
				find: "\tconst file = source.getSessionFile();\n",
				replace:
					'\tconst file = source.getSessionFile();\n\tif (file === undefined) throw new SettleError("INVALID_ARGUMENT", "Cannot export in-memory session to HTML");\n',
			},
		],
		tests: ["test/pi-races/export-in-memory-session.test.ts"],
	},
	{
		id: "RJ02",
		file: "src/export/index.ts",
		description:
			"an in-memory session with no message yet is exported as an empty page instead of 'Nothing to export yet'",
		edits: [
			{
				find: "if ((file === undefined || !existsSync(file)) && !source.getEntries().some(isExportedMessage)) {",
				replace: "if (file !== undefined && !existsSync(file) && !source.getEntries().some(isExportedMessage)) {",
			},
		],
		tests: ["test/export/export.test.ts"],
	},
	{
		id: "RJ03",
		file: "src/export/index.ts",
		description: "an in-memory session's default page name is not settle-session-<session id>.html",
		edits: [{ find: "file === undefined ? manager.getSessionId() :", replace: 'file === undefined ? "memory" :' }],
		tests: ["test/pi-races/export-in-memory-session.test.ts"],
	},
	{
		id: "RJ04",
		file: "src/cli/interactive-commands.ts",
		description:
			"/export foo (a new name without an extension) writes the page to foo, which a browser opens as plain text (claude-code#46596)",
		edits: [{ find: `\treturn \`\${path}.html\`;`, replace: "\treturn path;" }],
		tests: ["test/pi-races/export-bare-file-name.test.ts"],
	},
	{
		id: "RJ05",
		file: "src/cli/interactive-commands.ts",
		description: "/export notes, notes an existing file, writes notes.html beside it instead of the file named",
		edits: [
			{
				find: "/[/\\\\]$/.test(path) || existsSync(path)) return path;",
				replace: "/[/\\\\]$/.test(path)) return path;",
			},
		],
		tests: ["test/pi-races/export-bare-file-name.test.ts"],
	},
	{
		id: "RH01",
		description:
			"/session shows a cost above zero that rounds to four zero decimals as $0.0000: a cheap model's spending reads as an unpriced model's zero",
		file: "src/cli/interactive-commands.ts",
		edits: [{ find: 'return cost > 0 && cost < 0.00005 ? "<$0.0001"', replace: 'return false ? "<$0.0001"' }],
		tests: ["test/pi-races/usage-sub-cent-costs.test.ts"],
	},
	{
		id: "RH02",
		description:
			"the exported page shows a cost above zero that rounds to four zero decimals as $0.0000, in its header and beside each answer",
		file: "src/export/page.ts",
		edits: [{ find: 'return v > 0 && v < 0.00005 ? "<$0.0001"', replace: 'return false ? "<$0.0001"' }],
		tests: ["test/pi-races/usage-sub-cent-costs.test.ts"],
	},
	{
		id: "RH03",
		description:
			"an Anthropic answer under PI_CACHE_RETENTION=long prices its 1-hour cache writes at the catalog's 5-minute cacheWrite price, not twice the input price",
		file: "src/llm/long-cache-write-price.ts",
		edits: [{ find: 'if (retention !== "long" ||', replace: "if (true ||" }],
		tests: ["test/pi-races/prompt-cache-retention.test.ts"],
	},
	{
		id: "RH04",
		description:
			"the 1-hour cache-write price is applied to every Anthropic request, the default 5-minute retention too",
		file: "src/llm/long-cache-write-price.ts",
		edits: [{ find: 'if (retention !== "long" ||', replace: "if (" }],
		tests: ["test/pi-races/prompt-cache-retention.test.ts"],
	},
	{
		id: "RK01",
		description:
			"the exported page shows an empty Thinking section for a signed thinking block with no text (pi's export skips it)",
		file: "src/export/page.ts",
		edits: [{ find: "\t\t\t\t\tif (!asText(b.thinking).trim()) continue;", replace: "" }],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "RK02",
		description:
			"a `!` command whose extension operations report `exitCode: null` (killed by a signal) is recorded as a plain run with no code",
		file: "src/session/bash-runner.ts",
		edits: [{ find: "\t\t\tkilledBySignal = run.exitCode === null;", replace: "" }],
		tests: ["test/pi-races/bash-streams.test.ts"],
	},
	{
		id: "RK03",
		description: "the model is not told that a `!` command recorded as killed by a signal was killed",
		file: "src/session/convert-to-llm.ts",
		edits: [{ find: "\t} else if (message.killedBySignal) {", replace: "\t} else if (false) {" }],
		tests: ["test/pi-races/bash-streams.test.ts"],
	},
	{
		id: "RK04",
		description:
			"an Anthropic subscription 429 with a rejected unified window and no Retry-After is retried on the backoff, not at the window's reset",
		file: "src/llm/errors.ts",
		edits: [
			{
				find: '\tif (headers.get("anthropic-ratelimit-unified-status")?.trim() === "rejected" && unifiedReset !== undefined) {',
				replace: "\tif (false) {",
			},
		],
		tests: ["test/pi-races/retry-after-headers.test.ts"],
	},
	{
		id: "RK05",
		description:
			"an Anthropic 429 whose unified window is still allowed takes the window's reset (hours away) as the wait",
		file: "src/llm/errors.ts",
		edits: [
			{
				find: '\tif (headers.get("anthropic-ratelimit-unified-status")?.trim() === "rejected" && unifiedReset !== undefined) {',
				replace: "\tif (unifiedReset !== undefined) {",
			},
		],
		tests: ["test/pi-races/retry-after-headers.test.ts"],
	},
	{
		id: "RK06",
		description:
			"settle -i shows `(exit unknown)` for a `!` command killed by a signal (its operations reported `exitCode: null`)",
		file: "src/cli/interactive-mode.ts",
		edits: [
			{
				find: '\t\t\telse if (result.killedBySignal) printer.line(style.red("(killed by a signal)"));',
				replace: "",
			},
		],
		tests: ["test/pi-races/bash-user-commands.test.ts"],
	},
	{
		id: "RL01",
		description:
			"the exported page shows the word undefined for a field a hand-edited entry lacks (a text block's text, a summary)",
		file: "src/export/page.ts",
		edits: [
			{
				find: 'function asText(value) { return value === undefined || value === null ? "" : String(value); }',
				replace: "function asText(value) { return String(value); }",
			},
		],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "RL02",
		description: "the exported page renders a text block or summary with no text as the word undefined",
		file: "src/export/page.ts",
		edits: [{ find: "\tvar lines = asText(text).split(", replace: "\tvar lines = String(text).split(" }],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "RL03",
		description: "the exported page shows an empty Thinking (redacted) section for a redacted block with blank text",
		file: "src/export/page.ts",
		edits: [
			{
				find: "\t\t\t\t\tif (!asText(b.thinking).trim()) continue;",
				replace: "\t\t\t\t\tif (!b.redacted && !asText(b.thinking).trim()) continue;",
			},
		],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "RL04",
		description: "the exported page hides a redacted thinking block's provider text (pi's export shows it)",
		file: "src/export/page.ts",
		edits: [{ find: 'el("pre", "", b.thinking)', replace: 'el("pre", "", b.redacted ? "" : b.thinking)' }],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "RL05",
		description:
			"a `user_bash` handler's own result with `exitCode: null` (killed by a signal) is recorded as a plain run with no code",
		file: "src/session/bash-runner.ts",
		edits: [{ find: "const result = signalNoted(decision.result);", replace: "const result = decision.result;" }],
		tests: ["test/pi-races/bash-streams.test.ts", "test/pi-races/bash-user-commands.test.ts"],
	},
	{
		id: "RL06",
		description: "a failing bash call whose output was cut loses the Full output pointer in the error text (pi#6609)",
		file: "src/tools/bash.ts",
		edits: [
			{
				find: 'if (exitCode !== 0) throw new SettleError("TOOL", withStatus(text,',
				replace: 'if (exitCode !== 0) throw new SettleError("TOOL", withStatus(snapshot.content,',
			},
		],
		tests: ["test/pi-races/bash-output.test.ts"],
	},
	{
		id: "RL07",
		description:
			"the check of the file is skipped on the first append after a session file's first write (not inside that write): a file replaced then takes the entry",
		file: "src/store/writer.ts",
		edits: [
			{
				find: "\t\tconst changed = this.changedFileError();",
				replace:
					"\t\tconst changed = (this as unknown as { checked?: boolean }).checked ? this.changedFileError() : undefined;\n\t\t(this as unknown as { checked?: boolean }).checked = true;",
			},
		],
		tests: ["test/bad-input/faults.test.ts"],
	},
	{
		id: "RQ01",
		description:
			"navigateTree while a `!` command has not recorded its result moves the leaf: the output lands on the branch moved to (oh-my-pi#5747)",
		file: "src/session/agent-session.ts",
		edits: [
			{
				find: '\t\tif (this.bash.hasUnrecordedResult) throw new SettleError("BUSY", NAVIGATE_WHILE_SHELL_COMMAND);',
				replace: "",
			},
		],
		tests: ["test/pi-races/tree-navigation.test.ts"],
	},
	{
		id: "RQ02",
		description:
			"a `!` command counts as recorded only once its execution has been taken off the teardown's list (microtasks late): a move right after it resolves is refused",
		file: "src/session/bash-runner.ts",
		edits: [{ find: "return this.unrecorded > 0;", replace: "return this.executions.size > 0;" }],
		tests: ["test/pi-races/tree-navigation.test.ts"],
	},
	{
		id: "RQ03",
		description:
			"settle --rpc: a replacement that drops queued messages writes no queue_update: the client's last one still lists the old session's follow-up (hermes-webui#4533)",
		file: "src/cli/rpc-mode.ts",
		edits: [{ find: "previous.pendingMessageCount > 0)", replace: "previous.pendingMessageCount < 0)" }],
		tests: ["test/pi-races/queue-rpc.test.ts"],
	},
	{
		id: "RR01",
		file: "src/resources/frontmatter.ts",
		description:
			"Claude Code's `argument-hint: [pr-number] [priority]` refuses the front matter again (vercel-labs/skills#1525): the template and the skill are not loaded",
		edits: [
			{
				find: "if (/^[[{]/.test(value)) return bracketsClose(value) && !parsesAlone(value);",
				replace: "if (/^[[{]/.test(value)) return false;",
			},
		],
		tests: ["test/pi-races/front-matter-bracket-hints.test.ts"],
	},
	{
		id: "RR02",
		file: "src/resources/frontmatter.ts",
		description:
			"a flow list left open on its line (`argument-hint: [file`) is read as text: broken YAML loads silently instead of being reported",
		edits: [{ find: "return bracketsClose(value) && !parsesAlone(value);", replace: "return !parsesAlone(value);" }],
		tests: ["test/pi-races/front-matter-bracket-hints.test.ts"],
	},
	{
		id: "RR03",
		file: "src/resources/prompt-templates.ts",
		description:
			"a placeholder behind a backslash is filled again (opencode#9831): a meta-command's `\\$1, \\$2 … \\$ARGUMENTS` reach the model as the typed name and blanks",
		edits: [{ find: "escaped ? match.slice(1) : fill(", replace: "fill(" }],
		tests: ["test/pi-races/prompt-templates-literal-dollars.test.ts", "test/pi-races/skills-arguments.test.ts"],
	},
	{
		id: "RR04",
		file: "src/resources/prompt-templates.ts",
		description:
			"`$0` in a template is emptied again (claude-code#78759): `costs $0.01/call` reaches the model as `costs .01/call`, awk's `$0` as nothing",
		edits: [{ find: 'position === "0" ? match : ', replace: "" }],
		tests: ["test/pi-races/prompt-templates-literal-dollars.test.ts"],
	},
	{
		id: "RR05",
		file: "src/resources/prompt-templates.ts",
		description:
			"a template whose only placeholders are escaped or `$0` counts as taking arguments: what the user typed after it is dropped (mastra#13493 again)",
		edits: [{ find: 'if (!match[1] && match[4] !== "0") return true;', replace: "return true;" }],
		tests: ["test/pi-races/prompt-templates-literal-dollars.test.ts"],
	},
	{
		id: "RR06",
		file: "src/resources/prompt-templates.ts",
		description:
			"an unquoted `argument-hint: [message]` (a YAML list) is no hint again (claude-code#22161): /help and get_commands show `/commit` without `[message]`",
		edits: [{ find: 'value.every((item) => typeof item === "string")', replace: "false" }],
		tests: ["test/pi-races/prompt-templates-argument-hints.test.ts"],
	},
	{
		id: "RP01",
		description:
			"a shellPath under ~ (`~/tools/my-bash`) is taken literally: every bash call fails with the shell not found (pi#6458)",
		file: "src/settings/settings-manager.ts",
		edits: [
			{
				find: 'if (path === "~" || path?.startsWith("~/")) return expandHome(path);',
				replace: "",
			},
		],
		tests: ["test/pi-races/settings-resources.test.ts"],
	},
	{
		id: "RP02",
		description:
			"the settings' default model is chosen although its provider has no key and another model has one: every prompt fails on the missing key (pi#3547)",
		file: "src/runtime/sdk.ts",
		edits: [
			{
				find: "if (saved && modelRuntime.hasConfiguredAuth(saved.provider)) return { model: saved };",
				replace: "if (saved) return { model: saved };",
			},
		],
		tests: ["test/pi-races/settings-default-model.test.ts"],
	},
	{
		id: "RP03",
		description:
			"a keyless settings default passed over for another model without a word: the user is not told why the session is not on their model (pi#3547)",
		file: "src/runtime/sdk.ts",
		edits: [{ find: "else if (initial.keylessDefault) {", replace: "else if (!initial.keylessDefault) {" }],
		tests: ["test/pi-races/settings-default-model.test.ts"],
	},
	{
		id: "RN01",
		description:
			"a tool's image given as a data URL keeps its `data:image/png;base64,` prefix (left out as not base64)",
		file: "src/session/images.ts",
		edits: [
			{
				find: "labelledByItsBytes(withPlainBase64(original))",
				replace: "labelledByItsBytes(original)",
			},
		],
		tests: ["test/pi-races/image-data-shapes.test.ts"],
	},
	{
		id: "RN02",
		description: "a prompt's image given as a data URL keeps its prefix (dropped with a hint)",
		file: "src/session/images.ts",
		edits: [
			{
				find: "const image = withPlainBase64(given);\n\t\tconst problem",
				replace: "const image = given;\n\t\tconst problem",
			},
		],
		tests: ["test/pi-races/image-data-shapes.test.ts"],
	},
	{
		id: "RN03",
		description: "a data URL image without a type of its own does not take the URL's type",
		file: "src/session/images.ts",
		edits: [
			{
				find: "const mimeType = image.mimeType || prefix[1]?.toLowerCase() || image.mimeType;",
				replace: "const mimeType = image.mimeType;",
			},
		],
		tests: ["test/pi-races/image-data-shapes.test.ts"],
	},
	{
		id: "RN04",
		description:
			"a prompt's oversized image given as a data URL is resized with its prefix (undecodable, sent unresized)",
		file: "src/session/images.ts",
		edits: [
			{
				find: "const image = withPlainBase64(given);\n\t\tconst outcome",
				replace: "const image = given;\n\t\tconst outcome",
			},
		],
		tests: ["test/pi-races/image-data-shapes.test.ts"],
	},
	{
		id: "RN05",
		description: "whether a prompt's images need resizing is judged on a data URL's prefixed text (never)",
		file: "src/session/images.ts",
		edits: [
			{
				find: "images?.some((image) => needsResize(withPlainBase64(image)))",
				replace: "images?.some((image) => needsResize(image))",
			},
		],
		tests: ["test/pi-races/image-data-shapes.test.ts"],
	},
	{
		id: "RN06",
		description: "settle -p @shot.png to a model without image input says nothing of the image left out",
		file: "src/cli/main.ts",
		edits: [
			{
				find: 'if (files.images.length > 0 && model && !model.input.includes("image")) {',
				replace: "if (files.images.length > 0 && model && false) {",
			},
		],
		tests: ["test/pi-races/image-text-only-models.test.ts"],
	},
	{
		id: "RN07",
		description: "settle -p @shot.png warns that the image was not sent to a model that takes images",
		file: "src/cli/main.ts",
		edits: [
			{
				find: 'if (files.images.length > 0 && model && !model.input.includes("image")) {',
				replace: "if (files.images.length > 0 && model) {",
			},
		],
		tests: ["test/pi-races/image-text-only-models.test.ts"],
	},
	{
		id: "RS01",
		description:
			"settle -r: Ctrl+C while the picked session's extensions load closes the chat's input (readline's default) instead of interrupting: the key is lost and settle waits on the load",
		file: "src/cli/chat-input.ts",
		edits: [{ find: '\t\t\tthis.rl.on("SIGINT", this.onUnclaimedInterrupt);\n', replace: "" }],
		tests: ["test/pi-races/terminal-restored.test.ts"],
	},
	{
		id: "RS02",
		description:
			"settle -i: the chat's Ctrl+C is also sent to the process as SIGINT though the chat listens for it (two interrupts per key)",
		file: "src/cli/chat-input.ts",
		edits: [
			{
				find: 'if (this.rl.listenerCount("SIGINT") !== 1) return;',
				replace: 'if (this.rl.listenerCount("SIGINT") < 1) return;',
			},
		],
		tests: ["test/pi-races/terminal-restored.test.ts", "test/pi-races/interactive-keys.test.ts"],
	},
	{
		id: "RM01",
		description:
			"the plain `/review` two extensions register is refused even when a prompt template `review` exists (the template never runs)",
		file: "src/session/prompt-pipeline.ts",
		edits: [
			{
				find: "\tif (s.resourceLoader.getPrompts().prompts.some((template) => template.name === name)) return;\n",
				replace: "",
			},
		],
		tests: ["test/pi-races/shared-command-names.test.ts"],
	},
	{
		id: "RM02",
		description:
			"`/skill:nosuch do x` is sent to the model as typed again (no INVALID_ARGUMENT for a skill name nothing has)",
		file: "src/session/prompt-pipeline.ts",
		edits: [
			{
				find: '\tif (skill.skill === undefined && expanded === text && text.startsWith("/skill:")) {',
				replace: "\tif (false) {",
			},
		],
		tests: ["test/pi-races/skills-unknown-name.test.ts"],
	},
	{
		id: "RM03",
		description: "the unknown-skill refusal no longer names the skill a settings filter switched off",
		file: "src/session/prompt-pipeline.ts",
		edits: [
			{
				find: "\t\tconst off = switchedOffSkills(s.resourceLoader).find((candidate) => candidate.name === name);",
				replace: "\t\tconst off = undefined;",
			},
		],
		tests: ["test/pi-races/skills-disabled-by-settings.test.ts"],
	},
	{
		id: "RM04",
		description: "the unknown-skill refusal drops the case-sensitivity hint (`/skill:Code` with only `code` loaded)",
		file: "src/session/texts.ts",
		edits: [
			{
				find: "\tconst meant = skillNames.filter((skill) => skill.toLowerCase() === name.toLowerCase());",
				replace: "\tconst meant: string[] = [];",
			},
		],
		tests: ["test/pi-races/skills-unknown-name.test.ts"],
	},
	{
		id: "RX01",
		description:
			"grep: POSIX classes in brackets ([[:space:]]) are left to JavaScript, which reads them as a set of letters",
		file: "src/tools/grep.ts",
		edits: [{ find: "\t\tsource = translateRgSyntax(source);", replace: "" }],
		tests: ["test/pi-races/grep-posix-classes.test.ts"],
	},
	{
		id: "RX02",
		description: "grep: [[:space:]] misses the tab",
		file: "src/tools/grep.ts",
		edits: [{ find: 'space: "\\\\t\\\\n', replace: 'space: "\\\\n' }],
		tests: ["test/pi-races/grep-posix-classes.test.ts"],
	},
	{
		id: "RX03",
		description:
			'grep: a glob with / that takes no file from the search folder answers a bare "No matches found", no word of the glob that matches deeper',
		file: "src/tools/grep.ts",
		edits: [{ find: '|| glob.startsWith("**/")) return undefined;', replace: "|| true) return undefined;" }],
		tests: ["test/pi-races/grep-glob-from-above.test.ts"],
	},
	{
		id: "RX04",
		description: "grep: a glob with / that took files (none matching) is still told to match at any depth",
		file: "src/tools/grep.ts",
		edits: [{ find: "!globTookAFile && deeperFile !== undefined", replace: "deeperFile !== undefined" }],
		tests: ["test/pi-races/grep-glob-from-above.test.ts"],
	},
	{
		id: "RV01",
		file: "src/session/provider-stream.ts",
		description:
			'an answer a content filter stopped shows pi-ai\'s bare "Provider finish_reason: content_filter", nothing on what to do (pi#2168)',
		edits: [{ find: "?? contentFilterText(text) ?? text;", replace: "?? text;" }],
		tests: ["test/pi-races/content-filter-stops.test.ts", "test/pi-races/retry-stream-ends.test.ts"],
	},
	{
		id: "RV02",
		file: "src/llm/responses-incomplete.ts",
		description:
			'a Responses answer incomplete for "content_filter" goes on as response.completed: read as cut at the output cap, the user told to raise maxTokens (langchain4j#6181)',
		edits: [
			{
				find: 'data.response?.incomplete_details?.reason === "content_filter" ? "response.failed" : COMPLETED',
				replace: "COMPLETED",
			},
		],
		tests: ["test/pi-races/content-filter-stops.test.ts", "test/llm/responses-incomplete.test.ts"],
	},
	{
		id: "RV03",
		file: "src/llm/content-filter-stop.ts",
		description:
			'a Responses answer a content filter stopped shows pi-ai\'s bare "incomplete: content_filter" (langchain4j#6181)',
		edits: [{ find: "[/^incomplete: content_filter$/,", replace: "[/^incomplete: content_filter-$/," }],
		tests: ["test/pi-races/content-filter-stops.test.ts"],
	},
	{
		id: "RU01",
		description:
			"settle -r: a SIGTERM while the session picker waits (no other handler yet) gets Node's default kill, leaving paste marks on",
		file: "src/cli/chat-input.ts",
		edits: [
			{
				find: "for (const signal of FALLBACK_SIGNALS) process.on(signal, this.onUnhandledSignal);",
				replace: "",
			},
		],
		tests: ["test/pi-races/terminal-restored.test.ts"],
	},
	{
		id: "RU02",
		description: "settle -i: a crash no extension owns prints its stack on the prompt's line (`> SyntaxError…`)",
		file: "src/cli/termination.ts",
		edits: [
			{
				find: 'const freshLine = crashLineOpen?.() === true ? "\\n" : "";',
				replace: 'const freshLine = "";',
			},
		],
		tests: ["test/pi-races/terminal-restored.test.ts"],
	},
	{
		id: "RU03",
		description:
			"settle -i: the chat never says whether its prompt's line is open, so a crash's stack starts after `> `",
		file: "src/cli/interactive-mode.ts",
		edits: [
			{
				find: "reportCrashesBelow(() => !printer.lineStart || promptShown || questionShown)",
				replace: "reportCrashesBelow(() => false)",
			},
		],
		tests: ["test/pi-races/terminal-restored.test.ts"],
	},
	{
		id: "RU04",
		description:
			"settle -p: Ctrl+C during the threshold compaction after the answer exits 130 with no word that the compaction was cancelled",
		file: "src/cli/print-mode.ts",
		edits: [
			{
				find: 'if (event.type === "compaction_end" && event.aborted && !event.cancelledBy && event.reason !== "manual") {',
				replace:
					'if (event.type === "compaction_end" && event.aborted && !event.cancelledBy && event.reason === "manual") {',
			},
		],
		tests: ["test/pi-races/print-interrupt.test.ts"],
	},
	{
		id: "RY01",
		file: "src/cli/interactive-render.ts",
		description:
			"handochan/aelix-ai#177: the chat prints the model's tool name as given: its OSC title, CR and LF reach the terminal",
		edits: [{ find: "s.bold(oneLineText(event.toolName))", replace: "s.bold(event.toolName)" }],
		tests: ["test/pi-races/chat-terminal-text.test.ts"],
	},
	{
		id: "RY02",
		file: "src/cli/interactive-render.ts",
		description:
			"handochan/aelix-ai#181: a clipped line keeps surrogate pairs whole only: half a flag shows as another letter",
		edits: [
			{
				find: "return end > 0 ? text.slice(0, end) : sliceWholeCharacters(text, max);",
				replace: "return sliceWholeCharacters(text, max);",
			},
		],
		tests: ["test/pi-races/chat-terminal-text.test.ts"],
	},
	{
		id: "RW01",
		description:
			'calls of two turns of a model that numbers them anew (`bash:0` each turn) go to a Responses model under one call_id: every request after the switch refused "Duplicate function_call_output" (hermes-agent#102629)',
		file: "src/llm/tool-call-ids.ts",
		edits: [{ find: "\t...Object.fromEntries([...RESPONSES_APIS].map((api) => [api, responsesId])),\n", replace: "" }],
		tests: ["test/pi-races/tool-call-ids-across-providers.test.ts"],
	},
	{
		id: "RW02",
		description:
			"a Responses call_id another call of the request already has is sent again: two outputs under one call_id, the request refused (hermes-agent#102629)",
		file: "src/llm/tool-call-ids.ts",
		edits: [{ find: `if (!taken.has(sent)) return \`\${sent}\${item}\`;`, replace: `return \`\${sent}\${item}\`;` }],
		tests: ["test/pi-races/tool-call-ids-across-providers.test.ts"],
	},
	{
		id: "RW03",
		description:
			'calls a Responses server sent without an item id go back under the item id `undefined`: two of them, and the next request is refused "Duplicate item found" (pi#9057)',
		file: "src/llm/pi-ai.ts",
		edits: [{ find: "onContext(withoutMissingItemIds),", replace: "" }],
		tests: ["test/pi-races/tool-call-ids-across-providers.test.ts"],
	},
	{
		id: "RT01",
		description:
			"recordBashResult saves exitCode: null as given: a command killed by a signal is not marked and the model is told nothing",
		file: "src/session/agent-session.ts",
		edits: [
			{
				find: "this.bash.record(command, signalNoted(result), options);",
				replace: "this.bash.record(command, result, options);",
			},
		],
		tests: ["test/pi-races/bash-user-commands.test.ts"],
	},
	{
		id: "RT02",
		description: "the export's tree calls a user message with only empty text blocks `[image]` though it has no image",
		file: "src/export/page.ts",
		edits: [
			{
				find: 'return "user: " + (images ? "[image]" : "(empty)");',
				replace: 'return "user: [image]";',
			},
		],
		tests: ["test/export/export-page.test.ts"],
	},
	{
		id: "RT03",
		description:
			"a skill whose only `$ARGUMENTS` is behind a backslash counts as placing its arguments: what the user typed is dropped",
		file: "src/resources/skills.ts",
		edits: [{ find: "if (!match[1]) return true;", replace: "return true;" }],
		tests: ["test/pi-races/skills-arguments.test.ts"],
	},
	{
		id: "RT04",
		description:
			"a template's description cut from its first line at 60 UTF-16 units splits an emoji: get_commands and /help show a lone half (U+FFFD)",
		file: "src/resources/prompt-templates.ts",
		edits: [{ find: `\${sliceWholeCharacters(firstLine, 60)}...`, replace: `\${firstLine.slice(0, 60)}...` }],
		tests: ["test/pi-races/prompt-templates-argument-hints.test.ts"],
	},
	{
		id: "RT05",
		description:
			"a tool image with empty data is called `not base64`, not `no image data`, unlike a prompt image's (argent#261)",
		file: "src/session/convert-to-llm.ts",
		edits: [
			{
				find: '\tif (typeof image.data !== "string" || image.data.length === 0) return "[Image omitted: it has no image data.]";\n',
				replace: "",
			},
		],
		tests: ["test/pi-races/image-data-shapes.test.ts"],
	},
	{
		id: "SF01",
		description: "a cleared steer / follow-up is quoted cut at 60 UTF-16 units, between an emoji's halves",
		file: "src/session/texts.ts",
		edits: [{ find: `\`\${sliceWholeCharacters(text, 60)}…\``, replace: `\`\${text.slice(0, 60)}…\`` }],
		tests: ["test/pi-races/queue-clear-in-flight.test.ts"],
	},
	{
		id: "SF02",
		description: "an invalid setting's value is quoted cut at 57 UTF-16 units, between an emoji's halves",
		file: "src/settings/validate.ts",
		edits: [{ find: `\`\${sliceWholeCharacters(text, 57)}...\``, replace: `\`\${text.slice(0, 57)}...\`` }],
		tests: ["test/settings/settings-manager.test.ts"],
	},
	{
		id: "SF03",
		description: "a torn line's cut-off bytes are quoted cut at 60 UTF-16 units, between an emoji's halves",
		file: "src/store/session-file.ts",
		edits: [
			{
				find: `\`\${sliceWholeCharacters(fragment, QUOTED_FRAGMENT_CHARS)}…\``,
				replace: `\`\${fragment.slice(0, QUOTED_FRAGMENT_CHARS)}…\``,
			},
		],
		tests: ["test/store/damaged-lines.test.ts"],
	},
	{
		id: "SF04",
		description: "a printed trace line's payload is cut at 157 UTF-16 units, between an emoji's halves",
		file: "src/inspect/trace.ts",
		edits: [{ find: `\`\${sliceWholeCharacters(text, 157)}...\``, replace: `\`\${text.slice(0, 157)}...\`` }],
		tests: ["test/inspect/trace.test.ts"],
	},
	{
		id: "SF05",
		description: "grep: rg's \\A / \\z are left to JavaScript, which reads them as the letters A / z",
		file: "src/tools/grep.ts",
		edits: [{ find: 'escaped === "\\\\A" ? "^" : escaped === "\\\\z" ? "$" : escaped', replace: "escaped" }],
		tests: ["test/pi-races/grep-posix-classes.test.ts"],
	},
	{
		id: "SF06",
		description: "grep: a negated POSIX class ([[:^space:]]) is read as a set of letters",
		file: "src/tools/grep.ts",
		edits: [{ find: "/^\\[:(\\^?)([a-z]+):\\]/", replace: "/^\\[:()([a-z]+):\\]/" }],
		tests: ["test/pi-races/grep-posix-classes.test.ts"],
	},
	{
		id: "SF07",
		description: "grep: a bracket holding both members and a negated POSIX class ([1[:^alnum:]]) drops its members",
		file: "src/tools/grep.ts",
		edits: [{ find: `...(members ? [\`[\${members}]\`] : []), `, replace: "" }],
		tests: ["test/pi-races/grep-posix-classes.test.ts"],
	},
	{
		id: "SF08",
		description: "Bedrock gets no tool-call-id rule: Grok's `call_0` of two answers goes as one toolUseId",
		file: "src/llm/tool-call-ids.ts",
		edits: [{ find: '\t"bedrock-converse-stream": anthropicId,\n', replace: "" }],
		tests: ["test/pi-races/bedrock-alternating-roles.test.ts"],
	},
	{
		id: "SC01",
		description:
			"settle -i prints a status's text unfolded: its line break gives an unlabelled line, unlike pi's footer (nicknisi/pi-extensions#56)",
		file: "src/cli/interactive-ui.ts",
		edits: [{ find: 'kind === "status" ? lines.map(foldedStatus) : ', replace: 'kind === "status" ? lines : ' }],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "SC02",
		description:
			"settle -i makes a notification safe after its label is put in front: a carriage return redraws the [type] label (nicknisi/pi-extensions#56)",
		file: "src/cli/interactive-ui.ts",
		edits: [
			{
				find: `printLine(\`[\${outputLineSafe(String(type))}] \${safe(String(message))}\`, type);`,
				replace: `printLine(safe(\`[\${String(type)}] \${String(message)}\`), type);`,
			},
		],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "SC03",
		description:
			"settle -p prints an extension's notification raw on stderr: its OSC 52 reaches the terminal (jayshah5696/pi-agent-extensions#30)",
		file: "src/cli/print-mode.ts",
		edits: [{ find: 'String(message).split("\\n").map(outputLineSafe).join("\\n")', replace: "String(message)" }],
		tests: ["test/pi-races/extension-ui-headless.test.ts"],
	},
	{
		id: "SC04",
		description:
			"settle -i prints a widget line holding a line break as one text: the second line has no [key] label (nicknisi/pi-extensions#56)",
		file: "src/cli/interactive-ui.ts",
		edits: [{ find: ': lines.flatMap((line) => line.split("\\n"));', replace: ": lines;" }],
		tests: ["test/pi-races/interactive-extension-ui.test.ts"],
	},
	{
		id: "SC05",
		description:
			"settle --rpc names a dialog it ends on SIGTERM as ended because its session was replaced (jmfederico/pi-web#109)",
		file: "src/cli/rpc-mode.ts",
		edits: [
			{ find: 'ui.dismissOpen(runtime.isDisposed ? "ending" : "replaced")', replace: 'ui.dismissOpen("replaced")' },
		],
		tests: ["test/pi-races/rpc-dialog-replaced-session.test.ts"],
	},
	{
		id: "SA01",
		description:
			"the previous summary goes to the summarizer and into a split turn's history with its file lists, appended again after (pi#9945)",
		file: "src/compaction/summarize.ts",
		edits: [
			{
				find: "preparation.previousSummary === undefined ? undefined : withoutFileLists(preparation.previousSummary);",
				replace: "preparation.previousSummary;",
			},
		],
		tests: ["test/pi-races/compaction-manual.test.ts"],
	},
	{
		id: "SA02",
		description: "only the first generated file list is taken out of the previous summary (pi#9945)",
		file: "src/compaction/file-operations.ts",
		edits: [{ find: '<\\/\\1>/g, "");', replace: '<\\/\\1>/, "");' }],
		tests: ["test/pi-races/compaction-manual.test.ts"],
	},
	{
		id: "SA03",
		description:
			"a long tool result reaches the summarizer without its last 500 characters: a test run's failure, printed last, is lost (gsd-2#4665)",
		file: "src/compaction/serialize.ts",
		edits: [{ find: "let tailStart = text.length - TOOL_RESULT_TAIL_CHARS;", replace: "let tailStart = text.length;" }],
		tests: ["test/pi-races/compaction-manual.test.ts"],
	},
	{
		id: "SA04",
		description:
			"a long tool result's kept end starts between an emoji's halves: a lone surrogate goes to the provider (claude-code#56064, gsd-2#4665)",
		file: "src/compaction/serialize.ts",
		edits: [{ find: "if (first >= 0xdc00 && first <= 0xdfff) tailStart++;", replace: "" }],
		tests: ["test/pi-races/cut-surrogate-pairs.test.ts"],
	},
	{
		id: "SB01",
		description:
			"an auth.json `$NAME` key whose variable is unset is sent as the literal key again, blocking models.json's apiKey (opencode#34388)",
		file: "src/runtime/auth-storage.ts",
		edits: [{ find: "\t\tif (unsetVariableOf(key)) return undefined;\n", replace: "" }],
		tests: ["test/pi-races/providers-auth.test.ts"],
	},
	{
		id: "SB02",
		description:
			"models.json's `$NAME` apiKey with the variable unset still counts as a key: no NO_AUTH, pi-ai's bare error instead (opencode#34388)",
		file: "src/session/model-registry-view.ts",
		edits: [
			{
				find: "const usable = apiKey && !unsetVariableOf(apiKey) ? apiKey : undefined;",
				replace: "const usable = apiKey;",
			},
		],
		tests: ["test/pi-races/providers-auth.test.ts"],
	},
	{
		id: "SB03",
		description:
			"a key variable set to blanks counts as set again: it shadows models.json's apiKey and goes out as an empty bearer (Floway#142)",
		file: "src/llm/pi-ai.ts",
		edits: [{ find: "?.find((name) => process.env[name]?.trim());", replace: "?.find((name) => process.env[name]);" }],
		tests: ["test/pi-races/providers-auth.test.ts"],
	},
	{
		id: "SB04",
		description:
			"models.json's `$NAME` apiKey with the variable unset gets no warning naming the variable (opencode#34388)",
		file: "src/runtime/models-json.ts",
		edits: [{ find: "\t\tif (unset) {\n\t\t\twarn(", replace: "\t\tif (unset && false) {\n\t\t\twarn(" }],
		tests: ["test/pi-races/providers-auth.test.ts"],
	},
	{
		id: "SB05",
		description:
			'a 403 refusing the network\'s region gets the key note again ("replace OPENAI_API_KEY") instead of the region note (continue#11449)',
		file: "src/session/provider-stream.ts",
		edits: [
			{
				find: "const regionNote = refusedStatus === 403 ? refusedRegionNote(model.provider, text) : undefined;",
				replace: "const regionNote = undefined as string | undefined;",
			},
		],
		tests: ["test/pi-races/refused-key-sources.test.ts"],
	},
	{
		id: "SD01",
		description:
			"a custom model id ending in pi's `:<level>` suffix is sent to the provider as the id, not refused with the command to use (pi#5552)",
		file: "src/runtime/sdk.ts",
		edits: [
			{
				find: "const suffix = thinkingLevel === undefined ? THINKING_SUFFIX.exec(id) : null;",
				replace: "const suffix = null as RegExpExecArray | null;",
			},
		],
		tests: ["test/pi-races/model-picking.test.ts"],
	},
	{
		id: "SD02",
		description:
			"`--thinking high` on a custom model id copied from a model that cannot reason is dropped without a word (pi#5552)",
		file: "src/runtime/sdk.ts",
		edits: [
			{ find: "model: { ...base, id, name: id, reasoning: reasons },", replace: "model: { ...base, id, name: id }," },
		],
		tests: ["test/pi-races/model-picking.test.ts"],
	},
	{
		id: "SD03",
		description:
			'`--list-models "opus 4-5"` takes the search as one piece of text: "No model matches" for pi\'s documented form (pi#203)',
		file: "src/cli/main.ts",
		edits: [
			{
				find: "return words.every((word) => text.includes(word));",
				replace: 'return text.includes(words.join(" "));',
			},
		],
		tests: ["test/pi-races/models-cli.test.ts"],
	},
	{
		id: "SE01",
		description: "--json writes each message_update whole, the answer so far twice on every delta (pi#7395)",
		file: "src/cli/print-mode.ts",
		edits: [{ find: "out.stdout(jsonLine(jsonStreamEvent(event)));", replace: "out.stdout(jsonLine(event));" }],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "SE02",
		description: "--json's delta-only toolcall_start no longer names its call's id and tool (pi#7395)",
		file: "src/cli/print-mode.ts",
		edits: [
			{
				find: 'const named = call?.type === "toolCall" ? { ...delta, id: call.id, toolName: call.name } : delta;',
				replace: "const named = delta;",
			},
		],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "SE03",
		description:
			"--json run that fails to start (an unknown --session, a missing @file) writes nothing on stdout (opencode#27559)",
		file: "src/cli/main.ts",
		edits: [{ find: "sayJsonRefusal(args, out, text);", replace: "" }],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "SE04",
		description:
			"-p on an answer with only thinking says just 'holds no text', as if the model did nothing (DeepSeek-Reasonix#10301)",
		file: "src/cli/print-mode.ts",
		edits: [
			{
				find: "else if (!text && thoughtLength(runtime.session) > 0) out.stderr(onlyThinkingText(thoughtLength(runtime.session)));",
				replace: "",
			},
		],
		tests: ["test/pi-races/output-modes.test.ts"],
	},
	{
		id: "SH01",
		description: "--json refused for a bad option writes nothing on stdout (opencode#27559)",
		file: "src/cli/main.ts",
		edits: [
			{
				find: 'sayJsonRefusal(args, out, optionErrors.map((diagnostic) => diagnostic.message).join("\\n"));',
				replace: "",
			},
		],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "SH02",
		description: "--json with no prompt writes nothing on stdout (opencode#27559)",
		file: "src/cli/main.ts",
		edits: [{ after: "const noPrompt = () => {", find: "sayJsonRefusal(args, out, refusal);", replace: "" }],
		tests: ["test/pi-races/print-json-output.test.ts"],
	},
	{
		id: "SH03",
		description: "settle -i: an extension's select with no options asks 'Choose 1-0', which any answer cancels",
		file: "src/cli/interactive-ui.ts",
		edits: [{ find: "if (options.length === 0) {", replace: "if (options.length < 0) {" }],
		tests: ["test/cli/interactive.test.ts"],
	},
	{
		id: "SH04",
		description: "a models.json header '$NAME' with NAME unset is sent as its literal text '$NAME'",
		file: "src/session/model-registry-view.ts",
		edits: [
			{ find: "unsetVariableOf(value) ? undefined : resolveConfigValue(value)", replace: "resolveConfigValue(value)" },
		],
		tests: ["test/pi-races/providers-auth.test.ts"],
	},
	{
		id: "SH05",
		description: "a models.json header '$NAME' with NAME unset is left out without a warning naming the variable",
		file: "src/runtime/models-json.ts",
		edits: [{ find: "headersWhere(entry, headerModels, unsetVariableOf)", replace: "new Map<string, string>()" }],
		tests: ["test/pi-races/providers-auth.test.ts"],
	},
	{
		id: "SH06",
		description:
			"--model provider/part that several models match runs pi's pick without a word of the others (hermes-agent#101975)",
		file: "src/runtime/sdk.ts",
		edits: [
			{ find: "if (others.length === 0) return undefined;", replace: "if (others.length >= 0) return undefined;" },
		],
		tests: ["test/cli/pi-provider-flags.test.ts"],
	},
	{
		id: "SH07",
		description:
			"--rpc --json (two modes asked for) writes --json's error line on stdout, which belongs to neither mode",
		file: "src/cli/args.ts",
		edits: [{ find: "\tdelete result.mode;\n", replace: "" }],
		tests: ["test/cli/cli.test.ts"],
	},
];

/** The mutated text, or undefined when an edit's `find` (or its `after` anchor) is no longer in the file. */
export function applyEdits(text: string, mutant: Mutant): string | undefined {
	let result = text;
	for (const edit of mutant.edits) {
		const from = edit.after === undefined ? 0 : uniqueIndex(result, edit.after);
		if (from === undefined) return undefined;
		const at = edit.after === undefined ? uniqueIndex(result, edit.find) : result.indexOf(edit.find, from);
		if (at === undefined || at < 0) return undefined;
		result = result.slice(0, at) + edit.replace + result.slice(at + edit.find.length);
	}
	return result;
}

function uniqueIndex(text: string, find: string): number | undefined {
	const at = text.indexOf(find);
	return at >= 0 && text.indexOf(find, at + 1) < 0 ? at : undefined;
}
