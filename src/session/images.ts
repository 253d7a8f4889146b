/**
 * Images on the way to the model: the prompt's images checked against the model that will receive
 * them, the images tools return fitted to the inline limits, and the `images.blockImages` setting
 * applied when the transcript is converted for a request.
 */
import { createLlmMessageConverter } from "../agent/llm-converter.js";
import type { AgentMessage, ImageContent, Message, Model, TextContent } from "../llm/types.js";
import { detectImageMimeType, readImageDimensions, type SupportedImageMimeType } from "../tools/image.js";
import {
	formatDimensionNote,
	type ImageResizeOutcome,
	MAX_IMAGE_DIMENSION,
	resizeImageDetailed,
} from "../tools/image-resize.js";
import { MAX_INLINE_IMAGE_BYTES } from "../tools/read.js";
import { formatSize } from "../tools/truncate.js";
import { convertMessageToLlm, SUPPORTED_PROMPT_IMAGE_TYPES } from "./convert-to-llm.js";

export { SUPPORTED_PROMPT_IMAGE_TYPES };

/** The prompt's text and images after {@link normalizePromptImages}. */
export interface NormalizedPromptImages {
	/** The text, with one hint line per dropped image appended after a blank line. */
	text: string;
	/** The images the model can take, in order; undefined when none are left. */
	images: ImageContent[] | undefined;
	/** The hints (one per dropped image), also appended to `text`. */
	hints: string[];
}

/**
 * Checks each image of a prompt against the model that will receive it: a model without image
 * input gets none, an image of another type than PNG, JPEG, GIF or WebP is dropped, and so is one
 * without data, over the inline limit ({@link MAX_INLINE_IMAGE_BYTES} of base64) or whose bytes are no
 * such image (an error page saved as a .png); a kept image
 * labelled with another type than its bytes have gets its bytes' type (claude-code#12009). Each dropped
 * image leaves a hint, appended to the text as `text + "\n\n" + hints.join("\n")` so the model
 * knows something was attached. Without a model nothing is checked. Pure; must not throw.
 *
 * @example
 * ```ts
 * const screenshot: ImageContent = { type: "image", data: "iVBORw0KGgo…", mimeType: "image/png" };
 * const textOnlyModel = { provider: "faux", id: "faux-1", input: ["text" as const] };
 * const { text, images } = normalizePromptImages("What is this?", [screenshot], textOnlyModel);
 * // text: "What is this?\n\n[Image 1 omitted: the model faux/faux-1 does not accept images.]", images: undefined
 * ```
 */
export function normalizePromptImages(
	text: string,
	images: readonly ImageContent[] | undefined,
	model: Pick<Model, "provider" | "id" | "input"> | undefined,
): NormalizedPromptImages {
	if (!images || images.length === 0 || !model) {
		return { text, images: images && images.length > 0 ? [...images] : undefined, hints: [] };
	}
	const kept: ImageContent[] = [];
	const hints: string[] = [];
	const acceptsImages = model.input.includes("image");
	images.forEach((given, index) => {
		const image = withPlainBase64(given);
		const problem = acceptsImages
			? imageProblem(image)
			: `the model ${model.provider}/${model.id} does not accept images`;
		if (problem) hints.push(`[Image ${index + 1} omitted: ${problem}.]`);
		else kept.push(labelledByItsBytes(image));
	});
	if (hints.length === 0) return { text, images: kept, hints };
	return {
		text: `${text}\n\n${hints.join("\n")}`,
		images: kept.length > 0 ? kept : undefined,
		hints,
	};
}

function imageProblem(image: ImageContent): string | undefined {
	if (!(SUPPORTED_PROMPT_IMAGE_TYPES as readonly string[]).includes(image.mimeType)) {
		return `${image.mimeType || "an unknown type"} is not a supported image type (${SUPPORTED_PROMPT_IMAGE_TYPES.join(", ")})`;
	}
	if (typeof image.data !== "string" || image.data.length === 0) return "it has no image data";
	if (image.data.length >= MAX_INLINE_IMAGE_BYTES) {
		return `${formatSize(image.data.length)} encoded is over the ${formatSize(MAX_INLINE_IMAGE_BYTES)} inline image limit; send a smaller copy`;
	}
	// Saved, data that is no image (a server's error page in a .png) was refused in every request.
	if (detectImageMimeType(Buffer.from(image.data.slice(0, 24), "base64")) === undefined) {
		return "its data is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise); check the file or URL it came from";
	}
	return undefined;
}

