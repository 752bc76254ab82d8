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

  // A seat's name as people read it where the drawing does not say it (the offer
  // form, the clocks, what is announced): a bot account's marked as a bot's, as the
  // frame's facts say (`facts.bot_accounts`, looked up when the frame was built).
  function seatName(table, facts, seat, words) {
    const name = table.seats[seat].name;
    const marked = (facts && facts.bot_accounts) || [];
    return marked.includes(seat) && words && words.bot_account
      ? words.bot_account.replace("%(name)s", name) : name;
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
      if (move.kind === "harvest") return harvestLabel(move);
      if (move.kind === "accept_offer") values.gets = offerGets(move.offer);
      return fill(w[move.kind] || move.kind, values);
    }

    // What accepting offer ``number`` gets the reader: the cards its proposer gives.
    function offerGets(number) {
      const table = current && current.table;
      const offer = table && (table.offers || []).find((o) => o.offer === number);
      const names = offer ? offer.gives.map(cardName) : [];
      return names.join(", ") || interactive.words.nothing;
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
        o.textContent = seat === null ? w.everyone : seatName(table, interactive.facts, seat, w);
        to.appendChild(o);
      }
      form.appendChild(document.createTextNode(w.to + " "));
      form.appendChild(to);
      let last = null;
      if (interactive.pass && interactive.mayPass && interactive.mayPass()) {
        const l = document.createElement("label");
        last = document.createElement("input");
        last.type = "checkbox";
        last.name = "last";
        l.appendChild(last);
        l.appendChild(document.createTextNode(" " + w.last_offer));
        form.appendChild(l);
      }
      form.appendChild(button(w.make_offer, () => {
        const given = [...gives.querySelectorAll("input:checked")].map((c) => Number(c.value));
        const wanted = [...wants.querySelectorAll("input.offer-want")]
          .filter((n) => Number(n.value) > 0).map((n) => [n.dataset.kind, Number(n.value)]);
        interactive.send({ kind: "make_offer", gives: given, wants: wanted,
                           to: to.value === "" ? null : Number(to.value) });
        if (last && last.checked) interactive.pass();
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

    // -- the moves: stable keys, one accept per offer, presses checked ----------------
    //
    // A move keeps its key (1-9) and its place while it stays legal: keys are bound to
    // what a move is (its identity), never to the list's order, so a move that appears
    // or goes away does not shift the others under the reader's finger. Moves that
    // read the same are one button (two face-up Blue beans, planted alike); the
    // accepts of one offer are one button, which opens a choice of one's cards with
    // the engine's first choice ticked. A press on a move that appeared or changed in
    // the last CHANGED_MS is not sent: the reader is told what it is now.

    const CHANGED_MS = 1000;

    function me() {
      const table = current && current.table;
      return table && typeof table.perspective === "number" ? table.perspective : null;
    }

    function identity(move) {
      if (move.kind === "accept_offer") return "accept_offer:" + move.offer;
      if (move.kind === "plant_card") return "plant_card:" + label(move);  // same kind, same field
      // Identical cards discarded (not from the hand, whose order the choice changes):
      // one button, as identical plants.
      if (move.kind === "discard_card" && !inHand(move.card)) return "discard_card:" + label(move);
      return JSON.stringify(move);
    }

    function inHand(card) {
      const table = current && current.table;
      const seat = me();
      const mine = table && seat !== null ? table.seats[seat] : null;
      return !!(mine && (mine.hand || []).includes(card));
    }

    // Offers open to this seat that it has not answered.
    function offersToMe() {
      const table = current && current.table;
      const seat = me();
      if (!table || seat === null) return [];
      return (table.offers || []).filter((o) => o.proposer !== seat
        && (o.counterparty === seat || (o.counterparty === null && table.active !== seat))
        && !(o.declined_by || []).includes(seat));
    }

    function groups(legal) {
      const out = new Map();
      for (const move of legal) {
        if (move.kind === "offer_shape") continue;
        const id = identity(move);
        const group = out.get(id);
        if (group) group.moves.push(move);
        else out.set(id, { id, moves: [move] });
      }
      for (const group of out.values()) group.text = groupLabel(group);
      return out;
    }

    function groupLabel(group) {
      const w = interactive.words;
      const move = group.moves[0];
      if (move.kind === "accept_offer" && group.moves.length > 1) {
        return fill(w.accept_choose || w.accept_offer,
                    { offer: move.offer, cards: "…", gets: offerGets(move.offer) });
      }
      return label(move);
    }

    function notice(text) {
      const p = interactive.notice;
      p.textContent = text;
      p.hidden = !text;
      if (text && interactive.announce) interactive.announce(text);
    }

    // The drawing's facts beside the legal moves (docs/protocol.md: `facts`).
    function pays(field) {
      const facts = interactive.facts || {};
      const seat = me();
      const row = facts.pays && seat !== null ? facts.pays[seat] : null;
      return row && field < row.length ? row[field] : null;
    }

    function harvestLabel(move) {
      const w = interactive.words;
      const coins = pays(move.field);
      const base = fill(w.harvest, { field: move.field + 1 });
      if (coins === null || coins === undefined) return base;
      return base + " · " + fill(coins === 1 ? w.pays_one : w.pays, { n: coins });
    }

    // Why the moves are what they are when they leave no choice worth asking about.
    function explain(entries) {
      const w = interactive.words;
      const table = current && current.table;
      const moves = [...entries.values()].map((g) => g.moves[0]);
      if (!table || !moves.length || !moves.every((m) => m.kind === "harvest")) return "";
      const seat = me();
      const mine = seat !== null ? table.seats[seat] : null;
      if (!mine) return "";
      const hand = mine.hand || [];
      if (table.phase === "planting" && table.active === seat && hand.length) {
        return fill(w.forced_front, { card: cardName(hand[0]) });
      }
      const owed = (mine.trade_area || []).length
        || (table.phase === "planting_received" && table.active === seat && table.face_up.length);
      if (table.phase === "planting_received" && owed) return w.forced_plant || "";
      return "";
    }

    // A press the reader may regret: asked again before it is sent.
    function regret(group) {
      const w = interactive.words;
      const move = group.moves[0];
      if (move.kind === "harvest" && pays(move.field) === 0) return fill(w.confirm_harvest_zero, { field: move.field + 1 });
      if (move.kind === "end_trading" && offersToMe().length) return w.confirm_end_trading;
      return "";
    }

    function ask(question, yes, id) {
      const w = interactive.words;
      const box = interactive.confirm;
      box.replaceChildren();
      box.dataset.id = id;
      const p = document.createElement("span");
      p.textContent = question + " ";
      box.appendChild(p);
      const ok = button(w.yes, () => { box.hidden = true; box.replaceChildren(); yes(); }, "move move-yes");
      box.appendChild(ok);
      box.appendChild(button(w.no, () => { box.hidden = true; box.replaceChildren(); }, "move move-no"));
      box.hidden = false;
      ok.focus();
    }

    // The accept of an offer: which of one's cards to give, the engine's first choice
    // ticked; sent once the ticked cards are one of the legal ways to pay.
    function chooser(group) {
      const w = interactive.words;
      const box = interactive.confirm;
      box.replaceChildren();
      box.dataset.id = group.id;
      const offer = group.moves[0].offer;
      const cards = [];
      for (const move of group.moves) for (const c of move.cards) if (!cards.includes(c)) cards.push(c);
      const title = document.createElement("span");
      title.textContent = fill(w.accept_which, { offer }) + " ";
      box.appendChild(title);
      const picked = new Set(group.moves[0].cards);
      const boxes = [];
      for (const c of cards) {
        const l = document.createElement("label");
        l.className = "accept-card";
        const input = document.createElement("input");
        input.type = "checkbox";
        input.value = String(c);
        input.checked = picked.has(c);
        l.appendChild(input);
        l.appendChild(document.createTextNode(" " + cardPlace(c)));
        boxes.push(input);
        box.appendChild(l);
      }
      const chosen = () => boxes.filter((b) => b.checked).map((b) => Number(b.value)).sort((a, b) => a - b);
      const matching = () => group.moves.find((m) => {
        const have = [...m.cards].sort((a, b) => a - b);
        const want = chosen();
        return have.length === want.length && have.every((c, i) => c === want[i]);
      });
      const go = button(w.accept_go, () => {
        const move = matching();
        if (!move) { notice(w.accept_no_match); return; }
        box.hidden = true;
        box.replaceChildren();
        interactive.send(move);
      }, "move move-accept");
      box.addEventListener("change", () => { go.disabled = !matching(); });
      box.appendChild(go);
      box.appendChild(button(w.no, () => { box.hidden = true; box.replaceChildren(); }, "move move-no"));
      box.hidden = false;
      go.focus();
    }

    function press(id) {
      const w = interactive.words;
      const group = interactive.groups.get(id);
      if (!group) {
        notice(w.vanished);
        return;
      }
      // Changed under the finger: its words changed just now, or it took the place of a
      // move that went away just now (not by this reader's own move).
      const now = performance.now();
      const changed = now - group.changedAt < CHANGED_MS
        || (now - group.since < CHANGED_MS && now - interactive.lostAt < CHANGED_MS);
      if (changed) {
        notice(fill(w.changed, { move: group.text }));
        group.since = group.changedAt = now - CHANGED_MS;  // a second press is meant
        return;
      }
      notice("");
      const move = group.moves[0];
      if (move.kind === "accept_offer" && group.moves.length > 1) { chooser(group); return; }
      const question = regret(group);
      if (question) { ask(question, () => sendGroup(id), id); return; }
      interactive.send(move);
    }

    // Sent after a confirmation, if the move is still there as it was asked about.
    function sendGroup(id) {
      const group = interactive.groups.get(id);
      if (!group) { notice(interactive.words.vanished); return; }
      interactive.send(group.moves[0]);
    }

    // ``own``: the answer to this reader's own move (a live frame with its ``ref``);
    // undefined: judged by whether a move was sent since the last answer. What the
    // reader's own move changed or took away does not guard a button: they saw it.
    function setMoves(legal, facts, own) {
      if (!interactive) return;
      const mine = own === undefined ? interactive.pending : !!own;
      const panel = interactive.moves;
      const kept = offerChoices(panel);
      interactive.legal = legal || [];
      interactive.facts = facts || interactive.facts || {};
      const now = performance.now();
      const next = groups(interactive.legal);
      const before = interactive.groups;
      for (const [id, group] of next) {
        const old = before.get(id);
        group.since = old ? old.since : now;
        group.changedAt = old && old.text !== group.text && !mine ? now
          : (old ? old.changedAt : -Infinity);
      }
      // Moves gone by someone else's doing (not the answer to this reader's own move).
      if (!mine && [...before.keys()].some((id) => !next.has(id))) {
        interactive.lostAt = now;
      }
      if (own === undefined || mine) interactive.pending = false;
      // Keys: kept by each move still there; the new ones take the lowest free key.
      const slots = new Map();
      for (const [id, n] of interactive.slots) if (next.has(id)) slots.set(id, n);
      const used = new Set(slots.values());
      for (const id of next.keys()) {
        if (slots.has(id)) continue;
        let n = 1;
        while (used.has(n)) n += 1;
        if (n > 9) continue;
        slots.set(id, n);
        used.add(n);
      }
      interactive.slots = slots;
      interactive.groups = next;
      // The buttons: the ones already there are kept (moved into the key's order), so a
      // press lands where the reader aimed.
      let list = panel.querySelector(".move-list");
      if (!list) {
        panel.replaceChildren();
        list = document.createElement("div");
        list.className = "move-list";
        panel.appendChild(list);
      }
      const shown = new Map([...list.querySelectorAll("button.move")].map((b) => [b.dataset.id, b]));
      // In the keys' order, but an offer's accept and decline side by side (at the
      // place of the lower key of the two), the accept first.
      const rank = (id) => slots.get(id) || 99;
      const offerOf = (id) => {
        const m = next.get(id).moves[0];
        return m.kind === "accept_offer" || m.kind === "decline_offer" ? m.offer : null;
      };
      const offerRank = new Map();
      for (const id of next.keys()) {
        const o = offerOf(id);
        if (o !== null) offerRank.set(o, Math.min(offerRank.has(o) ? offerRank.get(o) : 99, rank(id)));
      }
      const place = (id) => {
        const o = offerOf(id);
        if (o === null) return [rank(id), 0, 0];
        return [offerRank.get(o), o, next.get(id).moves[0].kind === "accept_offer" ? 0 : 1];
      };
      const order = [...next.keys()].sort((a, b) => {
        const pa = place(a), pb = place(b);
        return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2];
      });
      const buttons = order.map((id) => {
        const group = next.get(id);
        const n = slots.get(id);
        const text = (n ? "[" + n + "] " : "") + group.text;
        let b = shown.get(id);
        if (!b) {
          b = button(text, () => press(b.dataset.id));
          b.dataset.id = id;
        } else if (b.textContent !== text) {
          b.textContent = text;
        }
        b.dataset.key = n ? String(n) : "";
        b.dataset.kind = group.moves[0].kind;
        shown.delete(id);
        return b;
      });
      for (const gone of shown.values()) gone.remove();
      buttons.forEach((b, i) => {
        if (list.children[i] !== b) list.insertBefore(b, list.children[i] || null);
      });
      for (const extra of [...panel.children]) {
        if (extra !== list && !extra.classList.contains("move-why")) extra.remove();
      }
      let why = panel.querySelector(".move-why");
      const reason = explain(next);
      if (reason && !why) {
        why = document.createElement("p");
        why.className = "move-why";
        panel.insertBefore(why, list);
      }
      if (why) { why.textContent = reason; why.hidden = !reason; }
      const shape = interactive.legal.find((m) => m.kind === "offer_shape");
      if (shape) keepChoices(panel.appendChild(offerForm(shape)), kept);
      keepChooser();
      if (!next.size && !shape) {
        const p = document.createElement("p");
        p.className = "rt-none";
        p.textContent = interactive.words.wait;
        panel.appendChild(p);
      }
      // A confirmation or a choice asked about a move that is gone: gone too.
      const box = interactive.confirm;
      if (!box.hidden && box.dataset.id && !next.has(box.dataset.id)) {
        box.hidden = true;
        box.replaceChildren();
        notice(interactive.words.vanished);
      }
    }

    // A tap that could mean several moves (a field one may plant in or harvest, a card
    // one may plant in either field) asks which: a small panel of those moves, over the
    // bottom of the screen, gone when it is answered, cancelled or no longer true.
    let moveChoice = null;

    function closeChooser() {
      if (moveChoice) moveChoice.element.remove();
      moveChoice = null;
    }

    function openChooser(ids, from) {
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
      for (const id of ids) {  // each a move's group: pressed as its button is
        panel.appendChild(button(interactive.groups.get(id).text,
                                 () => { closeChooser(); press(id); }, "move move-chosen"));
      }
      panel.appendChild(button(w.cancel || "×", () => {
        closeChooser();
        if (from && from.focus) from.focus();
      }, "move move-cancel"));
      document.body.appendChild(panel);
      moveChoice = { element: panel, ids };
      panel.querySelector("button").focus();
    }

    function keepChooser() {  // after new moves: the choice stands only while all still hold
      if (!moveChoice) return;
      if (!moveChoice.ids.every((id) => interactive.groups.has(id))) closeChooser();
    }

    function onTableClick(event) {
      if (!interactive || !interactive.legal) return;
      const card = event.target.closest("[data-card]");
      const field = event.target.closest(".is-you [data-field]");
      let ids = [];
      if (card) {
        const id = Number(card.dataset.card);
        ids = [...interactive.groups.values()].filter((g) => g.moves.some((m) => m.card === id)).map((g) => g.id);
      } else if (field) {
        const number = Number(field.dataset.field) - 1;
        ids = [...interactive.groups.values()].filter((g) => g.moves[0].field === number).map((g) => g.id);
      }
      if (ids.length === 1) press(ids[0]);
      else if (ids.length > 1) openChooser(ids, card || field);
    }

    function play(options) {
      interactive = Object.assign({ legal: [], groups: new Map(), slots: new Map(), facts: {},
                                    lostAt: -Infinity, pending: false }, options);
      const send = interactive.send;
      interactive.send = (command) => { interactive.pending = true; send(command); };
      box.classList.add("is-interactive");
      box.addEventListener("click", onTableClick);
      const panel = interactive.moves;
      interactive.notice = document.createElement("p");
      interactive.notice.className = "move-notice";
      interactive.notice.setAttribute("role", "status");
      interactive.notice.hidden = true;
      interactive.confirm = document.createElement("div");
      interactive.confirm.className = "move-confirm";
      interactive.confirm.hidden = true;
      panel.before(interactive.notice);
      panel.after(interactive.confirm);
      document.addEventListener("keydown", (event) => {
        if (event.key === "Escape" && moveChoice) { closeChooser(); return; }
        if (event.target.closest("input, select, textarea")) return;
        if (event.ctrlKey || event.metaKey || event.altKey) return;
        const b = interactive.moves.querySelector('button.move[data-key="' + event.key + '"]');
        if (b) { event.preventDefault(); press(b.dataset.id); }
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

  window.BohnanzaTable = { mount, seatName };
})();
