/**
 * The export page's stylesheet and script, inlined into every exported file. The script builds the
 * page from the embedded session data with DOM calls only (`textContent`, `createElement`): no data
 * is ever parsed as HTML, so content of the session cannot run. The page's Content-Security-Policy
 * allows this script and this stylesheet alone (each by hash) and data: images — no network at all,
 * no other `<style>` and no `style` attribute. (The script places the tree's rows through the
 * element's `style` object, which a policy does not govern; it never writes a `style` attribute.)
 *
 * Rendering is lazy where sessions get big: the tree draws only the rows in view (fixed row height),
 * the main pane shows the last {@link PAGE_SIZE} entries of the selected path (a button shows earlier
 * ones), long outputs show their first lines until expanded.
 */

/** Entries of a path rendered at once (a button shows earlier ones). */
export const PAGE_SIZE = 400;

export const PAGE_CSS = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#f6f8fa}
#app{display:flex;height:100vh}
#tree{width:340px;min-width:200px;overflow:auto;border-right:1px solid #d0d7de;background:#fff;font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
#tree .hint{padding:8px;color:#57606a;font-family:system-ui,sans-serif}
#tree-rows{position:relative}
.node{position:absolute;left:0;right:0;height:20px;line-height:20px;padding:0 8px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;cursor:pointer;color:#57606a}
.node:hover{background:#f3f4f6}
.node.on-path{color:#1f2328}
.node.selected{background:#ddf4ff;font-weight:600}
.node.leaf::after{content:" ◀ leaf";color:#0969da}
.node .fork{color:#bf8700;font-weight:700}
#main{flex:1;overflow:auto;padding:16px 24px}
header{margin-bottom:16px;padding:12px 16px;background:#fff;border:1px solid #d0d7de;border-radius:6px}
header h1{font-size:18px;margin:0 0 8px}
header dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0;font-size:13px}
header dt{color:#57606a}
header dd{margin:0;word-break:break-all}
.entry{margin:8px 0;padding:8px 12px;background:#fff;border:1px solid #d0d7de;border-radius:6px}
.entry.target{outline:2px solid #0969da}
.role{font-size:12px;font-weight:600;color:#57606a;margin-bottom:4px}
.meta{font-weight:400;color:#8c959f;margin-left:8px}
.user{border-left:4px solid #0969da}
.assistant{border-left:4px solid #8250df}
.event{padding:4px 12px;font-size:12px;color:#57606a;background:transparent;border-style:dashed}
.summary{border-left:4px solid #bf8700;background:#fff8c5}
.error-msg{border-left:4px solid #cf222e}
.error{color:#cf222e;white-space:pre-wrap;margin-top:4px}
.hidden-msg{opacity:.7}
.text{white-space:pre-wrap;word-wrap:break-word}
pre{margin:4px 0;padding:8px;background:#f6f8fa;border:1px solid #eaeef2;border-radius:4px;overflow:auto;white-space:pre-wrap;word-break:break-word;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre.code{background:#0d1117;color:#e6edf3;border:none}
.lang{font-size:11px;color:#8c959f}
details>summary{cursor:pointer;color:#57606a;font-size:12px}
.thinking pre{color:#57606a;font-style:italic}
.tool{margin:6px 0;border:1px solid #d0d7de;border-radius:4px;padding:4px 8px;background:#fbfcfd}
.tool.is-error{border-color:#cf222e}
.tool-name{font:600 12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#1a7f37}
.tool.is-error .tool-name{color:#cf222e}
.more{font-size:12px;margin:2px 0;cursor:pointer;color:#0969da;background:none;border:none;padding:0}
.label{display:inline-block;margin-left:6px;padding:0 6px;border-radius:10px;background:#ddf4ff;color:#0969da;font-size:11px;font-weight:600}
img.attachment{max-width:100%;max-height:400px;display:block;margin:4px 0;border:1px solid #d0d7de}
#earlier{margin:8px 0}
`;

export const PAGE_JS = `(function () {
"use strict";
var PAGE_SIZE = ${PAGE_SIZE};
var PREVIEW_LINES = 12;
var ROW = 20;
var OVERSCAN = 30;
var data = JSON.parse(document.getElementById("session-data").textContent);
var entries = data.entries;
var byId = new Map();
var children = new Map();
var labels = new Map();
var i;
for (i = 0; i < entries.length; i++) byId.set(entries[i].id, entries[i]);
for (i = 0; i < entries.length; i++) {
	var e = entries[i];
	if (e.type === "label") {
		if (typeof e.label === "string" && e.label !== "") labels.set(e.targetId, e.label);
		else labels.delete(e.targetId);
	}
	var parent = e.parentId && e.parentId !== e.id && byId.has(e.parentId) ? e.parentId : null;
	var list = children.get(parent);
	if (!list) children.set(parent, (list = []));
	list.push(e);
}
children.forEach(function (list) {
	if (list.length > 1) list.sort(function (a, b) { return Date.parse(a.timestamp) - Date.parse(b.timestamp); });
});

function el(tag, cls, text) {
	var node = document.createElement(tag);
	if (cls) node.className = cls;
	if (text !== undefined && text !== null) node.textContent = String(text);
	return node;
}
// A field a hand-edited or broken entry lacks shows as nothing, never as the word "undefined".
function asText(value) { return value === undefined || value === null ? "" : String(value); }
function str(value) {
	if (typeof value === "string") return value;
	try { return JSON.stringify(value, null, 2); } catch (err) { return String(value); }
}
function oneLine(text, max) {
	var line = asText(text).replace(/\\s+/g, " ").trim();
	if (line.length <= max) return line;
	// Not between an emoji's halves (the page cannot import sliceWholeCharacters): a lone half shows as "�".
	var end = max - 1, last = line.charCodeAt(end - 1);
	return line.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end) + "…";
}
function num(n) { return typeof n === "number" && isFinite(n) ? n : 0; }
function fmtTokens(n) { return num(n).toLocaleString("en-US"); }
// A cost above zero that would round to $0.0000 is not shown as an unpriced model's zero.
function fmtCost(n) { var v = num(n); return v > 0 && v < 0.00005 ? "<$0.0001" : "$" + v.toFixed(4); }
function time(ts) {
	var d = typeof ts === "number" ? new Date(ts) : new Date(String(ts));
	return isNaN(d.getTime()) ? String(ts) : d.toISOString().replace("T", " ").replace(/\\.\\d+Z$/, "Z");
}
function textOf(content) {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content.filter(function (b) { return b && b.type === "text"; }).map(function (b) { return asText(b.text); }).join("\\n");
}

/** Text with \`\`\` fences shown as code blocks; everything else as plain text. */
function richText(text) {
	var box = el("div");
	var lines = asText(text).split("\\n");
	var buffer = [];
	var code = null;
	var lang = "";
	function flushText() {
		if (buffer.length && buffer.join("").trim() !== "") box.appendChild(el("div", "text", buffer.join("\\n")));
		buffer = [];
	}
	for (var k = 0; k < lines.length; k++) {
		var line = lines[k];
		var fence = /^\\s*(\`\`\`|~~~)(.*)$/.exec(line);
		if (code === null && fence) {
			flushText();
			code = [];
			lang = fence[2].trim();
		} else if (code !== null && fence && fence[2].trim() === "") {
			if (lang) box.appendChild(el("div", "lang", lang));
			box.appendChild(el("pre", "code", code.join("\\n")));
			code = null;
		} else if (code !== null) code.push(line);
		else buffer.push(line);
	}
	if (code !== null) {
		if (lang) box.appendChild(el("div", "lang", lang));
		box.appendChild(el("pre", "code", code.join("\\n")));
	}
	flushText();
	return box;
}

/** Output in a <pre>: the first lines, and a button for the rest when it is long. */
function output(text, cls) {
	var full = asText(text);
	var lines = full.split("\\n");
	var pre = el("pre", cls);
	var box = el("div");
	box.appendChild(pre);
	if (lines.length <= PREVIEW_LINES && full.length <= 4000) {
		pre.textContent = full;
		return box;
	}
	var preview = lines.slice(0, PREVIEW_LINES).join("\\n").slice(0, 4000);
	pre.textContent = preview;
	var more = el("button", "more", "Show all " + lines.length + " lines");
	more.addEventListener("click", function () {
		var expanded = pre.textContent !== preview;
		pre.textContent = expanded ? preview : full;
		more.textContent = expanded ? "Show all " + lines.length + " lines" : "Show less";
	});
	box.appendChild(more);
	return box;
}

var IMAGE_TYPES = /^image\\/(png|jpeg|gif|webp)$/;
var BASE64 = /^[A-Za-z0-9+\\/=\\r\\n]*$/;
function image(block) {
	if (typeof block.data !== "string" || !IMAGE_TYPES.test(String(block.mimeType)) || !BASE64.test(block.data)) {
		return el("div", "meta", "[image: " + String(block.mimeType) + " not shown]");
	}
	var img = el("img", "attachment");
	img.alt = "image (" + block.mimeType + ")";
	img.src = "data:" + block.mimeType + ";base64," + block.data;
	return img;
}
function content(value) {
	var box = el("div");
	if (typeof value === "string") { box.appendChild(richText(value)); return box; }
	if (!Array.isArray(value)) return box;
	for (var k = 0; k < value.length; k++) {
		var block = value[k];
		if (!block) continue;
		if (block.type === "text") box.appendChild(richText(block.text));
		else if (block.type === "image") box.appendChild(image(block));
		else box.appendChild(output(str(block)));
	}
	return box;
}
function plainContent(value) {
	var box = el("div");
	if (typeof value === "string") { box.appendChild(output(value)); return box; }
	if (!Array.isArray(value)) return box;
	var texts = [];
	for (var k = 0; k < value.length; k++) {
		var block = value[k];
		if (block && block.type === "image") box.appendChild(image(block));
		else if (block && block.type === "text") texts.push(asText(block.text));
	}
	if (texts.length) box.insertBefore(output(texts.join("\\n")), box.firstChild);
	return box;
}
function collapsible(summary, body, open) {
	var d = el("details");
	if (open) d.open = true;
	d.appendChild(el("summary", "", summary));
	d.appendChild(body);
	return d;
}
function roleLine(text, meta) {
	var line = el("div", "role", text);
	if (meta) line.appendChild(el("span", "meta", meta));
	return line;
}
// Every priced token kind is named, so the tokens shown account for the cost beside them.
function usageText(u) {
	if (!u) return "";
	return fmtTokens(u.input) + " in, " + fmtTokens(u.output) + " out" + (num(u.cacheRead) ? ", " + fmtTokens(u.cacheRead) + " cache read" : "") + (num(u.cacheWrite) ? ", " + fmtTokens(u.cacheWrite) + " cache write" : "") + (u.cost && num(u.cost.total) ? ", " + fmtCost(u.cost.total) : "");
}

function toolArgs(name, args) {
	args = args || {};
	if (name === "bash" && typeof args.command === "string") return el("pre", "code", "$ " + args.command);
	if ((name === "read" || name === "ls" || name === "find" || name === "grep") && typeof args.path === "string" && Object.keys(args).length === 1) {
		return el("div", "text", args.path);
	}
	return output(str(args));
}
function toolBlock(call, result) {
	var box = el("div", "tool");
	var head = el("div", "tool-name", call.name);
	box.appendChild(head);
	box.appendChild(toolArgs(call.name, call.arguments));
	if (result) {
		if (result.isError) box.classList.add("is-error");
		box.appendChild(plainContent(result.content));
		if (result.details !== undefined && result.details !== null && call.name !== "bash") {
			box.appendChild(collapsible("details", output(str(result.details))));
		}
	} else box.appendChild(el("div", "meta", "(no result on this path)"));
	return box;
}

/** The key of a tool call's result: the call's id within the entry of its assistant message. */
function callKey(entryId, callId) { return JSON.stringify([entryId, callId]); }
function messageView(e, m, results, shown) {
	var box;
	switch (m.role) {
		case "user":
			box = el("div", "entry user");
			box.appendChild(roleLine("User", time(m.timestamp)));
			box.appendChild(content(m.content));
			return box;
		case "assistant": {
			var failed = m.stopReason === "error" || m.stopReason === "aborted";
			box = el("div", "entry assistant" + (failed ? " error-msg" : ""));
			// The model the provider says answered, when not the one asked (a router, an alias): as /session counts it.
			var answeredBy = m.responseModel && m.responseModel !== m.model ? " (answered by " + String(m.responseModel) + ")" : "";
			box.appendChild(roleLine("Assistant", String(m.provider) + "/" + String(m.model) + answeredBy + " · " + usageText(m.usage)));
			var blocks = Array.isArray(m.content) ? m.content : [];
			for (var k = 0; k < blocks.length; k++) {
				var b = blocks[k];
				if (!b) continue;
				if (b.type === "text") box.appendChild(richText(b.text));
				else if (b.type === "thinking") {
					// No text (a signed block whose provider kept its reasoning, or a redacted one): nothing to
					// show, as pi's export. A redacted one shows its provider's text ("[Reasoning redacted]"), as pi's.
					if (!asText(b.thinking).trim()) continue;
					var t = el("div", "thinking");
					t.appendChild(collapsible(b.redacted ? "Thinking (redacted)" : "Thinking", el("pre", "", b.thinking)));
					box.appendChild(t);
				} else if (b.type === "toolCall") {
					var r = results.get(callKey(e.id, b.id));
					if (r) shown.add(r);
					box.appendChild(toolBlock(b, r && r.message));
				}
			}
			if (m.stopReason === "error") box.appendChild(el("div", "error", "Error: " + (m.errorMessage || "the request failed")));
			if (m.stopReason === "aborted") box.appendChild(el("div", "error", "Aborted" + (m.errorMessage ? ": " + m.errorMessage : "")));
			return box;
		}
		case "toolResult":
			box = el("div", "entry");
			box.appendChild(roleLine("Tool result", String(m.toolName)));
			box.appendChild(toolBlock({ name: m.toolName, arguments: {} }, m));
			return box;
		case "bashExecution":
			box = el("div", "entry user");
			box.appendChild(roleLine("User ran", (m.excludeFromContext ? "not sent to the model · " : "") + time(m.timestamp)));
			box.appendChild(el("pre", "code", "$ " + m.command));
			box.appendChild(output(m.output || ""));
			// As the model reads it (bashExecutionToText): a timeout is not the user's cancel.
			var status = typeof m.timedOutAfter === "number" ? "timed out after " + m.timedOutAfter + " seconds" : m.cancelled ? "cancelled" : m.exitCode === undefined || m.exitCode === null ? "" : "exit code " + m.exitCode;
			if (m.truncated) status += (status ? ", " : "") + "output truncated";
			// As the model and settle -i are told: the output is not the bytes the command wrote.
			if (m.notUtf8) status += (status ? ", " : "") + "bytes that are not UTF-8 text shown as \\ufffd";
			if (status) box.appendChild(el("div", m.exitCode ? "error" : "meta", status));
			return box;
		case "custom":
			return customView(m.customType, m.content, m.display);
		case "system": {
			box = el("div", "entry event");
			var tools = m.tools && Array.isArray(m.tools.active) ? " · tools: " + m.tools.active.join(", ") : "";
			box.appendChild(collapsible("System prompt" + (m.kind ? " (" + m.kind + ")" : "") + tools, output(m.content)));
			return box;
		}
		case "compactionSummary":
		case "branchSummary":
			box = el("div", "entry summary");
			box.appendChild(roleLine(m.role === "compactionSummary" ? "Compaction summary" : "Branch summary"));
			box.appendChild(richText(m.summary));
			return box;
		default:
			box = el("div", "entry");
			box.appendChild(roleLine(String(m.role)));
			box.appendChild(output(str(m)));
			return box;
	}
}
function customView(type, value, display) {
	var box = el("div", "entry" + (display === false ? " hidden-msg" : ""));
	box.appendChild(roleLine("Extension message", String(type) + (display === false ? " · not shown to the user" : "")));
	box.appendChild(content(value));
	return box;
}
function eventLine(text) { return el("div", "entry event", text); }

function entryView(e, results, shown) {
	switch (e.type) {
		case "message":
			if (!e.message) return null;
			if (e.message.role === "toolResult" && shown.has(e)) return null;
			return messageView(e, e.message, results, shown);
		case "model_change": return eventLine("Model: " + e.provider + "/" + e.modelId);
		case "thinking_level_change": return eventLine("Thinking level: " + e.thinkingLevel);
		case "compaction": {
			var c = el("div", "entry summary");
			c.appendChild(roleLine("Compaction", fmtTokens(e.tokensBefore) + " tokens before" + (e.fromHook ? " · by an extension" : "") + (e.usage ? " · " + usageText(e.usage) : "")));
			c.appendChild(collapsible("Summary", richText(e.summary)));
			return c;
		}
		case "branch_summary": {
			var s = el("div", "entry summary");
			s.appendChild(roleLine("Branch summary", "of the branch left at " + e.fromId));
			s.appendChild(richText(e.summary));
			return s;
		}
		case "custom_message": return customView(e.customType, e.content, e.display);
		case "custom": {
			var x = el("div", "entry event");
			x.appendChild(collapsible("Extension data: " + e.customType, output(str(e.data))));
			return x;
		}
		case "label":
			return eventLine(typeof e.label === "string" && e.label !== "" ? "Label \\u201c" + e.label + "\\u201d set on " + e.targetId : "Label cleared on " + e.targetId);
		case "session_info": return eventLine("Session name: " + (e.name || "(none)"));
		case "context_edit": {
			var ce = el("div", "entry event");
			ce.appendChild(el("div", "", e.replacement ? "Context edit: " + e.targetId + " replaced in the model context" : "Context edit: " + e.targetId + " left out of the model context"));
			if (e.replacement) ce.appendChild(content(e.replacement.content));
			return ce;
		}
		case "usage": return eventLine("Usage (" + e.kind + ", " + e.provider + "/" + e.model + "): " + usageText(e.usage) + (e.note ? " · " + e.note : ""));
		default: {
			var u = el("div", "entry event");
			u.appendChild(collapsible(String(e.type), output(str(e))));
			return u;
		}
	}
}

function pathTo(id) {
	var path = [];
	var seen = new Set();
	var e = byId.get(id);
	while (e && !seen.has(e.id)) {
		seen.add(e.id);
		path.push(e);
		e = e.parentId && e.parentId !== e.id ? byId.get(e.parentId) : undefined;
	}
	return path.reverse();
}

function summaryOf(e) {
	if (e.type === "message" && e.message) {
		var m = e.message;
		if (m.role === "user") {
			var asked = textOf(m.content);
			if (asked.trim()) return "user: " + oneLine(asked, 70);
			var images = (Array.isArray(m.content) ? m.content : []).some(function (b) { return b && b.type === "image"; });
			return "user: " + (images ? "[image]" : "(empty)");
		}
		if (m.role === "assistant") {
			var text = textOf(m.content);
			var calls = (Array.isArray(m.content) ? m.content : []).filter(function (b) { return b && b.type === "toolCall"; });
			if (m.stopReason === "error") return "assistant: error " + oneLine(m.errorMessage || "", 50);
			if (text.trim()) return "assistant: " + oneLine(text, 70);
			if (calls.length) return "assistant: " + calls.map(function (b) { return b.name; }).join(", ");
			return "assistant" + (m.stopReason === "aborted" ? ": aborted" : "");
		}
		if (m.role === "toolResult") return "tool " + m.toolName + ": " + oneLine(textOf(m.content), 50);
		if (m.role === "bashExecution") return "$ " + oneLine(m.command, 60);
		if (m.role === "custom") return "[" + m.customType + "] " + oneLine(textOf(m.content), 50);
		return String(m.role);
	}
	switch (e.type) {
		case "model_change": return "model: " + e.provider + "/" + e.modelId;
		case "thinking_level_change": return "thinking: " + e.thinkingLevel;
		case "compaction": return "compaction (" + fmtTokens(e.tokensBefore) + " tokens)";
		case "branch_summary": return "branch summary: " + oneLine(e.summary, 50);
		case "custom_message": return "[" + e.customType + "] " + oneLine(textOf(e.content), 50);
		case "custom": return "data: " + e.customType;
		case "label": return "label: " + (e.label || "(cleared)");
		case "session_info": return "name: " + (e.name || "");
		case "context_edit": return "context edit: " + e.targetId;
		case "usage": return "usage: " + e.kind;
		default: return String(e.type);
	}
}

var treeBox = document.getElementById("tree");
var rowsBox = document.getElementById("tree-rows");
var mainBox = document.getElementById("entries");
/** The tree in display order: [entry, depth]. Only the rows in view are in the DOM (see renderRows). */
var flat = [];
var position = new Map();
function buildTree() {
	var stack = [];
	pushSiblings(stack, children.get(null) || [], 0);
	while (stack.length) {
		var item = stack.pop();
		position.set(item[0].id, flat.length);
		flat.push(item);
		pushSiblings(stack, children.get(item[0].id) || [], item[1]);
	}
	if (!entries.length) treeBox.insertBefore(el("div", "hint", "The session has no entries."), rowsBox);
	rowsBox.style.height = flat.length * ROW + "px";
}
/** A chain stays at its depth; the children of a branch point indent, each marked ├ (└ the last). */
function pushSiblings(stack, kids, depth) {
	for (var k = kids.length - 1; k >= 0; k--) {
		var marker = kids.length > 1 ? (k === kids.length - 1 ? "\u2514 " : "\u251c ") : "";
		stack.push([kids[k], depth + (kids.length > 1 ? 1 : 0), marker]);
	}
}

var onPath = new Set();
var selectedId = null;
var drawn = "";
function renderRows(force) {
	var height = treeBox.clientHeight || 800;
	var first = Math.max(0, Math.floor(treeBox.scrollTop / ROW) - OVERSCAN);
	var last = Math.min(flat.length, Math.ceil((treeBox.scrollTop + height) / ROW) + OVERSCAN);
	if (!force && drawn === first + ":" + last) return;
	drawn = first + ":" + last;
	var frag = document.createDocumentFragment();
	for (var i = first; i < last; i++) {
		var e = flat[i][0];
		var row = el("div", "node");
		row.dataset.id = e.id;
		row.style.top = i * ROW + "px";
		row.style.paddingLeft = 8 + Math.min(flat[i][1], 40) * 12 + "px";
		row.title = e.id + " · " + e.timestamp;
		if (e.id === data.leafId) row.classList.add("leaf");
		if (onPath.has(e.id)) row.classList.add("on-path");
		if (e.id === selectedId) row.classList.add("selected");
		if (flat[i][2]) row.appendChild(el("span", "fork", flat[i][2]));
		row.appendChild(document.createTextNode(summaryOf(e)));
		var label = labels.get(e.id);
		if (label) row.appendChild(el("span", "label", label));
		frag.appendChild(row);
	}
	rowsBox.textContent = "";
	rowsBox.appendChild(frag);
}
var scheduled = false;
treeBox.addEventListener("scroll", function () {
	if (scheduled) return;
	scheduled = true;
	requestAnimationFrame(function () { scheduled = false; renderRows(false); });
});
/** Scrolls the tree so the entry's row is in view (centered when it was not). */
function revealRow(id) {
	var at = position.get(id);
	if (at === undefined) return;
	var top = at * ROW;
	if (top < treeBox.scrollTop || top + ROW > treeBox.scrollTop + treeBox.clientHeight) {
		treeBox.scrollTop = Math.max(0, top - treeBox.clientHeight / 2);
	}
}

function show(id, scroll) {
	var path = pathTo(id);
	onPath = new Set(path.map(function (e) { return e.id; }));
	selectedId = id;
	revealRow(id);
	renderRows(true);
	renderPath(path, Math.max(0, path.length - PAGE_SIZE), id, scroll);
}
function renderPath(path, from, targetId, scroll) {
	mainBox.textContent = "";
	// Each result goes with the latest call of its id before it: a provider may reuse an id in later
	// turns (vercel/ai#4936), so an id alone could pair a call with another turn's result.
	var results = new Map();
	var openCalls = new Map();
	for (var k = from; k < path.length; k++) {
		var m = path[k].message;
		if (path[k].type !== "message" || !m) continue;
		if (m.role === "assistant" && Array.isArray(m.content)) {
			for (var c = 0; c < m.content.length; c++) {
				if (m.content[c] && m.content[c].type === "toolCall") openCalls.set(m.content[c].id, path[k].id);
			}
		} else if (m.role === "toolResult" && openCalls.has(m.toolCallId)) {
			results.set(callKey(openCalls.get(m.toolCallId), m.toolCallId), path[k]);
			openCalls.delete(m.toolCallId);
		}
	}
	var frag = document.createDocumentFragment();
	if (from > 0) {
		var earlier = el("button", "more", "Show " + Math.min(from, PAGE_SIZE) + " earlier entries (" + from + " not shown)");
		earlier.id = "earlier";
		earlier.addEventListener("click", function () { renderPath(path, Math.max(0, from - PAGE_SIZE), targetId, false); });
		frag.appendChild(earlier);
	}
	var shown = new Set();
	var target = null;
	for (k = from; k < path.length; k++) {
		var view = entryView(path[k], results, shown);
		if (!view) continue;
		view.dataset.entryId = path[k].id;
		var label = labels.get(path[k].id);
		if (label) {
			var line = view.querySelector(".role") || view;
			line.appendChild(el("span", "label", label));
		}
		if (path[k].id === targetId) { view.classList.add("target"); target = view; }
		frag.appendChild(view);
	}
	if (!path.length) frag.appendChild(el("div", "entry event", "Nothing on this path yet."));
	mainBox.appendChild(frag);
	if (scroll && target) target.scrollIntoView({ block: "center" });
}

function buildHeader() {
	var s = data.stats;
	document.getElementById("title").textContent = data.title;
	var dl = document.getElementById("facts");
	function fact(name, value) {
		dl.appendChild(el("dt", "", name));
		dl.appendChild(el("dd", "", value));
	}
	var h = data.header || {};
	fact("Session", String(h.id || ""));
	if (data.name) fact("Name", data.name);
	fact("Directory", String(h.cwd || ""));
	fact("Created", time(h.timestamp));
	if (h.parentSession) fact("Forked from", String(h.parentSession));
	fact("Models", s.models.length ? s.models.join(", ") : "none");
	fact("Entries", s.entries + " (" + s.messages + " messages, " + s.branches + (s.branches === 1 ? " branch)" : " branches)"));
	fact("Tokens", fmtTokens(s.input) + " in, " + fmtTokens(s.output) + " out, " + fmtTokens(s.cacheRead) + " cache read, " + fmtTokens(s.cacheWrite) + " cache write");
	fact("Cost", fmtCost(s.cost));
}

buildHeader();
buildTree();
treeBox.addEventListener("click", function (event) {
	var row = event.target && event.target.closest ? event.target.closest(".node") : null;
	if (row && row.dataset.id) show(row.dataset.id, true);
});
var start = data.leafId && byId.has(data.leafId) ? data.leafId : entries.length ? entries[entries.length - 1].id : null;
if (start) show(start, false);
else renderPath([], 0, null, false);
document.body.dataset.ready = "1";
})();
`;
