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

  // A table wider than its box: the box says so (.scrolls-x: a cue and an edge shadow, app.css) until
  // it is scrolled through (.at-end), and the row's name stays put: the first column with a link,
  // with the checkbox columns before it (.stuck, each at its own left offset), so price or capacity
  // come into view beside the row they belong to. Measured again whenever the box changes size.
  const stickKeyColumn = (table, on) => {
    table.querySelectorAll(".stuck").forEach((cell) => cell.classList.remove("stuck", "stuck-last"));
    const first = table.tBodies[0] && table.tBodies[0].rows[0];
    if (!on || !first) return;
    const cells = [...first.cells];
    const key = Math.max(0, cells.findIndex((cell) => cell.querySelector("a[href]")));
    let stuck = cells.slice(0, key).flatMap((cell, i) => cell.querySelector("input[type=checkbox]") ? [i] : []);
    stuck.push(key);
    // On a narrow box the checkbox columns scroll with the rest when keeping them would leave less than
    // half of the box for the columns scrolled to: the row's name alone stays.
    const width = (i) => cells[i].offsetWidth;
    if (stuck.reduce((sum, i) => sum + width(i), 0) > table.parentElement.clientWidth / 2) stuck = [key];
    const lefts = [];
    stuck.reduce((left, i) => { lefts.push(left); return left + cells[i].offsetWidth; }, 0);
    for (const row of table.rows) {
      if (row.cells.length !== cells.length) continue;  // a row that spans columns scrolls with the rest
      stuck.forEach((i, n) => {
        const cell = row.cells[i];
        cell.classList.add("stuck");
        cell.classList.toggle("stuck-last", i === key);
        cell.style.setProperty("--stick-left", `${lefts[n]}px`);  // CSSOM: the CSP refuses style attributes, not this
      });
    }
  };
  const markScroll = (box, measure) => {
    const wide = box.scrollWidth > box.clientWidth + 1;
    if (measure || wide !== box.classList.contains("scrolls-x")) {
      box.classList.toggle("scrolls-x", wide);
      box.querySelectorAll(":scope > table").forEach((table) => stickKeyColumn(table, wide));
    }
    box.classList.toggle("at-end", wide && box.scrollLeft + box.clientWidth >= box.scrollWidth - 2);
  };
  const sized = new ResizeObserver((entries) => entries.forEach((entry) => markScroll(entry.target, true)));
  const watchTable = (table) => {
    const box = table.parentElement;
    if (!box) return;
    if (box.dataset.scrollWatched) return markScroll(box, true);  // a new table in a box already watched
    box.dataset.scrollWatched = "1";
    box.addEventListener("scroll", () => markScroll(box, false), {passive: true});
    sized.observe(box);
  };

  // Filters behind a button (<details class="filter-panel">): open on a wide screen, closed on a
  // phone, and as the user left them when htmx swaps the list (and its form) for the next one.
  const wide = window.matchMedia("(min-width: 901px)");
  let filtersOpen = null;
  document.addEventListener("toggle", (event) => {
    if (event.target.matches?.(".filter-panel")) filtersOpen = event.target.open;
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

  // A form shown again with errors: its summary takes the focus (and the screen), wherever it is.
  const focusErrors = (root) => {
    const summary = (root.matches && root.matches("[data-error-summary]")) ? root : root.querySelector("[data-error-summary]");
    if (summary) summary.focus();
  };

  // An add form's one-time token (config/saving.py) is kept for its page when the form is sent.
  // Back to that page reloads it with a new token but the user's input restored: the kept token
  // goes back in, so saving again is known as the same form, not a new one.
  const onceKey = () => `once:${location.pathname}${location.search}`;
  const remember = (key, value) => { try { sessionStorage.setItem(key, value); } catch (e) { /* storage off */ } };
  const recall = (key) => { try { return sessionStorage.getItem(key); } catch (e) { return null; } };
  const keepToken = (root) => {
    const input = root.querySelector("input[data-once]");
    const arrival = performance.getEntriesByType("navigation")[0];
    const kept = recall(onceKey());
    if (input && kept && arrival && arrival.type === "back_forward") input.value = kept;
  };

  const start = (root) => {
    focusErrors(root);
    keepToken(root);
    root.querySelectorAll("[data-expires-ms]").forEach(countDown);
    root.querySelectorAll("main table").forEach(watchTable);
    if (root.matches?.("main table")) watchTable(root);
    // A filtered list comes with its panel open (the filters in use stay in sight).
    root.querySelectorAll(".filter-panel").forEach((panel) => { panel.open = filtersOpen ?? (wide.matches || panel.open); });
    // Images that failed before this script ran.
    root.querySelectorAll("img[data-fallback]").forEach((img) => {
      if (img.complete && img.naturalWidth === 0) fallBack(img);
    });
  };

  document.addEventListener("DOMContentLoaded", () => start(document));
  // Pages swapped in by htmx (the key browser's paging) start their own countdowns.
  document.addEventListener("htmx:load", (event) => start(event.target));

  // A posted form sends once: its submit buttons are disabled while the request runs, so a double
  // click cannot send it twice (the server refuses a repeat too: config/saving.py). They are
  // disabled after the submit event, so the button clicked is still part of what is sent.
  const submits = (form) => Array.from(form.elements).filter((el) => el.type === "submit");
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.method !== "post" || event.defaultPrevented) return;
    if (form.dataset.sending) { event.preventDefault(); return; }
    form.dataset.sending = "1";
    const once = form.querySelector("input[data-once]");
    if (once) remember(onceKey(), once.value);
    form.setAttribute("aria-busy", "true");
    setTimeout(() => submits(form).forEach((button) => { button.disabled = true; }), 0);
  });
  // Back to a page kept by the browser: its forms can be sent again.
  window.addEventListener("pageshow", () => {
    document.querySelectorAll("form[data-sending]").forEach((form) => {
      delete form.dataset.sending;
      form.removeAttribute("aria-busy");
      submits(form).forEach((button) => { button.disabled = false; });
    });
  });

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
