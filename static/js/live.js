/* The live table's connection (docs/protocol.md): a websocket to /ws/tables/<id>/.
 *
 * Each `state` frame carries the table answer, drawn by the table component
 * (static/js/table.js, the replay viewer's): the whole drawing on connecting and on
 * `sync`, else only its regions that changed since the previous frame; the seat's legal
 * moves, the move log's new lines, the game's version and head hash. A frame that does not follow the version
 * this page has (`since` is not it) means one was missed: the page asks for its view
 * again (`sync`), and so it does when nothing came back for QUIET_MS after it sent a
 * command (a frame lost on the way, or a server that restarted between). A dropped
 * connection is opened again, and the server rebuilds the view from the store. An `error` frame (a move refused) is
 * shown to this player only, in the page's words for its `code` (a code the page does
 * not know: the server's `reason`); a move the rules refused with the rules' reason. The waiting room (data-room) reloads when the game starts,
 * when its seats change (a `room` frame, or a `waiting` frame whose `seats` digest is not
 * the one the page was drawn with: a change made before the socket connected), and
 * shows its closed notice, connecting no more, on a `closed` frame (the table is gone).
 * A `left` frame (this player left the game, or stayed away too long: a bot plays the
 * seat) ends this page's moves; the state frames that follow are a spectator's.
 */
