// Performance check of the chat webview in headless Chromium (P6, docs/performance.md):
//   1. a 5,000-message task: decode + first screen (target < 1 s)
//   2. a scripted scroll through it: long tasks and frame times
//   3. 10,000 streamed chunks appended to the last message: JS heap stays flat
// Prints the numbers; exits 1 when a target is missed.
import { writeFile } from "node:fs/promises";
import { serve, launch, waitReady } from "./lib.mjs";

const server = await serve();
const browser = await launch();
let failed = false;
try {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && !m.location()?.url?.endsWith("favicon.ico") && errors.push(`${m.text()} ${m.location()?.url ?? ""}`));
  await page.goto(`${server.url}?scene=perf&theme=dark`);
  await waitReady(page, errors);
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const heap = async () => {
    await cdp.send("HeapProfiler.collectGarbage");
    const { metrics } = await cdp.send("Performance.getMetrics");
    return metrics.find((m) => m.name === "JSHeapUsedSize").value;
  };
  const mb = (b) => (b / 1048576).toFixed(2);
  // The renderer's CPU time (Performance.getMetrics' ThreadTime, the main thread's, in s): a
  // loaded machine stretches the wall-clock figures, much less the CPU a step costs.
  const cpu = async () => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "ThreadTime").value * 1000;

  const hEmpty = await heap();
  // CAIRN_WEBVIEW_PROFILE=FILE writes a CPU profile of the load and the scroll (open it in
  // Chromium's DevTools, Performance panel, or read its self times: docs/performance.md, P6).
  const profile = process.env.CAIRN_WEBVIEW_PROFILE;
  if (profile) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
    await cdp.send("Profiler.start");
  }
  const cpuLoad = await cpu();
  const load = await page.evaluate(() => window.__cairnFake.loadTask(5000));
  const loadCpu = (await cpu()) - cpuLoad;
  console.log(
    `5,000-message task: decode ${load.decodeMs.toFixed(0)} ms, first screen ${load.firstScreenMs.toFixed(0)} ms (target < 1000; renderer CPU ${loadCpu.toFixed(0)} ms), ${load.rowsInDom} rows in the DOM`,
  );
  if (load.firstScreenMs >= 1000) failed = true;

  const cpuScroll = await cpu();
  const sc = await page.evaluate(() => window.__cairnFake.scroll(240, 300));
  const scrollCpu = (await cpu()) - cpuScroll;
  console.log(
    `scroll 240 frames x 300 px: p95 frame ${sc.p95FrameMs} ms, max frame ${sc.maxFrameMs} ms, long tasks ${sc.longTasks} (total ${sc.longTaskMs} ms, max ${sc.maxLongTaskMs} ms), renderer CPU ${scrollCpu.toFixed(0)} ms (${(scrollCpu / 240).toFixed(1)} ms/frame)`,
  );
  if (profile) {
    const { profile: p } = await cdp.send("Profiler.stop");
    await writeFile(profile, JSON.stringify(p));
    console.log(`CPU profile of the load and the scroll: ${profile}`);
  }

  const idx = await page.evaluate(() => window.__cairnFake.startStreaming());
  const h0 = await heap();
  const series = [];
  let ms = 0;
  let len = 0;
  let rendered = 0;
  for (let round = 0; round < 5; round++) {
    const r = await page.evaluate(([i]) => window.__cairnFake.appendChunks(i, 2000), [idx]);
    ms += r.ms;
    len = r.textLength;
    rendered = r.renderedChars;
    series.push(await heap());
  }
  await page.evaluate(([i]) => window.__cairnFake.finish(i), [idx]);
  const hDone = await heap();
  if (rendered < len * 0.8) {
    console.log("the streamed row was not rendered");
    failed = true;
  }
  const steps = series.map((h, i) => h - (i === 0 ? h0 : series[i - 1]));
  console.log(
    `10,000 chunks streamed in ${ms.toFixed(0)} ms (${(ms / 10000).toFixed(3)} ms/chunk), message text ${len} chars, ${rendered} chars rendered in the row`,
  );
  console.log(
    `JS heap after GC: empty app ${mb(hEmpty)} MB, task loaded ${mb(h0)} MB, per 2,000 chunks ${series.map(mb).join(" → ")} MB (steps ${steps.map(mb).join(", ")} MB: the rendered message itself), finalized ${mb(hDone)} MB`,
  );
  const mermaidMs = await page.evaluate(() => window.__cairnFake.mermaid());
  console.log(`mermaid diagram (lazy chunk under the harness CSP): drawn ${mermaidMs.toFixed(0)} ms after the message arrived`);
  await page.evaluate(() => window.__cairnFake.clear());
  const hFirst = await heap();
  // Leak check: a load+stream+clear cycle must end where the previous one ended. The JS heap
  // includes the engine's compiled code, and the first cycles still add to it (code that the
  // scroll and mermaid steps did not need, then its optimized tiers, on a schedule that the
  // machine's load moves; a heap snapshot of the difference holds compiled code, not objects).
  // So three warm-up cycles come first, and the figure is the median of what each of the four
  // after them kept: a leak keeps its share in every cycle, a late burst of compiling in one.
  const cycle = () =>
    page.evaluate(async () => {
      const f = window.__cairnFake;
      await f.loadTask(5000);
      const i = await f.startStreaming();
      await f.appendChunks(i, 10000);
      f.finish(i);
      await f.clear();
    });
  const warm = [];
  for (let k = 0; k < 3; k++) {
    await cycle();
    warm.push(await heap());
  }
  const hCleared = warm[warm.length - 1];
  const kept = [];
  let prev = hCleared;
  for (let k = 0; k < 4; k++) {
    await cycle();
    const h = await heap();
    kept.push(h - prev);
    prev = h;
  }
  const sorted = [...kept].sort((a, b) => a - b);
  const perCycle = (sorted[1] + sorted[2]) / 2;
  console.log(
    `after clearing the task: ${mb(hFirst)} MB; after 3 warm-up load+stream+clear cycles: ${warm.map(mb).join(" → ")} MB; 4 more keep ${kept.map(mb).join(", ")} MB (leak ${mb(perCycle)} MB per cycle, their median)`,
  );
  // Flat: every 2,000 chunks cost about the same (no re-copying of the list or message), and
  // nothing stays behind once the task is closed.
  if (Math.max(...steps) > 3 * Math.max(262144, Math.min(...steps.map(Math.abs)) + 131072)) {
    console.log("heap growth per 2,000 chunks is not flat");
    failed = true;
  }
  if (perCycle > 524288) {
    console.log("more than 0.5 MB retained by a load+stream+clear cycle");
    failed = true;
  }
  if (errors.length) {
    console.log("page errors:\n" + errors.join("\n"));
    failed = true;
  }
} finally {
  await browser.close();
  await server.close();
}
process.exit(failed ? 1 : 0);