/**
 * Whether one of the prompt's images (a PNG, JPEG, GIF or WebP) is over the inline size or has a
 * side over 2000 pixels by its header: {@link fitPromptImages} would resize it. Pure; must not throw.
 */
export function promptImagesNeedFitting(images: readonly ImageContent[] | undefined): boolean {
	return images?.some((image) => needsResize(withPlainBase64(image))) ?? false;
}

/**
 * Resizes each prompt image with a side over 2000 pixels or over the inline size
 * ({@link MAX_INLINE_IMAGE_BYTES} of base64) to fit 2000×2000 and that size, as the read tool and
 * `@file` arguments do, and appends its dimension note to the text after a blank line. Sent as it
 * was, a full-page capture over 8000 px made Anthropic refuse the request and, the image being
 * saved, every later one (oh-my-pi#10633); an 8 MB screenshot was dropped with a hint. Other images
 * (within the limits, another type: {@link normalizePromptImages} decides on those) and images that
 * cannot be decoded or made small enough are left as they are (then dropped with a hint by
 * {@link normalizePromptImages} when over the inline size). Rejects only when `signal` fires.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import type { ImageContent } from "settle";
 *
 * const page: ImageContent = { type: "image", data: readFileSync("page.png").toString("base64"), mimeType: "image/png" };
 * const { text, images } = await fitPromptImages("What is on this page?", [page]);
 * // a 1440×8570 page: its 336×2000 copy, and text ends with "[Image: original 1440x8570, displayed at 336x2000. …]"
 * await session.prompt(text, { images });
 * ```
 */
export async function fitPromptImages(
	text: string,
	images: ImageContent[],
	options: { signal?: AbortSignal } = {},
): Promise<{ text: string; images: ImageContent[] }> {
	const fitted: ImageContent[] = [];
	const notes: string[] = [];
	for (const given of images) {
		const image = withPlainBase64(given);
		const outcome = needsResize(image)
			? await resizeImageDetailed(
					{ data: image.data, mimeType: image.mimeType },
					options.signal ? { signal: options.signal } : {},
				)
			: undefined;
		if (outcome?.kind !== "resized" || !outcome.image.wasResized) {
			fitted.push(image);
			continue;
		}
		fitted.push({ type: "image", data: outcome.image.data, mimeType: outcome.image.mimeType });
		const note = formatDimensionNote(outcome.image);
		if (note) notes.push(note);
	}
	if (notes.length === 0) return { text, images };
	return { text: `${text}\n\n${notes.join("\n")}`, images: fitted };
}

/** A supported image over the inline size, or within it with a side over 2000 px by its header. */
function needsResize(image: ImageContent): boolean {
	if (typeof image.data !== "string" || image.data.length === 0) return false;
	if (!(SUPPORTED_PROMPT_IMAGE_TYPES as readonly string[]).includes(image.mimeType)) return false;
	if (image.data.length >= MAX_INLINE_IMAGE_BYTES) return true;
	const size = headerSize(image);
	return size !== undefined && (size.width > MAX_IMAGE_DIMENSION || size.height > MAX_IMAGE_DIMENSION);
}

/** Width and height from the image's header (no decoding), or undefined when it cannot be read. */
function headerSize(image: ImageContent): { width: number; height: number } | undefined {
	// Enough of the file for any header the sniffer reads (JPEG's SOF may come after EXIF data).
	const head = Buffer.from(image.data.slice(0, 256 * 1024), "base64");
	return readImageDimensions(head, image.mimeType as SupportedImageMimeType);
}

/**
 * Fits the images a tool returned (or a `tool_result` handler put in its place) to the inline
 * limits, as newer pi does before the result enters the session. An image labelled with another
 * type than its bytes have (a PNG said to be image/jpeg) gets the type of its bytes first, whatever
 * `autoResize` says (claude-code#12009). Each image over 2000×2000 pixels
 * or 4.5 MB of base64 is resized as the `read` tool resizes (same sizes, formats and qualities)
 * and followed by a text block with the dimension note. An image that cannot be resized
 * (undecodable, cannot be made small enough, no resizer) is kept as the tool made it, as newer pi
 * keeps it: the tool's output is not silently deleted. Images are kept for a model without image
 * input too (the request leaves them out, the session keeps them for the next model).
 * `autoResize: false` (the `images.autoResize` setting) resizes nothing. Either way, an
 * image still over {@link MAX_INLINE_IMAGE_BYTES} of base64 is replaced by a text note saying so,
 * as the read tool leaves out such a file: kept, it made every later request fail (pi#2055). Returns
 * the same array when nothing changed. Rejects only when `signal` fires.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import type { ImageContent } from "settle";
 *
 * const shot: ImageContent = { type: "image", data: readFileSync("shot.png").toString("base64"), mimeType: "image/png" };
 * const content = await normalizeToolResultImages([shot], { autoResize: settingsManager.getImageAutoResize() });
 * // a 2400×600 shot: [the 2000×500 copy, { type: "text", text: "[Image: original 2400x600, displayed at 2000x500. …]" }]
 * ```
 */
