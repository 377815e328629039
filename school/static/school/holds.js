// Seat hold timers count down: every .time-left[data-seconds] shows m:ss and, at zero,
// says the hold has expired (Redis has freed the seat by then; a reload shows it).
(function () {
  "use strict";
  function format(seconds) {
    var s = Math.max(0, seconds);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  function start() {
    var timers = Array.prototype.slice.call(document.querySelectorAll(".time-left[data-seconds]"));
    if (!timers.length) return;
    var began = Date.now();
    var initial = timers.map(function (el) { return parseInt(el.dataset.seconds, 10) || 0; });
    function tick() {
      var passed = Math.floor((Date.now() - began) / 1000);
      timers.forEach(function (el, i) {
        var left = initial[i] - passed;
        el.textContent = left > 0 ? format(left) : "expired";
        el.classList.toggle("expired", left <= 0);
      });
    }
    tick();
    setInterval(tick, 1000);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
