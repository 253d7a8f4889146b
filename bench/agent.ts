/**
 * Per-turn cost of the Agent vs transcript length, with an instant provider (one `done` event,
 * no deltas), so only the Agent/loop overhead is measured. The same workload runs on pi's Agent
 * (pi-agent-core 0.73.1) as a baseline. Prints JSON.
 *
 *   npx tsx bench/agent.ts            (ROUNDS, TURNS, WARMUP env vars override the defaults)
 *
 * Target: per-turn time at 10,000 messages ≤ 1.5 × the time at 10 messages.
 */
import { Agent as PiAgent } from "@mariozechner/pi-agent-core";
import { Agent } from "../src/agent/agent.js";
import { instantStreamFn } from "../src/llm/event-stream.js";
import { createFauxProvider, fauxAssistantMessage } from "../src/llm/faux.js";
import type { AgentMessage, AssistantMessage, StreamFn } from "../src/llm/types.js";

const SIZES = [10, 1_000, 10_000];
const ROUNDS = Number(process.env.ROUNDS ?? 25);
const TURNS = Number(process.env.TURNS ?? 200);
const WARMUP = Number(process.env.WARMUP ?? 5);

const model = createFauxProvider().getModel()!;
const reply = fauxAssistantMessage("Done. The change is in place and the tests pass.");
// A fresh message per call, like a real provider.
const streamFn: StreamFn = instantStreamFn((requestModel) => ({
	...reply,
	api: requestModel.api,
	provider: requestModel.provider,
	model: requestModel.id,
	timestamp: Date.now(),
}));

function transcript(size: number): AgentMessage[] {
	const messages: AgentMessage[] = [];
	for (let index = 0; index < size; index++) {
		messages.push(
			index % 2 === 0
				? {
						role: "user",
						content: [{ type: "text", text: `Please look at file ${index}.ts and fix the bug.` }],
						timestamp: index,
					}
				: ({
						...reply,
						content: [{ type: "text", text: `Fixed file ${index - 1}.ts.` }],
						timestamp: index,
					} as AssistantMessage),
		);
	}
	return messages;
}

interface Subject {
	name: string;
	setMessages(messages: AgentMessage[]): void;
	prompt(text: string): Promise<void>;
}

function settleSubject(): Subject {
	const agent = new Agent({ streamFn, initialState: { model, systemPrompt: "You are a coding agent." } });
	agent.subscribe(() => {});
	return {
		name: "settle",
		setMessages: (messages) => {
			agent.state.messages = messages;
		},
		prompt: (text) => agent.prompt(text),
	};
}

function piSubject(): Subject {
	const agent = new PiAgent({
		streamFn: streamFn as never,
		initialState: { model: model as never, systemPrompt: "You are a coding agent." },
	});
	agent.subscribe(() => {});
	return {
		name: "pi-agent-core 0.73.1",
		setMessages: (messages) => {
			agent.state.messages = messages as never;
		},
		prompt: (text) => agent.prompt(text),
	};
}

interface Sample {
	wall: number;
	cpu: number;
}

/** µs per turn for one batch: reset to the base transcript (untimed), one untimed turn, then TURNS timed turns. */
async function batch(subject: Subject, base: AgentMessage[]): Promise<Sample> {
	subject.setMessages(base);
	await subject.prompt("warm");
	const cpuStart = process.cpuUsage();
	const start = performance.now();
	for (let turn = 0; turn < TURNS; turn++) await subject.prompt("next");
	const wall = ((performance.now() - start) * 1000) / TURNS;
	const cpu = process.cpuUsage(cpuStart);
	return { wall, cpu: (cpu.user + cpu.system) / TURNS };
}

/** Linear-interpolated quantile (0.5 = median). */
function quantile(values: number[], q: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	const position = (sorted.length - 1) * q;
	const low = Math.floor(position);
	const high = Math.ceil(position);
	return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

type Cells = Record<string, number>;
interface Result {
	median: { wall: Cells; cpu: Cells };
	p25: { wall: Cells; cpu: Cells };
}

/**
 * Every round measures every (subject, size) cell once; the cell order rotates per round, so
 * load from other processes and drift (JIT, heap growth) hit all cells alike.
 */
async function measure(subjects: Subject[]): Promise<Result[]> {
	const bases = new Map(SIZES.map((size) => [size, transcript(size)]));
	const cells = subjects.flatMap((_, index) => SIZES.map((size) => ({ index, size })));
	const samples = subjects.map(() => new Map<number, Sample[]>(SIZES.map((size) => [size, []])));
	for (let round = 0; round < WARMUP + ROUNDS; round++) {
		for (let offset = 0; offset < cells.length; offset++) {
			const { index, size } = cells[(round + offset) % cells.length]!;
			const sample = await batch(subjects[index]!, bases.get(size)!);
			if (round >= WARMUP) samples[index]!.get(size)!.push(sample);
		}
	}
	const table = (bySize: Map<number, Sample[]>, key: keyof Sample, q: number): Cells =>
		Object.fromEntries(
			SIZES.map((size) => [
				String(size),
				Number(
					quantile(
						bySize.get(size)!.map((sample) => sample[key]),
						q,
					).toFixed(2),
				),
			]),
		);
	return samples.map((bySize) => ({
		median: { wall: table(bySize, "wall", 0.5), cpu: table(bySize, "cpu", 0.5) },
		p25: { wall: table(bySize, "wall", 0.25), cpu: table(bySize, "cpu", 0.25) },
	}));
}

const [settle, pi] = await measure([settleSubject(), piSubject()]);
const ratio = (cells: Cells) => Number((cells["10000"]! / cells["10"]!).toFixed(3));
const report = (result: Result) => ({
	median: result.median,
	p25: result.p25,
	ratio10000vs10: {
		medianWall: ratio(result.median.wall),
		medianCpu: ratio(result.median.cpu),
		p25Wall: ratio(result.p25.wall),
		p25Cpu: ratio(result.p25.cpu),
	},
});

console.log(
	JSON.stringify(
		{
			benchmark: "agent per-turn time vs transcript length (instant provider)",
			unit: "µs per turn; median and lower quartile (p25, least disturbed by other processes) over rounds",
			config: { sizes: SIZES, rounds: ROUNDS, turnsPerBatch: TURNS, warmupRounds: WARMUP, node: process.version },
			settle: report(settle!),
			baseline: { name: "pi-agent-core 0.73.1", ...report(pi!) },
			target: {
				ratio10000vs10: 1.5,
				metMedianCpu: ratio(settle!.median.cpu) <= 1.5,
				metP25Wall: ratio(settle!.p25.wall) <= 1.5,
			},
		},
		null,
		2,
	),
);