export async function normalizeToolResultImages(
	content: (TextContent | ImageContent)[],
	options: { autoResize?: boolean; signal?: AbortSignal } = {},
): Promise<(TextContent | ImageContent)[]> {
	if (!content.some((block) => block.type === "image")) return content;
	const autoResize = options.autoResize !== false;
	const normalized: (TextContent | ImageContent)[] = [];
	let changed = false;
	for (const original of content) {
		const block = original.type === "image" ? labelledByItsBytes(withPlainBase64(original)) : original;
		if (block !== original) changed = true;
		if (block.type !== "image" || (autoResize ? fitsInline(block) : !overInlineLimit(block))) {
			normalized.push(block);
			continue;
		}
		const outcome: ImageResizeOutcome | undefined = autoResize
			? await resizeImageDetailed(
					{ data: block.data, mimeType: block.mimeType },
					options.signal ? { signal: options.signal } : {},
				)
			: undefined;
		if (outcome?.kind === "resized" && outcome.image.wasResized) {
			changed = true;
			normalized.push({ type: "image", data: outcome.image.data, mimeType: outcome.image.mimeType });
			const note = formatDimensionNote(outcome.image);
			if (note) normalized.push({ type: "text", text: note });
		} else if (overInlineLimit(block)) {
			// No provider of the common ones takes it: kept, every later request of the session failed.
			changed = true;
			normalized.push({ type: "text", text: oversizedImageNote(block.data.length, outcome) });
		} else {
			normalized.push(block);
		}
	}
	return changed ? normalized : content;
}

/** `data:<type>;base64,` before base64 data: a data URL, as a browser's FileReader or some MCP servers give it. */
const DATA_URL_PREFIX = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w.+-]+=[^;,]*)*;base64,/i;

/**
 * The image with its data as plain base64 when it came as a data URL (`data:image/png;base64,…`),
 * given the URL's type when it has none, else the same block. Providers refuse a data URL as image
 * data (`invalid base64 data`), so it was left out with a note and the model never saw it
 * (openai-agents-js#722, gyazo-mcp-server#129).
 */
function withPlainBase64(image: ImageContent): ImageContent {
	if (typeof image.data !== "string" || !image.data.startsWith("data:")) return image;
	const prefix = DATA_URL_PREFIX.exec(image.data.slice(0, 200));
	if (!prefix) return image;
	const mimeType = image.mimeType || prefix[1]?.toLowerCase() || image.mimeType;
	return { ...image, data: image.data.slice(prefix[0].length), mimeType };
}

/**
 * The image with the type its bytes have (PNG, JPEG, GIF, WebP by their magic bytes) when the tool
 * labelled it another one, else the same block: Anthropic refuses an image whose `media_type` does
 * not match its bytes, in this and every later request (claude-code#12009: a PNG labelled image/jpeg).
 */
function labelledByItsBytes(image: ImageContent): ImageContent {
	if (typeof image.data !== "string") return image;
	const actual = detectImageMimeType(Buffer.from(image.data.slice(0, 24), "base64"));
	return actual === undefined || actual === image.mimeType ? image : { ...image, mimeType: actual };
}

/** Over the inline limit by its base64 length alone. */
function overInlineLimit(image: ImageContent): boolean {
	return typeof image.data === "string" && image.data.length >= MAX_INLINE_IMAGE_BYTES;
}

/** The note left in place of a tool's image still over the inline limit; no `outcome`: resizing is off. */
function oversizedImageNote(size: number, outcome: ImageResizeOutcome | undefined): string {
	const why =
		outcome === undefined
			? "image resizing is off"
			: outcome.kind === "undecodable"
				? "it could not be resized (the image data could not be decoded)"
				: outcome.kind === "unavailable"
					? "image resizing is unavailable"
					: "it could not be resized";
	return `[Image omitted: ${formatSize(size)} encoded is over the ${formatSize(MAX_INLINE_IMAGE_BYTES)} inline image limit and ${why}. Make a smaller copy (for example with ImageMagick via bash) and send that instead.]`;
}

