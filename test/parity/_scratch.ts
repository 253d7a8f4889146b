import { createPeer } from "./peers.js";

for (const name of ["pi", "settle"] as const) {
	const peer = await createPeer(name, { tokensPerSecond: 1000 });
	const seen: string[] = [];
	peer.session.subscribe((e) => {
		if (e.type === "message_update") {
			const m = e.message as any;
			seen.push(`${(e as any).assistantMessageEvent.type}:${m.content.map((b: any) => b.text ?? "").join("").length}`);
		}
	});
	peer.script([{ text: "This is a long answer that will be cut off somewhere in the middle of it." }]);
	await peer.prompt("hi");
	await peer.quiesce();
	console.log(name, seen.join(" "));
	peer.cleanup();
}
