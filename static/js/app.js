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

  // "Go back" buttons, in place of javascript: links.
  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-history-back]")) history.back();
  });
})();
