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
 *   table.show(answer);                          // a newer answer (false: its
 *                                                // `parts` do not fit this drawing)
 *   table.setMode("event");                      // or "decision"
 *
 * Interactive mode (the live table): `table.play(options)` turns the drawing into the
 * place where a seat plays. The server sends the seat's legal moves with each answer
 * (docs/protocol.md); only those are offered, as buttons (keys 1-9 press the first
 * nine), as clicks on the drawing's cards and fields, and an offer form built from
 * the offer's legal shape. `options`: {moves: element for the buttons, words:
 * translated labels, send: function(command) called with the wire command}.
 *
 *   table.play({moves, words, send});
 *   table.setMoves(legal);                       // after each answer
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

    // A live table's answer may carry only the drawing's regions that changed since the
    // last one (`parts`: [key, html], docs/protocol.md), each one element of the drawing.
    function regionOf(key) {
      if (key.startsWith("seat-")) {
        return box.querySelector('.rt-seat[data-seat="' + Number(key.slice(5)) + '"]');
      }
      return box.querySelector(".rt-" + key);
    }

    function replaceParts(answer) {
      const root = box.querySelector(".rt");
      if (!root) return false;
      const found = answer.parts.map(([key]) => regionOf(key));
      if (found.some((element) => !element)) return false;
      answer.parts.forEach(([, html], i) => {
        const template = document.createElement("template");
        template.innerHTML = html.trim();
        found[i].replaceWith(template.content);
      });
      root.dataset.step = String(answer.step);
      root.dataset.finished = answer.finished ? "1" : "0";
      return true;
    }

    function show(answer) {
      const state = openState(box);
      if (answer.html === undefined) {
        // Regions this drawing does not have: the caller asks for the whole answer.
        if (!replaceParts(answer)) return false;
      } else {
        box.innerHTML = answer.html;
      }
      restoreOpen(box, state);
      current = answer;
      box.dispatchEvent(new CustomEvent("table:shown", { detail: answer }));
      return true;
    }

    let interactive = null;

    function fill(template, values) {
      return template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));
    }

    function cardName(card) {
      const table = current && current.table;
      const kind = table ? table.card_kinds[card] : "";
      return (interactive.words.beans && interactive.words.beans[kind]) || kind;
    }

    // A face-up card named as one, a card of one's own hand with its place there
    // ("(2/5)") when the hand holds another of its kind: giving the front or the back
    // one is not the same move.
    function cardPlace(card) {
      const name = cardName(card);
      const table = current && current.table;
      const seat = table ? table.perspective : null;
      const mine = typeof seat === "number" && seat >= 0 ? table.seats[seat] : null;
      const hand = mine && mine.hand;
      const faceUp = interactive.words.face_up_card || interactive.words.face_up;
      if (table && table.face_up.includes(card) && faceUp) {
        return name + " (" + faceUp + ")";
      }
      const at = hand ? hand.indexOf(card) : -1;
      if (at < 0) return name;
      const kind = table.card_kinds[card];
      if (hand.filter((c) => table.card_kinds[c] === kind).length < 2) return name;
      return name + " (" + (at + 1) + "/" + hand.length + ")";
    }

    function label(move) {
      const w = interactive.words;
      const values = Object.assign({}, move);
      if ("field" in move) values.field = move.field + 1;
      if ("card" in move) values.card = cardName(move.card);
      if ("cards" in move) values.cards = move.cards.map(cardPlace).join(", ") || w.nothing;
      return fill(w[move.kind] || move.kind, values);
    }

    function button(text, onClick, cls) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = cls || "move";
      b.textContent = text;
      b.addEventListener("click", onClick);
      return b;
    }

    function offerForm(shape) {
      const w = interactive.words;
      const table = current.table;
      const form = document.createElement("fieldset");
      form.className = "offer-form";
      const legend = document.createElement("legend");
      legend.textContent = w.offer;
      form.appendChild(legend);
      const gives = document.createElement("div");
      gives.className = "offer-gives";
      gives.appendChild(document.createTextNode(w.give + " "));
      for (const card of shape.givable) {
        const l = document.createElement("label");
        const c = document.createElement("input");
        c.type = "checkbox";
        c.value = card;
        c.name = "give-" + card;
        l.appendChild(c);
        l.appendChild(document.createTextNode(" " + cardPlace(card) + " "));
        gives.appendChild(l);
      }
      form.appendChild(gives);
      const wants = document.createElement("div");
      wants.className = "offer-wants";
      wants.appendChild(document.createTextNode(w.want + " "));
      for (const kind of shape.wantable) {
        const l = document.createElement("label");
        const n = document.createElement("input");
        n.type = "number";
        n.min = "0";
        n.max = "9";
        n.value = "0";
        n.dataset.kind = kind;
        n.name = "want-" + kind;
        n.className = "offer-want";
        l.appendChild(document.createTextNode((w.beans[kind] || kind) + " "));
        l.appendChild(n);
        wants.appendChild(l);
      }
      form.appendChild(wants);
      const to = document.createElement("select");
      to.className = "offer-to";
      to.name = "to";
      to.setAttribute("aria-label", w.to);
      for (const seat of shape.to) {
        const o = document.createElement("option");
        o.value = seat === null ? "" : String(seat);
        o.textContent = seat === null ? w.everyone : table.seats[seat].name;
        to.appendChild(o);
      }
      form.appendChild(document.createTextNode(w.to + " "));
      form.appendChild(to);
      form.appendChild(button(w.make_offer, () => {
        const given = [...gives.querySelectorAll("input:checked")].map((c) => Number(c.value));
        const wanted = [...wants.querySelectorAll("input.offer-want")]
          .filter((n) => Number(n.value) > 0).map((n) => [n.dataset.kind, Number(n.value)]);
        interactive.send({ kind: "make_offer", gives: given, wants: wanted,
                           to: to.value === "" ? null : Number(to.value) });
        form.replaceWith(offerForm(shape));  // sent: the next offer starts empty
      }, "move move-offer"));
      return form;
    }

    // Every frame redraws the moves, several a second while bots play: the offer the
    // reader is composing is kept across it, each choice the new shape still allows
    // (the form's controls are named by card, kind and "to").
    function offerChoices(panel) {
      const form = panel.querySelector(".offer-form");
      if (!form) return null;
      const values = {};
      for (const e of form.elements) {
        if (e.name) values[e.name] = e.type === "checkbox" ? e.checked : e.value;
      }
      const focused = form.contains(document.activeElement) ? document.activeElement.name : "";
      return { values, focused };
    }

    function keepChoices(form, kept) {
      if (!kept) return;
      for (const e of form.elements) {
        if (!(e.name in kept.values)) continue;
        const value = kept.values[e.name];
        if (e.type === "checkbox") e.checked = value;
        else e.value = value;
        if (e.selectedIndex === -1) e.selectedIndex = 0;  // a seat no longer offered
      }
      const focused = kept.focused && form.elements.namedItem(kept.focused);
      if (focused) focused.focus();
    }

    function setMoves(legal) {
      if (!interactive) return;
      const panel = interactive.moves;
      const kept = offerChoices(panel);
      panel.innerHTML = "";
      interactive.legal = legal || [];
      const list = document.createElement("div");
      list.className = "move-list";
      let n = 0;
      for (const move of interactive.legal) {
        if (move.kind === "offer_shape") continue;
        n += 1;
        const key = n <= 9 ? "[" + n + "] " : "";
        const b = button(key + label(move), () => interactive.send(move));
        b.dataset.key = n <= 9 ? String(n) : "";
        b.dataset.kind = move.kind;
        list.appendChild(b);
      }
      panel.appendChild(list);
      const shape = interactive.legal.find((m) => m.kind === "offer_shape");
      if (shape) keepChoices(panel.appendChild(offerForm(shape)), kept);
      keepChooser();
      if (!interactive.legal.length) {
        const p = document.createElement("p");
        p.className = "rt-none";
        p.textContent = interactive.words.wait;
        panel.appendChild(p);
      }
    }

    // A tap that could mean several moves (a field one may plant in or harvest, a card
    // one may plant in either field) asks which: a small panel of those moves, over the
    // bottom of the screen, gone when it is answered, cancelled or no longer true.
    let chooser = null;

    function closeChooser() {
      if (chooser) chooser.element.remove();
      chooser = null;
    }

    function openChooser(choices, from) {
      closeChooser();
      const w = interactive.words;
      const panel = document.createElement("div");
      panel.className = "move-choice";
      panel.setAttribute("role", "group");
      panel.setAttribute("aria-label", w.choose_move || "");
      const title = document.createElement("p");
      title.className = "move-choice-title";
      title.textContent = w.choose_move || "";
      panel.appendChild(title);
      for (const move of choices) {
        panel.appendChild(button(label(move), () => { closeChooser(); interactive.send(move); },
                                 "move move-chosen"));
      }
      panel.appendChild(button(w.cancel || "×", () => {
        closeChooser();
        if (from && from.focus) from.focus();
      }, "move move-cancel"));
      document.body.appendChild(panel);
      chooser = { element: panel, moves: choices.map((m) => JSON.stringify(m)) };
      panel.querySelector("button").focus();
    }

    function keepChooser() {  // after new moves: the choice stands only while all still hold
      if (!chooser) return;
      const now = new Set(interactive.legal.map((m) => JSON.stringify(m)));
      if (!chooser.moves.every((m) => now.has(m))) closeChooser();
    }

    function onTableClick(event) {
      if (!interactive || !interactive.legal) return;
      const card = event.target.closest("[data-card]");
      const field = event.target.closest(".is-you [data-field]");
      let choices = [];
      if (card) {
        const id = Number(card.dataset.card);
        choices = interactive.legal.filter((m) => m.card === id);
      } else if (field) {
        const number = Number(field.dataset.field) - 1;
        choices = interactive.legal.filter((m) => m.field === number);
      }
      if (choices.length === 1) interactive.send(choices[0]);
      else if (choices.length > 1) openChooser(choices, card || field);
    }

    function play(options) {
      interactive = Object.assign({ legal: [] }, options);
      box.classList.add("is-interactive");
      box.addEventListener("click", onTableClick);
      document.addEventListener("keydown", (event) => {
        if (event.key === "Escape" && chooser) { closeChooser(); return; }
        if (event.target.closest("input, select, textarea")) return;
        const b = interactive.moves.querySelector('button[data-key="' + event.key + '"]');
        if (b) { event.preventDefault(); b.click(); }
      });
    }

    setMode(mode);
    return {
      show,
      setMode,
      play,
      setMoves,
      get mode() { return mode; },
      get answer() { return current; },
    };
  }

  window.BohnanzaTable = { mount };
})();
