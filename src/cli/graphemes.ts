/**
 * One grapheme segmenter for the interactive chat, made on first use: constructing an
 * `Intl.Segmenter` loads ICU's break rules (~8 ms of CPU), which every `settle -p` / `--rpc`
 * process paid at import when it was a module-level constant, though only the chat uses it.
 */
let segmenter: Intl.Segmenter | undefined;

/** The shared grapheme-cluster segmenter (created on the first call). */
export function graphemeSegmenter(): Intl.Segmenter {
	segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
	return segmenter;
}
