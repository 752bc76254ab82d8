/* The table component (templates/table/table.html): draws one table answer.
 *
 * A table answer is what the server sends for a table: the perspective's view as data
 * (`table`) and the same table drawn as HTML (`html`) by the one template, with `step`,
 * `turn`, `phase` and `finished`. The replay viewer feeds it the `steps/<n>.json`
 * answers; a live table feeds it the same answers as they arrive. The server decides
 * what a perspective may see, so this file never does: it swaps the drawing in, keeps
 * open what the reader opened (audit details, the summary), and shows what changed,
 * either everything since the step's decision (mode "decision") or the last event only
 * (mode "event"); see the `chg` and `chg-now` classes in the template.
 *
 *   const table = BohnanzaTable.mount(element);  // element holds the first drawing
 *   table.show(answer);                          // a newer answer
 *   table.setMode("event");                      // or "decision"
 */
(function () {
  "use strict";

  function openState(box) {
    const state = {};
    for (const details of box.querySelectorAll("details[class]")) {
      state[details.className] = details.open;
    }
    return state;
  }

  function restoreOpen(box, state) {
    for (const details of box.querySelectorAll("details[class]")) {
      if (details.className in state) details.open = state[details.className];
    }
  }

  function copyText(button, text, words) {
    const label = button.textContent;
    const done = () => {
      button.textContent = words.copied || "Copied";
      setTimeout(() => { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, () => {});
    }
  }

  function mount(box, options) {
    const words = (options && options.words) || {};
    let mode = box.classList.contains("mode-event") ? "event" : "decision";
    let current = null;

    box.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-copy-text]");
      if (button && box.contains(button)) copyText(button, button.dataset.copyText, words);
    });

    function setMode(next) {
      mode = next === "event" ? "event" : "decision";
      box.classList.toggle("mode-event", mode === "event");
      box.classList.toggle("mode-decision", mode === "decision");
    }

    function show(answer) {
      const state = openState(box);
      box.innerHTML = answer.html;
      restoreOpen(box, state);
      current = answer;
      box.dispatchEvent(new CustomEvent("table:shown", { detail: answer }));
    }

    setMode(mode);
    return {
      show,
      setMode,
      get mode() { return mode; },
      get answer() { return current; },
    };
  }

  window.BohnanzaTable = { mount };
})();
