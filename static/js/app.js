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

  // A list's "select all" box (``data-select-all`` names the row boxes' input name) ticks or clears
  // every row box of its table with that name, and follows them: checked when all are, mixed when some are.
  document.addEventListener("change", (event) => {
    const box = event.target;
    if (!(box instanceof HTMLInputElement) || box.type !== "checkbox") return;
    const table = box.closest("table");
    const name = box.dataset.selectAll || box.name;
    const all = table && name && table.querySelector(`[data-select-all="${CSS.escape(name)}"]`);
    if (!all) return;
    const rows = [...table.querySelectorAll(`input[type=checkbox][name="${CSS.escape(name)}"]`)];
    if (box === all) {
      rows.forEach((row) => { row.checked = all.checked; });
    } else {
      const ticked = rows.filter((row) => row.checked).length;
      all.checked = ticked === rows.length;
      all.indeterminate = ticked > 0 && ticked < rows.length;
    }
  });

  // "Go back" buttons, in place of javascript: links.
  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-history-back]")) history.back();
  });
})();
