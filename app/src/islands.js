// Loads the wasm module when the browser is idle and hydrates the page's islands — all at once, each
// fetching its own code (`#[island(lazy)]`) — then marks <body data-hydrated> for tests and tools.
// Leptos' own islands loader, except that it hydrates islands in parallel rather than one after another
// and says when it is done. An island inside another (a review's buttons in the merchant's console) gets
// no element of its own: the island around it hydrates it.
((pkgPath, jsName, wasmName) => {
  const idle = (f) => ("requestIdleCallback" in window ? window.requestIdleCallback(f) : f());
  async function hydrate(el, mod) {
    const f = mod[el.dataset.component];
    if (f) await f(el);
    else console.warn(`No wasm function for the island ${el.dataset.component}.`);
  }
  idle(async () => {
    const mod = await import(`/${pkgPath}/${jsName}.js`);
    await mod.default({ module_or_path: `/${pkgPath}/${wasmName}.wasm` });
    mod.hydrate();
    await Promise.all([...document.querySelectorAll("leptos-island")].map((el) => hydrate(el, mod)));
    document.body.dataset.hydrated = "true";
  });
})