/** Within the limits by its header and size alone: no need to decode it. */
function fitsInline(image: ImageContent): boolean {
	if (typeof image.data !== "string" || image.data.length >= MAX_INLINE_IMAGE_BYTES) return false;
	if (!(SUPPORTED_PROMPT_IMAGE_TYPES as readonly string[]).includes(image.mimeType)) return false;
	const size = headerSize(image);
	return size !== undefined && size.width <= MAX_IMAGE_DIMENSION && size.height <= MAX_IMAGE_DIMENSION;
}

/**
 * The session's transcript → LLM conversion with `images.blockImages` read at every request, so a
 * changed setting (or a reload) applies to the next request. Two incremental converters (images
 * kept / blocked) keep the per-request cost independent of the transcript length; switching
 * between them converts the transcript once.
 *
 * @example
 * ```ts
 * const agent = new Agent({ convertToLlm: blockImagesAwareConverter(() => settingsManager.getBlockImages()) });
 * ```
 */
export function blockImagesAwareConverter(blockImages: () => boolean): (messages: AgentMessage[]) => Message[] {
	const plain = createLlmMessageConverter((message) => convertMessageToLlm(message));
	const blocked = createLlmMessageConverter((message) => convertMessageToLlm(message, { blockImages: true }));
	return (messages) => (blockImages() ? blocked : plain)(messages);
}

/**
 * The most images one request carries. Anthropic refuses a request with more (`too many images
 * and documents: 120 + 0 > 100`), and since the history is sent again, every later one too
 * (claude-code#24541, opencode#47721).
 */
export const MAX_REQUEST_IMAGES = 100;

/**
 * The most image data (base64 characters) one request carries: the history is sent again, so
 * screenshots piled up past a provider's request size (Anthropic's 32 MB, 413 `request_too_large`;
 * 30 MB at others, pi#8351) failed every later request, and a compaction that keeps the recent ones
 * could not help (pi#1936). Older images beyond it are left out of the request, as past the count.
 */