(function () {
  "use strict";

  const QUIET_MS = 2000;  // as the services tests' clients: silence this long → sync

  function start(root) {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + root.dataset.socket;
    const room = root.dataset.room === "1";
    const words = room ? {} : JSON.parse(document.getElementById("live-words").textContent);
    const box = root.querySelector(".live-table");
    const status = root.querySelector(".live-status");
    const error = root.querySelector(".live-error");
    const log = root.querySelector(".live-log");
    const end = root.querySelector(".live-end");
    let version = null;
    let socket = null;
    let retry = 500;
    let ref = 0;
    let quiet = null;  // the timer started by a command sent, stopped by any answer
    let closed = false;  // the table is gone: nothing to connect to again
    let submitting = false;  // a form of the page was sent: its answer is on the way
    if (room) root.addEventListener("submit", () => { submitting = true; });

    function again() {  // the room drawn again by the server, unless the page is leaving
      if (!submitting) location.reload();
    }

    function onClosed() {
      closed = true;
      const notice = root.querySelector(".room-closed");
      if (!notice || submitting) return;
      for (const child of root.children) child.hidden = child !== notice;
      notice.hidden = false;
    }
    const table = box ? window.BohnanzaTable.mount(box, { words }) : null;

    function send(frame) {
      if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
    }

    const seated = root.dataset.seat !== "";
    const alerts = table ? makeAlerts(root, words) : null;
    const clocks = table ? makeClocks(root, words, alerts) : null;

    if (table && seated) {
      table.play({
        moves: root.querySelector(".live-moves"),
        words,
        announce: (text) => alerts.announce(text),
        pass: () => send({ type: "pass" }),
        mayPass: () => clocks.mayPass(table.answer),
        send: (command) => {
          ref += 1;
          const c = Object.assign({}, command);
          send({ type: "command", ref, version, command: c });
          clearTimeout(quiet);
          quiet = setTimeout(() => { quiet = null; send({ type: "sync" }); }, QUIET_MS);
        },
      });
    }

    root.addEventListener("live:pass", () => send({ type: "pass" }));

    function onState(frame) {
      if (version !== null && frame.since !== version && frame.version > version && frame.since !== frame.version) {
        send({ type: "sync" });
        return;
      }
      // Older than ours, or the move to the version we hold (from a whole frame) again.
      if (version !== null && (frame.version < version || (frame.version === version && frame.since !== version))) return;
      if (!table.show(frame.answer)) {  // regions this page does not have: start again
        send({ type: "sync" });
        return;
      }
      version = frame.version;
      // A frame with a ref answers this page's own command (docs/protocol.md).
      table.setMoves(frame.legal, frame.facts, frame.ref !== undefined && frame.ref !== null);
      error.hidden = true;
      alerts.state(frame, seated);
      clocks.state(frame);
      // One line per event, numbered by the event's version, oldest first as in the
      // replay, the newest kept in view; an empty line (a card of the deal, told on its
      // seat's line) is not shown. A whole frame (connecting, sync: since = version)
      // carries the log so far, which replaces ours.
      const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
      if (frame.since === frame.version) log.replaceChildren();
      let number = frame.version - frame.log.length;
      for (const line of frame.log) {
        number += 1;
        if (!line) continue;
        const li = document.createElement("li");
        li.value = number;
        li.textContent = line;
        log.append(li);
      }
      log.dataset.version = String(frame.version);
      if (atEnd || frame.since === frame.version) log.scrollTop = log.scrollHeight;
      if (frame.finished) {
        if (end.hidden) showEnd(root, end, frame, table);
        end.hidden = false;
        // Not "waiting for the others", nor a game to leave: nothing is left.
        for (const gone of root.querySelectorAll(".live-moves, .live-leave")) gone.hidden = true;
      }
      root.dataset.version = String(version);
    }

    // A refusal in the reader's words: the page's own for its code (play.refusals.
    // words), the server's prose only for a code this page does not know.
    function refusal(frame) {
      const known = words.refusals && words.refusals[frame.code];
      if (!known) return frame.reason || "";
      return fill(known, { n: Math.max(1, Math.ceil(frame.retry_after || 0)) });
    }

    function connect() {
      socket = new WebSocket(url);
      socket.addEventListener("open", () => { retry = 500; if (status) status.textContent = words.connected || ""; });
      socket.addEventListener("message", (message) => {
        const frame = JSON.parse(message.data);
        if (frame.type === "state" || frame.type === "error") { clearTimeout(quiet); quiet = null; }
        if (frame.type === "state") {
          if (room) { again(); return; }
          onState(frame);
        } else if (frame.type === "room" && room) {
          again();
        } else if (frame.type === "waiting" && room) {
          if (frame.seats && root.dataset.seats && frame.seats !== root.dataset.seats) again();
        } else if (frame.type === "closed") {
          onClosed();
        } else if (frame.type === "left") {
          for (const gone of root.querySelectorAll(".live-moves, .live-leave")) gone.hidden = true;
          const note = root.querySelector(".live-left");
          if (note && note.hidden) {
            note.textContent = (words[frame.reason] || words.left) || "";
            note.hidden = false;
          }
        } else if (frame.type === "clock" && clocks) {
          clocks.clock(frame);
        } else if (frame.type === "error" && error) {
          const text = refusal(frame);
          error.replaceChildren(text);
          if (frame.code === "illegal" && frame.reason && text !== frame.reason) {
            // The rules' own reason beside it, as the engine words it (in English).
            const why = document.createElement("span");
            why.className = "live-error-detail";
            why.lang = "en";
            why.textContent = " (" + frame.reason + ")";
            error.appendChild(why);
          }
          error.hidden = false;
          if (alerts) alerts.announce(text);
        }
      });
      socket.addEventListener("close", (event) => {
        if (closed) return;
        // A handshake refused for good (docs/protocol.md, "The handshake": 4400-4405;
        // its error frame says why): opening it again changes nothing.
        if (event.code >= 4400 && event.code <= 4405) { closed = true; return; }
        if (status) status.textContent = words.reconnecting || "";
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 8000);
      });
    }
    connect();
  }

  function fill(template, values) {
    return template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));
  }

  // -- telling the reader: title, favicon, sound, aria-live, browser notifications -----

  const PREFS = "bohnanza-live-alerts";

  function prefs() {
    try { return JSON.parse(localStorage.getItem(PREFS)) || {}; } catch (e) { return {}; }
  }

  function savePrefs(value) {
    try { localStorage.setItem(PREFS, JSON.stringify(value)); } catch (e) { /* private mode */ }
  }

  let audio = null;

  function beep(high) {
    if (!prefs().sound) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = high ? 880 : 660;
      gain.gain.value = 0.08;
      osc.connect(gain).connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.15);
    } catch (e) { /* no audio here */ }
  }

  function makeAlerts(root, words) {
    const region = root.querySelector(".live-announce");
    const icon = document.querySelector('link[rel="icon"]');
    const plainIcon = icon ? icon.href : "";
    const plainTitle = document.title;
    const settings = root.querySelector(".live-alerts");
    let said = "";
    let was = { turn: false, offers: "" };
    if (settings) {
      const saved = prefs();
      for (const box of settings.querySelectorAll("input[name]")) {
        box.checked = !!saved[box.name];
        box.addEventListener("change", () => {
          const now = prefs();
          now[box.name] = box.checked;
          savePrefs(now);
          if (box.name === "notify" && box.checked && "Notification" in window
              && Notification.permission === "default") {
            Notification.requestPermission().then((answer) => {
              if (answer !== "granted") { box.checked = false; now.notify = false; savePrefs(now); }
            });
          }
        });
      }
    }

    function announce(text) {
      if (!region || !text) return;
      // The same words twice are announced again only if the region changes between.
      region.textContent = text === said ? text + "\u00a0" : text;
      said = text;
    }

    function notify(text) {
      if (!prefs().notify || !document.hidden || !("Notification" in window)) return;
      if (Notification.permission !== "granted") return;
      try { new Notification(plainTitle, { body: text, tag: "bohnanza-live" }); } catch (e) { /* ignored */ }
    }

    function offersFor(table) {
      const seat = table.perspective;
      return (table.offers || []).filter((o) => o.proposer !== seat
        && (o.counterparty === seat || (o.counterparty === null && table.active !== seat))
        && !(o.declined_by || []).includes(seat));
    }

    function state(frame, seated) {
      const table = frame.answer && frame.answer.table;
      if (!table || !seated || frame.seat === null || frame.finished) {
        document.title = plainTitle;
        if (icon) icon.href = plainIcon;
        return;
      }
      const moves = (frame.legal || []).filter((m) => m.kind !== "offer_shape");
      const turn = moves.length > 0 && (table.awaiting || []).includes(frame.seat);
      const offers = offersFor(table);
      const offerKey = offers.map((o) => o.offer).join(",");
      const mark = offers.length ? "offer" : (turn ? "turn" : "");
      document.title = mark === "offer" ? words.title_offer + " · " + plainTitle
        : mark === "turn" ? words.title_turn + " · " + plainTitle : plainTitle;
      if (icon) icon.href = mark ? root.dataset["icon" + (mark === "offer" ? "Offer" : "Turn")] : plainIcon;
      const fresh = offers.filter((o) => !was.offers.split(",").includes(String(o.offer)));
      if (fresh.length) {
        const o = fresh[fresh.length - 1];
        const name = window.BohnanzaTable.seatName(table, frame.facts, o.proposer, words);
        const text = fill(words.offer_for_you, { offer: o.offer, name });
        announce(text);
        notify(text);
        beep(true);
      } else if (turn && !was.turn) {
        announce(words.your_turn);
        notify(words.your_turn);
        beep(false);
      }
      was = { turn, offers: offerKey };
    }

    return { announce, state };
  }

  // -- the clocks: counted down from the server's deadlines ------------------------------

  const WARN_SECONDS = 10;

  function clockText(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function makeClocks(root, words, alerts) {
    const bar = root.querySelector(".live-clocks");
    const passButton = root.querySelector(".live-pass");
    let frame = null;  // the last clock frame, with the offset of the server's time
    let answer = null;
    let facts = null;  // the state frame's: which seats are bot accounts
    let version = null;
    let warned = "";
    if (passButton) {
      passButton.addEventListener("click", () => {
        passButton.disabled = true;
        passedTurn = answer && answer.table ? answer.table.turn : null;
        root.dispatchEvent(new CustomEvent("live:pass"));
      });
    }

    function serverNow() {
      return frame ? Date.now() + frame.offset : Date.now();
    }

    // The trading window of the phase shown (a bot's: docs/protocol.md, `trade`): its
    // seconds left (0 once it closed), or null when the phase shown has none. Shown for
    // the whole phase, so that nothing on the page moves while it lasts; a clock frame
    // without it does not take it away in the same phase.
    let trade = null;
    let passedTurn = null;  // the turn this page passed in (before the clock frame says so)

    function tradeLeft() {
      if (!trade || !answer || !answer.table) return null;
      if (answer.table.phase !== "trading" || answer.table.turn !== trade.turn) return null;
      return Math.max(0, (trade.deadline - serverNow()) / 1000);
    }

    function passer(current) {
      const seat = root.dataset.seat !== "" && current ? current.table.perspective : null;
      if (seat === null || seat === undefined || tradeLeft() === null) return null;
      return current.table.active !== seat ? seat : null;
    }

    function mayPass(current) {
      const seat = passer(current);
      return seat !== null && tradeLeft() > 0 && !trade.passed.includes(seat)
        && passedTurn !== trade.turn;
    }

    function render() {
      if (!bar || !frame || !answer) return;
      const table = answer.table;
      const parts = [];
      const now = serverNow();
      const running = frame.deadline !== null && !answer.finished
        && (frame.version === version || (table.awaiting || []).includes(frame.seat));
      (table.seats || []).forEach((seat, n) => {
        if (!frame.banks.length) return;
        const item = document.createElement("li");
        item.className = "live-clock";
        item.dataset.seat = String(n);
        const name = document.createElement("span");
        name.className = "live-clock-name";
        name.textContent = window.BohnanzaTable.seatName(table, facts, n, words);
        item.appendChild(name);
        if (seat && seat.bot) {
          // Handed to its bot: no clock runs down for it, so none is shown (its bank,
          // spent while its person was away, would read a dead 0:00).
          const b = document.createElement("span");
          b.className = "live-clock-bot";
          b.textContent = " " + fill(words.clock_bot, { bot: seat.bot });
          item.classList.add("is-bot");
          item.appendChild(b);
          parts.push(item);
          return;
        }
        let move = null;
        let bank = frame.banks[n];
        if (running && frame.seat === n) {
          const left = (frame.deadline - now) / 1000;
          move = Math.max(0, left - frame.bank);
          bank = Math.max(0, Math.min(frame.bank, left));
          item.classList.add("is-running");
          if (left <= WARN_SECONDS) item.classList.add("is-warning");
          const key = frame.version + ":" + n;
          if (left <= WARN_SECONDS && warned !== key && String(n) === String(table.perspective)) {
            warned = key;
            beep(true);
            alerts.announce(fill(words.clock_warning, { n: Math.ceil(left) }));
          }
        }
        if (move !== null) {
          const m = document.createElement("span");
          m.className = "live-clock-move";
          m.textContent = " " + clockText(move);
          m.title = words.clock_move;
          item.appendChild(m);
        }
        const b = document.createElement("span");
        b.className = "live-clock-bank";
        b.textContent = " " + fill(words.clock_bank, { time: clockText(bank) });
        item.appendChild(b);
        parts.push(item);
      });
      const left = tradeLeft();
      if (left !== null) {
        const item = document.createElement("li");
        item.className = "live-clock live-trade-window" + (left <= 5 ? " is-warning" : "");
        const name = window.BohnanzaTable.seatName(table, facts, table.active, words);
        item.textContent = left > 0 ? fill(words.trade_window, { time: clockText(left), name })
          : fill(words.trade_closed, { name });
        parts.push(item);
      } else if (bar.dataset.window) {
        // The window's place kept while there is none (a table of people and bots):
        // on a phone the bar's height never changes (static/css/live.css).
        const item = document.createElement("li");
        item.className = "live-clock live-trade-window is-empty";
        item.setAttribute("aria-hidden", "true");
        parts.push(item);
      }
      bar.replaceChildren(...parts);
      bar.hidden = !parts.length;
      if (passButton) {
        // Shown for the whole window (pressed, or once it closed: disabled, not gone).
        passButton.hidden = passer(answer) === null;
        passButton.disabled = !mayPass(answer);
      }
    }

    function clock(next) {
      frame = Object.assign({}, next, { offset: next.now - Date.now() });
      if (next.trade) trade = next.trade;
      else if (trade && (!answer || answer.table.turn !== trade.turn)) trade = null;
      render();
    }

    function state(stateFrame) {
      answer = stateFrame.answer;
      facts = stateFrame.facts;
      version = stateFrame.version;
      render();
    }

    setInterval(render, 250);
    return { clock, state, mayPass };
  }

  // -- the end: the replay's summary, and the fields as they were harvested --------------

  function showEnd(root, end, frame, table) {
    const pattern = root.dataset.stepUrl;
    if (!pattern) return;
    // Its result is on screen now: no spoiler in the game lists any more (site.js).
    const id = (pattern.match(/games\/([0-9a-f-]{36})\//) || [])[1];
    if (id && window.bohnanzaWatched) window.bohnanzaWatched(id);
    const query = root.dataset.gameQuery || "";
    const at = (step) => pattern.replace(/0\.json$/, step + ".json") + query;
    fetch(at(frame.version), { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .then((last) => {
        if (!last || !last.html) return;
        const template = document.createElement("template");
        template.innerHTML = last.html;
        const summary = template.content.querySelector(".rt-summary");
        const place = end.querySelector(".live-summary");
        if (summary && place) place.replaceChildren(summary);
      }).catch(() => {});
    const harvested = frame.facts && frame.facts.harvested_at;
    if (harvested) {
      fetch(at(harvested), { credentials: "same-origin" })
        .then((r) => (r.ok ? r.json() : null))
        .then((before) => {
          if (!before || !before.html) return;
          const place = end.querySelector(".live-final-fields");
          if (!place) return;
          const template = document.createElement("template");
          template.innerHTML = before.html;
          // The drawing's root (its layout for the seat count) with its seats only.
          const rt = template.content.querySelector(".rt");
          const seats = rt && rt.querySelector(".rt-seats");
          if (!seats) return;
          rt.replaceChildren(seats);
          const heading = place.querySelector("h2");
          place.replaceChildren(...(heading ? [heading] : []), rt);
          place.hidden = false;
        }).catch(() => {});
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const root of document.querySelectorAll("[data-socket]")) {
      if (root.classList.contains("lobby")) continue;
      start(root);
    }
  });
})();
