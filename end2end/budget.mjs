// A Lighthouse-style budget for the shop page (scripts/bench.sh budget, against the release server):
// cold loads in Debian's Chromium — no cache, a fresh profile — once on the open loopback and once
// throttled like Lighthouse's mobile run (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up, CPU 4×
// slower). Prints one table, every figure beside its budget: first contentful paint, when the page is
// hydrated (interactive), what was transferred in all and for the wasm bundle, and the bundle's size.
// The HTML must be readable before the bundle arrives: first paint comes before hydration.
import { chromium } from '@playwright/test';

const base = process.env.BENCH_URL ?? 'http://127.0.0.1:3100';
const path = process.env.BUDGET_PAGE ?? '/shops/1';
const BUDGET = { fcpMs: 1800, fcpFastMs: 500, transferKb: 500, wasmKb: 250 };

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});

async function coldLoad(throttled) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (throttled) {
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 150,
      downloadThroughput: (1.6 * 1024 * 1024) / 8,
      uploadThroughput: (750 * 1024) / 8,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  }
  const requests = new Map();
  let total = 0;
  let wasm = 0;
  cdp.on('Network.responseReceived', (e) => requests.set(e.requestId, e.response));
  cdp.on('Network.loadingFinished', (e) => {
    total += e.encodedDataLength;
    const r = requests.get(e.requestId);
    if (r && r.url.endsWith('.wasm')) wasm += e.encodedDataLength;
  });
  const started = Date.now();
  await page.goto(base + path, { waitUntil: 'load', timeout: 120_000 });
  await page.locator('body[data-hydrated="true"]').waitFor({ state: 'attached', timeout: 120_000 });
  const hydratedMs = Date.now() - started;
  // Let late requests (pictures below the fold, the live-stock stream's first bytes) settle.
  await page.waitForTimeout(1000);
  const timing = await page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    const nav = performance.getEntriesByType('navigation')[0];
    return { fcp: fcp ? fcp.startTime : NaN, dcl: nav ? nav.domContentLoadedEventEnd : NaN };
  });
  const encodings = [...requests.values()]
    .filter((r) => r.url.endsWith('.wasm'))
    .map((r) => r.headers['content-encoding'] ?? r.headers['Content-Encoding'] ?? 'none');
  await context.close();
  return { fcp: timing.fcp, dcl: timing.dcl, hydratedMs, totalKb: total / 1024, wasmKb: wasm / 1024, encodings };
}

const fast = await coldLoad(false);
const slow = await coldLoad(true);
await browser.close();

/** "11 files, br": how many wasm files the page loaded (the shell and its split's), and their encodings. */
function wasmFiles(encodings) {
  if (encodings.length === 0) return 'not loaded';
  return `${encodings.length} file${encodings.length === 1 ? '' : 's'}, ${[...new Set(encodings)].join(' and ')}`;
}

const rows = [
  ['first contentful paint, open loopback', `${fast.fcp.toFixed(0)} ms`, `≤ ${BUDGET.fcpFastMs} ms`, fast.fcp <= BUDGET.fcpFastMs],
  ['hydrated (interactive), open loopback', `${fast.hydratedMs} ms`, '—', null],
  ['first contentful paint, mobile throttling', `${slow.fcp.toFixed(0)} ms`, `≤ ${BUDGET.fcpMs} ms`, slow.fcp <= BUDGET.fcpMs],
  ['hydrated (interactive), mobile throttling', `${slow.hydratedMs} ms`, '—', null],
  ['page readable before hydration', slow.fcp < slow.hydratedMs ? 'yes' : 'no', 'yes', slow.fcp < slow.hydratedMs],
  ['total transferred, cold', `${fast.totalKb.toFixed(0)} KB`, `≤ ${BUDGET.transferKb} KB`, fast.totalKb <= BUDGET.transferKb],
  [`wasm transferred (${wasmFiles(fast.encodings)})`, `${fast.wasmKb.toFixed(0)} KB`, `≤ ${BUDGET.wasmKb} KB`, fast.wasmKb <= BUDGET.wasmKb],
];
const width = Math.max(...rows.map((r) => r[0].length));
console.log(`\nBudget for ${path} (cold load, 390 px, release build)`);
console.log(`${'figure'.padEnd(width)} | measured | budget     | ok`);
console.log(`${'-'.repeat(width)}-|----------|------------|----`);
for (const [name, value, budget, ok] of rows) {
  const verdict = ok === null ? '—' : ok ? 'yes' : 'MISS';
  console.log(`${name.padEnd(width)} | ${value.padStart(8)} | ${budget.padEnd(10)} | ${verdict}`);
}