export const MAX_REQUEST_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * Past this many images in one request Anthropic refuses any image with a side over
 * {@link MAX_IMAGE_DIMENSION} pixels (`exceed max allowed size for many-image requests: 2000 pixels`):
 * images saved unresized (`images.autoResize: false`, a pi session) made every later request fail
 * (claude-code#49720).
 */
const MANY_IMAGES = 20;

/**
 * Wraps a transcript → LLM conversion so a request carries at most `max` images and `maxBytes` of
 * their base64 data ({@link MAX_REQUEST_IMAGE_BYTES}): the newest are
 * sent, each older one is replaced by a text note in that request only (the session file keeps
 * it); past `max` (or `maxBytes`) the oldest are replaced a fifth of `max` (of `maxBytes`) at a
 * time, so the request's beginning (the provider's cached prefix) stays the same until the next batch. When the request would carry more than 20, an image with a side over 2000 pixels is replaced
 * by a note too, as providers refuse those in many-image requests. Incremental like the converter:
 * each call looks only at the messages appended since the last one while nothing needs replacing.
 *
 * @example
 * ```ts
 * const agent = new Agent({ convertToLlm: capRequestImages(blockImagesAwareConverter(() => false)) });
 * ```
 */
export function capRequestImages(
	convert: (messages: AgentMessage[]) => Message[],
	max: number = MAX_REQUEST_IMAGES,
	maxBytes: number = MAX_REQUEST_IMAGE_BYTES,
): (messages: AgentMessage[]) => Message[] {
	let scanned: Message[] | undefined;
	let count = 0;
	let last: Message | undefined;
	let images = 0;
	let large = 0;
	let bytes = 0;
	return (messages) => {
		const llm = convert(messages);
		if (llm !== scanned || llm.length < count || (count > 0 && llm[count - 1] !== last)) {
			scanned = llm;
			count = 0;
			images = 0;
			large = 0;
			bytes = 0;
		}
		for (let index = count; index < llm.length; index++) {
			for (const image of imagesOf(llm[index]!)) {
				images++;
				bytes += imageBytes(image);
				if (overManyImageSide(image)) large++;
			}
		}
		count = llm.length;
		last = llm[count - 1];
		if (images <= max && bytes <= maxBytes && (images <= MANY_IMAGES || large === 0)) return llm;
		return withSendableImages(llm, max, maxBytes);
	};
}

function imageBytes(image: ImageContent): number {
	return typeof image.data === "string" ? image.data.length : 0;
}

function imagesOf(message: Message): ImageContent[] {
	if (message.role === "assistant" || !Array.isArray(message.content)) return [];
	return (message.content as (TextContent | ImageContent)[]).filter((block) => block.type === "image");
}

/** Header sizes read so far: once over 20 images, every request asks again for each image. */
const sizeOfImage = new WeakMap<ImageContent, { width: number; height: number } | null>();

/** Width and height by the header of a supported image, cached; undefined when it cannot be read. */
function cachedHeaderSize(image: ImageContent): { width: number; height: number } | undefined {
	let size = sizeOfImage.get(image);
	if (size === undefined) {
		const supported =
			typeof image.data === "string" && (SUPPORTED_PROMPT_IMAGE_TYPES as readonly string[]).includes(image.mimeType);
		size = (supported ? headerSize(image) : undefined) ?? null;
		sizeOfImage.set(image, size);
	}
	return size ?? undefined;
}

/** A side over 2000 pixels by its header (an image whose header cannot be read is not). */
function overManyImageSide(image: ImageContent): boolean {
	const size = cachedHeaderSize(image);
	return size !== undefined && (size.width > MAX_IMAGE_DIMENSION || size.height > MAX_IMAGE_DIMENSION);
}

/**
 * How many of the newest images (sizes oldest first) fit in `maxBytes`: over it, the oldest go until
 * the excess rounded up to a fifth of `maxBytes` is gone, so the request's cached beginning changes
 * once per fifth, not with every new image (hermes-agent#113517, by size). Never an older one
 * sent without a newer one: a single image over `maxBytes` goes with all before it.
 */
function newestWithinBytes(sizes: readonly number[], maxBytes: number): number {
	const total = sizes.reduce((sum, size) => sum + size, 0);
	if (total <= maxBytes) return sizes.length;
	const batch = Math.max(1, Math.floor(maxBytes / 5));
	const drop = Math.ceil((total - maxBytes) / batch) * batch;
	let dropped = 0;
	let index = 0;
	while (dropped < drop && index < sizes.length) dropped += sizes[index++]!;
	return sizes.length - index;
}

/**
 * `messages` with the oldest images replaced by a note so at most `max` are left, and at most
 * `maxBytes` of their data (newest first, dropped a fifth of `maxBytes` at a time), and, when more
 * than {@link MANY_IMAGES} are left, each with a side over 2000 pixels too (a new array). Past
 * `max` the oldest go a fifth of `max` at a time (20 of 100): the request's beginning, which the
 * provider caches, then changes once per batch, not with every new image (hermes-agent#113517).
 */
function withSendableImages(messages: readonly Message[], max: number, maxBytes: number): Message[] {
	const older: TextContent = {
		type: "text",
		text: `[Image omitted: a request carries at most the conversation's newest ${max} images (a provider's limit). Read the file again if you need to see it.]`,
	};
	const overBytes: TextContent = {
		type: "text",
		text: `[Image omitted: a request carries at most the newest ${formatSize(maxBytes)} of the conversation's images (a provider's request size limit). Read the file again if you need to see it.]`,
	};
	const sizes = messages.flatMap((message) => imagesOf(message).map(imageBytes));
	const total = sizes.length;
	const batch = Math.max(1, Math.floor(max / 5));
	const keep = total > max ? total - Math.ceil((total - max) / batch) * batch : total;
	const keepWithinBytes = newestWithinBytes(sizes.slice(total - keep), maxBytes);
	const many = keep > MANY_IMAGES;
	const result = [...messages];
	let kept = 0;
	for (let index = result.length - 1; index >= 0; index--) {
		const message = result[index]!;
		if (message.role === "assistant" || !Array.isArray(message.content)) continue;
		let changed = false;
		const content = [...(message.content as (TextContent | ImageContent)[])]
			.reverse()
			.map((block): TextContent | ImageContent => {
				if (block.type !== "image") return block;
				if (++kept > keep) {
					changed = true;
					return older;
				}
				if (kept > keepWithinBytes) {
					changed = true;
					return overBytes;
				}
				if (!many || !overManyImageSide(block)) return block;
				changed = true;
				const size = cachedHeaderSize(block)!;
				return {
					type: "text",
					text: `[Image omitted: ${size.width}x${size.height} is over the ${MAX_IMAGE_DIMENSION} px a request with more than ${MANY_IMAGES} images allows. Make a copy at most 2000 px on each side (for example with ImageMagick via bash) to see it.]`,
				};
			})
			.reverse();
		if (changed) result[index] = { ...message, content } as Message;
	}
	return result;
}
