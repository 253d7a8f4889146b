/**
 * An extension provider (the source of an extension file) whose model streams "partial words", then
 * waits until the request is aborted: a stream stopped half-way, which the faux model cannot do (it
 * streams at once). Shared by the `settle -i` tests (a stopped answer, a stopped branch summary) and
 * the `settle --json` retry test (a first answer that fails, a retried one stopped while it streams).
 */
export interface SlowProviderOptions {
	/** The provider's name; its model is `<name>/<name>-1`, its api `<name>-api`. Default "slow". */
	name?: string;
	/** The error message of the first answer (an error at once, e.g. a 503 to retry); the later ones stream. */
	failFirstWith?: string;
	/**
	 * While it waits for the abort, an open handle keeps the process alive, as a real provider's
	 * socket does (a `settle -p` run has nothing else that holds the event loop: it would exit).
	 */
	holdsConnection?: boolean;
}

/** The extension file's source: see {@link SlowProviderOptions}. */
export function slowProvider(options: SlowProviderOptions = {}): string {
	const name = options.name ?? "slow";
	const title = name.charAt(0).toUpperCase() + name.slice(1);
	const failFirst = options.failFirstWith;
	const hold = options.holdsConnection === true;
	return `const usage = () => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
let calls = 0;
export default function (pi) {
	pi.registerProvider(${JSON.stringify(name)}, {
		baseUrl: "http://localhost:0",
		apiKey: "none",
		api: ${JSON.stringify(`${name}-api`)},
		models: [{ id: ${JSON.stringify(`${name}-1`)}, name: ${JSON.stringify(title)}, reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 100000, maxTokens: 1000 }],
		streamSimple: (model, _context, options) => {
			calls++;
			const partial = { role: "assistant", content: [{ type: "text", text: "" }], api: model.api, provider: model.provider, model: model.id, usage: usage(), stopReason: "stop", timestamp: Date.now() };
			let finish;
			const result = new Promise((resolve) => { finish = resolve; });
			const failFirst = ${JSON.stringify(failFirst ?? null)};
			async function* failing() {
				const error = { ...partial, content: [], stopReason: "error", errorMessage: failFirst };
				finish(error);
				yield { type: "error", reason: "error", error };
			}
			async function* slow() {
				yield { type: "start", partial };
				yield { type: "text_start", contentIndex: 0, partial };
				partial.content[0].text = "partial words";
				yield { type: "text_delta", contentIndex: 0, delta: "partial words", partial };
				const connection = ${hold ? "setInterval(() => {}, 1000)" : "undefined"};
				await new Promise((resolve) => {
					if (options?.signal?.aborted) resolve();
					options?.signal?.addEventListener("abort", resolve);
				});
				clearInterval(connection);
				const error = { ...partial, stopReason: "aborted", errorMessage: "Request was aborted" };
				finish(error);
				yield { type: "error", reason: "aborted", error };
			}
			return { [Symbol.asyncIterator]: failFirst !== null && calls === 1 ? failing : slow, result: () => result };
		},
	});
}
`;
}
