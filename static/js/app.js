// The dashboard's own behaviour, in a file: the Content-Security-Policy allows no inline script.
(() => {
  "use strict";

  // A TTL counts down in the page; the absolute time beside it is when Redis drops the key.
  const countDown = (el) => {
    if (el.dataset.counting) return;
    el.dataset.counting = "1";
    const end = Date.now() + Number(el.dataset.expiresMs);
    const tick = () => {
      if (!el.isConnected) return;
      const left = end - Date.now();
      if (left <= 0) { el.textContent = "expired"; return; }
      const s = Math.floor(left / 1000), d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
      el.textContent = d ? `${d}d ${h}h` : h ? `${h}h ${String(m).padStart(2, "0")}m` : m ? `${m}m ${String(s % 60).padStart(2, "0")}s` : `${s}s`;
      setTimeout(tick, left % 1000 || 1000);
    };
    tick();
  };

  // An image that fails gives way to its frame's placeholder (CSS draws it behind the image).
  const fallBack = (img) => img.classList.add("broken");
  document.addEventListener("error", (event) => {
    if (event.target instanceof HTMLImageElement && event.target.matches("[data-fallback]")) fallBack(event.target);
  }, true);

  // A chart's bar shows its values below the chart on a tap, a click or a hover: touch has no hover.
  const showBar = (bar) => {
    const figure = bar.closest("figure");
    const readout = figure && figure.querySelector(".chart-readout");
    if (!readout) return;
    figure.querySelectorAll(".bucket.chosen").forEach((other) => other.classList.remove("chosen"));
    bar.classList.add("chosen");
    readout.textContent = bar.getAttribute("aria-label");
  };
  document.addEventListener("click", (event) => {
    const bar = event.target.closest?.(".chart-svg .bucket");
    if (bar) showBar(bar);
  });
  document.addEventListener("pointerover", (event) => {
    const bar = event.pointerType === "mouse" && event.target.closest?.(".chart-svg .bucket");
    if (bar) showBar(bar);
  });

  const start = (root) => {
    root.querySelectorAll("[data-expires-ms]").forEach(countDown);
    // Images that failed before this script ran.
    root.querySelectorAll("img[data-fallback]").forEach((img) => {
      if (img.complete && img.naturalWidth === 0) fallBack(img);
    });
  };

  document.addEventListener("DOMContentLoaded", () => start(document));
  // Pages swapped in by htmx (the key browser's paging) start their own countdowns.
  document.addEventListener("htmx:load", (event) => start(event.target));

  // "Go back" buttons, in place of javascript: links.
  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-history-back]")) history.back();
  });
})();
