import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { recordExampleTrace, recordRuntimeExampleTrace } from "../../src/inspect/example-traces.js";
import {
	EXAMPLE_TRACE_FILE,
	MACHINE_VISUALIZATIONS,
	RUNTIME_EXAMPLE_TRACE_FILE,
	renderVisualizations,
	VIZ_COMMAND,
	writeVisualizations,
} from "../../src/inspect/visualizations.js";

const checkedIn = fileURLToPath(new URL("../../visualizations", import.meta.url));

describe("visualizations/", () => {
	it("is up to date with the machine definitions", async () => {
		const rendered = await renderVisualizations();
		const onDisk = (await readdir(checkedIn)).sort();
		expect(onDisk, `visualizations/ has missing or extra files: run \`${VIZ_COMMAND}\``).toEqual(
			[...rendered.keys()].sort(),
		);
		for (const [file, content] of rendered) {
			const current = await readFile(join(checkedIn, file), "utf8");
			expect(current === content, `visualizations/${file} is stale: run \`${VIZ_COMMAND}\` and commit the result`).toBe(
				true,
			);
		}
	});

	it("has both example trace pages, linked from the index", async () => {
		const rendered = await renderVisualizations();
		const index = rendered.get("README.md") ?? "";
		for (const file of [EXAMPLE_TRACE_FILE, RUNTIME_EXAMPLE_TRACE_FILE]) {
			expect(rendered.get(file)?.startsWith("<!doctype html>"), file).toBe(true);
			expect(index).toContain(`[${file}](${file})`);
		}
		expect(rendered.get(RUNTIME_EXAMPLE_TRACE_FILE)).toContain('<nav class="machines"');
		expect(rendered.get(EXAMPLE_TRACE_FILE)).not.toContain('<nav class="machines"');
	});

	it("renders the same bytes on every run: simulated times, scripted ids, no paths of this computer", async () => {
		const [first, second] = [await renderVisualizations(), await renderVisualizations()];
		expect([...second]).toEqual([...first]);
		const paths = [process.cwd(), checkedIn, tmpdir(), homedir()].filter((path) => path.length > 1);
		for (const path of new Set(paths)) {
			for (const [file, content] of first) expect(content.includes(path), `${file} names ${path}`).toBe(false);
		}
		// Times come from the SimulatedClock: 0 until the 2 s retry backoff, 2000 after it, 4000 after
		// the compaction's 2 s summary retry backoff.
		for (const trace of [await recordExampleTrace(), await recordRuntimeExampleTrace()]) {
			expect(new Set(trace.events.map((event) => event.at))).toEqual(new Set([0, 2000, 4000]));
		}
	});

	it("has a Mermaid source and an SVG for every machine, linked from the index", async () => {
		const rendered = await renderVisualizations();
		const index = rendered.get("README.md") ?? "";
		for (const viz of MACHINE_VISUALIZATIONS) {
			expect(rendered.get(`${viz.name}.mmd`)).toContain("stateDiagram-v2");
			expect(rendered.get(`${viz.name}.svg`)).toContain("<svg");
			expect(index).toContain(`(${viz.name}.svg)`);
			expect(index).toContain(`(${viz.name}.mmd)`);
		}
		expect(index).toContain(VIZ_COMMAND);
	});

	it("writeVisualizations writes exactly the rendered files into a new directory", async () => {
		const dir = join(await mkdtemp(join(tmpdir(), "settle-viz-")), "nested", "out");
		try {
			const written = await writeVisualizations(dir);
			const rendered = await renderVisualizations();
			expect(written.map((path) => path.slice(dir.length + 1)).sort()).toEqual([...rendered.keys()].sort());
			for (const [file, content] of rendered) expect(await readFile(join(dir, file), "utf8")).toBe(content);
		} finally {
			await rm(join(dir, "..", ".."), { recursive: true, force: true });
		}
	});
});
