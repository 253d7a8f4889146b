/**
 * Images on the way to the model: the prompt's images checked against the model that will receive
 * them, and the `images.blockImages` setting applied when the transcript is
 * converted for a request.
 */
import { createLlmMessageConverter } from "../agent/llm-converter.js";
import type { AgentMessage, ImageContent, Message, Model } from "../llm/types.js";
import { MAX_INLINE_IMAGE_BYTES } from "../tools/read.js";
import { formatSize } from "../tools/truncate.js";
import { convertMessageToLlm } from "./convert-to-llm.js";

/** Image types every provider Settle talks to accepts inline. */
export const SUPPORTED_PROMPT_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

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
 * without data or over the inline limit ({@link MAX_INLINE_IMAGE_BYTES} of base64). Each dropped
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
	images.forEach((image, index) => {
		const problem = acceptsImages
			? imageProblem(image)
			: `the model ${model.provider}/${model.id} does not accept images`;
		if (problem) hints.push(`[Image ${index + 1} omitted: ${problem}.]`);
		else kept.push(image);
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
	return undefined;
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
