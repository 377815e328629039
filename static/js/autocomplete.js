/* Autocomplete comboboxes (templates/includes/autocomplete.html): htmx fills the listbox, this makes it
   keyboard operable. ArrowDown/ArrowUp move through the options, Enter picks the active one, Escape
   closes; a click picks too. "go" follows the option's link, "fill" puts its id in the hidden input. */
(function () {
  "use strict";

  function parts(box) {
    return {
      input: box.querySelector("[role=combobox]"),
      list: box.querySelector("[role=listbox]"),
      value: box.querySelector("[data-autocomplete-value]"),
    };
  }

  function options(list) {
    return Array.prototype.slice.call(list.querySelectorAll("[role=option]"));
  }

  function open(box, isOpen) {
    var p = parts(box);
    p.list.hidden = !isOpen;
    p.input.setAttribute("aria-expanded", isOpen ? "true" : "false");
    if (!isOpen) {
      p.input.removeAttribute("aria-activedescendant");
    }
  }

  function activate(box, index) {
    var p = parts(box);
    var all = options(p.list);
    all.forEach(function (option, i) {
      option.setAttribute("aria-selected", i === index ? "true" : "false");
    });
    if (index >= 0 && all[index]) {
      p.input.setAttribute("aria-activedescendant", all[index].id);
      all[index].scrollIntoView({ block: "nearest" });
    } else {
      p.input.removeAttribute("aria-activedescendant");
    }
  }

  function pick(box, option) {
    var p = parts(box);
    if (box.dataset.autocomplete === "go" && option.dataset.href) {
      window.location.assign(option.dataset.href);
      return;
    }
    p.input.value = option.dataset.label;
    if (p.value) {
      p.value.value = option.dataset.id;
    }
    open(box, false);
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    var box = event.target.closest && event.target.closest("[data-autocomplete]");
    if (box && event.target.getAttribute("role") === "listbox") {
      var p = parts(box);
      open(box, document.activeElement === p.input && p.list.children.length > 0);
      activate(box, -1);
    }
  });

  document.addEventListener("keydown", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches("[data-autocomplete] [role=combobox]")) {
      return;
    }
    var box = input.closest("[data-autocomplete]");
    var p = parts(box);
    var all = options(p.list);
    var current = all.findIndex(function (o) { return o.getAttribute("aria-selected") === "true"; });
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!all.length) {
        return;
      }
      event.preventDefault();
      open(box, true);
      var step = event.key === "ArrowDown" ? 1 : -1;
      activate(box, current < 0 ? (step > 0 ? 0 : all.length - 1) : (current + step + all.length) % all.length);
    } else if (event.key === "Enter" && !p.list.hidden && current >= 0) {
      event.preventDefault();
      pick(box, all[current]);
    } else if (event.key === "Escape" && !p.list.hidden) {
      event.preventDefault();
      open(box, false);
    }
  });

  document.addEventListener("input", function (event) {
    var box = event.target.closest && event.target.closest("[data-autocomplete=fill]");
    if (box && event.target.getAttribute("role") === "combobox") {
      parts(box).value.value = "";  // typed text names no record until one is picked
    }
  });

  document.addEventListener("click", function (event) {
    var option = event.target.closest && event.target.closest("[data-autocomplete] [role=option]");
    if (option) {
      event.preventDefault();
      pick(option.closest("[data-autocomplete]"), option);
      return;
    }
    document.querySelectorAll("[data-autocomplete]").forEach(function (box) {
      if (!box.contains(event.target)) {
        open(box, false);
      }
    });
  });
})();
