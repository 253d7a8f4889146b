import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
	MACHINE_VISUALIZATIONS,
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
