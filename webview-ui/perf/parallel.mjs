// Three live tasks in one window (README, "Several tasks at once"; docs/performance.md): the
// frame time and DOM work of hidden streams, against the visible task streaming alone, and
// the heap with three tasks open. Prints the figures and their ratios; no target is timed.
import { serve, launch, waitReady } from "./lib.mjs";

const server = await serve();
const browser = await launch();
try {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(server.url.replace("harness.html", "parallel.html"));
  await waitReady(page, errors);
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const heap = async () => {
    await cdp.send("HeapProfiler.collectGarbage");
    const { metrics } = await cdp.send("Performance.getMetrics");
    return metrics.find((m) => m.name === "JSHeapUsedSize").value / 1048576;
  };
  const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const shown = await page.evaluate(() => window.__cairnParallel.shown());
  const hidden = ["t1", "t2", "t3"].filter((id) => id !== shown);
  const frames = 300;
  const run = (ids) => page.evaluate(([i, n]) => window.__cairnParallel.stream(i, n), [ids, frames]);
  const h0 = await heap();
  const idle = await run([]);
  const hiddenOnly = await run(hidden);
  const visibleOnly = await run([shown]);
  const all = await run([shown, ...hidden]);
  const h1 = await heap();
  const grown = await page.evaluate((ids) => ids.map((id) => window.__cairnParallel.textOf(id)), hidden);
  const line = (name, r) =>
    console.log(`${name}: frame mean ${mean(r.frameMs).toFixed(1)} ms, p95 ${p95(r.frameMs).toFixed(1)} ms, ${r.mutations} DOM mutations over ${frames} frames`);
  console.log(`three tasks open (${shown} on screen, 300 rows each): JS heap ${h0.toFixed(2)} MB; after ${frames * 6} streamed deltas ${h1.toFixed(2)} MB`);
  line("nothing streaming", idle);
  line("the two hidden tasks streaming", hiddenOnly);
  line("the visible task streaming alone", visibleOnly);
  line("all three streaming", all);
  console.log(`hidden streams: ${hiddenOnly.mutations} DOM mutations; all three / visible alone, mean frame ratio ${(mean(all.frameMs) / mean(visibleOnly.frameMs)).toFixed(2)}, mutations ratio ${(all.mutations / Math.max(1, visibleOnly.mutations)).toFixed(2)}`);
  console.log(`hidden tasks' text kept up while hidden: ${grown.join(", ")} characters`);
  if (errors.length) console.log("page errors:\n" + errors.join("\n"));
} finally {
  await browser.close();
  await server.close();
}
