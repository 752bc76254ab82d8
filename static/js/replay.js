/* The replay viewer in the browser (templates/replays/viewer.html and embed.html).
 *
 * The server draws every step (steps/<n>.json is a table answer, built from the
 * perspective's view), and static/js/table.js shows it, so this file never decides
 * what a perspective may see. It moves through the game: by decision (the default: a
 * player's decision and the automatic events that follow it go by together) or by
 * single event, by turn and by phase, playing at a chosen speed; it keeps the log
 * free of spoilers (only what has happened so far, unless the reader asks for all),
 * marks the current step's lines, answers the keyboard, and keeps the address bar a
 * share link of what is shown. The page holds the log only as far as the end of the
 * current turn (cfg.logLoaded lines); the rest is fetched (log.json?from=) when the
 * reader goes further, asks for the whole log, or plays on towards it. Without JavaScript the page still works through its
 * plain links and GET forms.
 */
(function () {
  "use strict";

  const configNode = document.getElementById("replay-config");
  if (!configNode || !window.BohnanzaTable) return;
  const cfg = JSON.parse(configNode.textContent);
  const words = cfg.words || {};
  document.documentElement.classList.add("js");

  const BASE_DELAY_MS = 1100; // one step a little over a second at 1x
  const PREFETCH = 4; // steps fetched ahead while playing
  const PLAY_ICON = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2.5v11l9.5-5.5z"/></svg>';
  const PAUSE_ICON = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 3h3v10H4zM9 3h3v10H9z"/></svg>';

  const $ = (id) => document.getElementById(id);
  const tableBox = $("replay-table");
  const table = window.BohnanzaTable.mount(tableBox, { words });
  const eventLine = $("replay-event");
  const logBox = $("replay-log");
  const logList = $("replay-log-lines");
  const stepInput = $("rc-step");
  const stepsLabel = $("rc-steps");
  const scrub = $("rc-scrub");
  const turnSelect = $("rc-turn");
  const perspectiveSelect = $("rc-perspective");
  const speedSelect = $("rc-speed");
  const modeSelect = $("rc-mode");
  const spoilers = $("rc-spoilers");
  const playButton = $("rc-play");
  const errorBox = $("rc-error");
  const shareInput = $("share-link");
  const embedCode = $("embed-code");
  const embedOpen = $("embed-open");
  const nav = { first: $("rc-first"), back: $("rc-back"), forward: $("rc-forward"), last: $("rc-last") };

  let shown = cfg.step; // the step on screen
  let target = cfg.step; // the step last asked for
  let steps = cfg.steps;
  let stops = cfg.stops; // the last step of every decision's group
  let turns = cfg.turns; // where each turn begins
  let phases = cfg.phases; // where each phase begins
  let groups = cfg.groups; // for each step, where its group begins
  let perspective = cfg.perspective;
  let loaded = cfg.logLoaded || logList.children.length; // log lines in the page: 1..loaded
  let loading = null; // the fetch of the rest of the log, while it runs
  let logTicket = 0; // a rest of the log fetched for an older perspective is dropped
  let mode = "decision";
  let speed = 1;
  let playing = false;
  let timer = null;
  let ticket = 0; // answers to older requests are dropped
  const cache = new Map();

  function format(text, values) {
    return text.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));
  }

  // -- addresses ----------------------------------------------------------------

  function params(step, token, share) {
    const p = new URLSearchParams();
    if (step !== null) p.set("step", String(step));
    // A running game's seat view is for its player only: share the spectator's view.
    const seat = perspective.startsWith("seat-");
    p.set("perspective", share && seat && !cfg.finished ? "spectator" : perspective);
    if (token) p.set("token", token);
    return p.toString();
  }

  function stepUrl(step) {
    return cfg.stepUrl.replace(/0\.json$/, step + ".json") + "?" + params(null, cfg.token);
  }

  function logUrl() {
    return cfg.logUrl + "?" + params(null, cfg.token);
  }

  function shareUrl(page, step) {
    return location.origin + page + "?" + params(step, cfg.shareToken || cfg.token, true);
  }

  // -- where to go ----------------------------------------------------------------

  function after(list, step) {
    for (const s of list) if (s > step) return s;
    return null;
  }

  function before(list, step) {
    let found = null;
    for (const s of list) {
      if (s < step) found = s;
      else break;
    }
    return found;
  }

  const moves = {
    first: () => 1,
    last: () => steps,
    forward: () => (mode === "event" ? target + 1 : after(stops, target) ?? steps),
    back: () => (mode === "event" ? target - 1 : before(stops, target) ?? 1),
    eventForward: () => target + 1,
    eventBack: () => target - 1,
    nextTurn: () => after(turns, target) ?? steps,
    prevTurn: () => before(turns, target) ?? 1,
    nextPhase: () => after(phases, target) ?? steps,
    prevPhase: () => before(phases, target) ?? 1,
  };

  // -- fetching -----------------------------------------------------------------

  async function getJson(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      throw new Error(format(words.unreadable || "The server answered %(status)s.", { status: response.status }));
    }
    if (!response.ok) throw new Error(body.error || format(words.status || "%(status)s", { status: response.status }));
    return body;
  }

  function fetchStep(step) {
    const key = perspective + ":" + step;
    if (!cache.has(key)) {
      const promise = getJson(stepUrl(step));
      promise.catch(() => cache.delete(key));
      cache.set(key, promise);
    }
    return cache.get(key);
  }

  function prefetch(from) {
    let step = from;
    for (let i = 0; i < PREFETCH && step !== null && step <= steps; i++) {
      fetchStep(step).catch(() => {});
      ensureLog(step).catch(() => {});
      step = mode === "event" ? step + 1 : after(stops, step);
    }
  }

  // The log as far as `step`: the page holds it to the end of its turn; the rest comes
  // in one fetch, the first time it is needed.
  function ensureLog(step) {
    if (step <= loaded) return Promise.resolve();
    if (!loading) {
      const mine = logTicket;
      loading = getJson(logUrl() + "&from=" + (loaded + 1)).then((data) => {
        if (mine !== logTicket) return;
        const fresh = data.lines.filter((line) => line.seq > loaded);
        logList.append(...fresh.map(lineNode));
        loaded = logList.children.length;
        for (const line of fresh) groups[line.seq - 1] = line.group;
        markLog(); // the new lines are the future: hidden unless the reader asked for all
      }).finally(() => {
        loading = null;
      });
    }
    return loading;
  }

  // -- showing ------------------------------------------------------------------

  function clamp(step) {
    return Math.max(1, Math.min(steps, Math.round(step)));
  }

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = false;
  }

  function clearError() {
    errorBox.hidden = true;
    errorBox.textContent = "";
  }

  async function go(step) {
    if (!Number.isFinite(step)) return;
    target = clamp(step);
    const mine = ++ticket;
    try {
      const [data] = await Promise.all([fetchStep(target), ensureLog(target)]);
      if (mine !== ticket) return;
      show(data);
      clearError();
      if (!playing) prefetch(moves.forward());
    } catch (error) {
      if (mine !== ticket) return;
      stop();
      showError(error.message);
    }
  }

  // A finished game watched to its end is no spoiler any more (site.js keeps it).
  function markWatched() {
    const id = (cfg.page.match(/games\/([0-9a-f-]{36})\//) || [])[1];
    if (!id || !cfg.finished || shown < steps || !window.bohnanzaWatched) return;
    window.bohnanzaWatched(id);
  }

  function show(data) {
    shown = data.step;
    table.show(data);
    markWatched();
    if (data.steps !== steps) {
      steps = data.steps;
      refreshLog().catch((error) => showError(error.message));
    }
    updateControls();
    markLog();
    history.replaceState(null, "", cfg.page + "?" + params(shown, cfg.token));
  }

  function updateControls() {
    stepInput.value = String(shown);
    stepInput.max = String(steps);
    stepsLabel.textContent = String(steps);
    scrub.max = String(steps);
    scrub.value = String(shown);
    const hrefs = { first: 1, back: moves.back(), forward: moves.forward(), last: steps };
    for (const [name, link] of Object.entries(nav)) {
      link.href = "?" + params(clamp(hrefs[name]), cfg.token);
      const stuck = (name === "first" || name === "back") ? shown <= 1 : shown >= steps;
      link.classList.toggle("is-disabled", stuck);
      link.setAttribute("aria-disabled", stuck ? "true" : "false");
    }
    const line = logList.children[shown - 1];
    const turn = line ? Number(line.dataset.turn) : 0;
    let best = turnSelect.options[0];
    for (const option of turnSelect.options) {
      if (Number(option.value) <= shown) best = option;
    }
    if (turn === 0) best = turnSelect.options[0];
    turnSelect.value = best.value;
    if (line) {
      const seq = line.querySelector(".log-seq").textContent;
      const text = line.querySelector(".log-text").textContent;
      eventLine.replaceChildren();
      const number = document.createElement("span");
      number.className = "log-seq";
      number.textContent = "#" + seq;
      eventLine.append(number, " " + text);
    }
    if (shareInput) shareInput.value = shareUrl(cfg.sharePage, shown);
    if (embedCode) {
      embedCode.value = '<iframe src="' + shareUrl(cfg.embedPage, shown) +
        '" width="960" height="640" style="border:0" title="Bohnanza replay" loading="lazy"></iframe>';
    }
    if (embedOpen) embedOpen.href = shareUrl(cfg.sharePage, shown);
    const dispute = $("dispute-link");
    if (dispute) dispute.href = dispute.dataset.base + "?seq=" + shown;
  }

  function markLog() {
    const lines = logList.children;
    const group = groups[shown - 1] || shown;
    for (let i = 0; i < lines.length; i++) {
      const seq = i + 1;
      const item = lines[i];
      item.classList.toggle("is-current", seq === shown);
      item.classList.toggle("is-future", seq > shown);
      const inStep = mode === "event" ? seq === shown : seq >= group && seq <= shown;
      item.classList.toggle("in-step", inStep);
      if (seq === shown) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    }
    const current = lines[shown - 1];
    if (current && current.offsetParent !== null) {
      const top = current.offsetTop;
      const bottom = top + current.offsetHeight;
      if (top < logList.scrollTop || bottom > logList.scrollTop + logList.clientHeight) {
        logList.scrollTop = Math.max(0, bottom - logList.clientHeight * 0.8);
      }
    }
  }

  // -- the log and the turns, rebuilt for another perspective or a longer game ------

  function lineNode(line) {
    const item = document.createElement("li");
    item.dataset.seq = String(line.seq);
    item.dataset.turn = String(line.turn);
    item.dataset.group = String(line.group);
    item.className = "log-" + line.kind + (line.folded ? " is-folded" : "")
      + (line.seq > shown ? " is-future" : "");
    const link = document.createElement("a");
    link.href = "?" + params(line.seq, cfg.token);
    const seq = document.createElement("span");
    seq.className = "log-seq";
    seq.textContent = String(line.seq);
    const text = document.createElement("span");
    text.className = "log-text";
    text.textContent = line.text;
    link.append(seq, text);
    item.append(link);
    return item;
  }

  async function refreshLog() {
    const mine = ++logTicket;
    const data = await getJson(logUrl());
    if (mine !== logTicket) return;
    loaded = data.lines.length;
    steps = data.steps;
    stops = data.stops;
    phases = data.phases;
    turns = data.turns.map((t) => t.step);
    groups = data.lines.map((line) => line.group);
    logList.replaceChildren(...data.lines.map(lineNode));
    const setup = turnSelect.options[0].cloneNode(true);
    const options = data.turns.map((t) => {
      const option = document.createElement("option");
      option.value = String(t.step);
      option.textContent = format(words.turn || "turn %(turn)s", { turn: t.turn });
      return option;
    });
    turnSelect.replaceChildren(setup, ...options);
    updateControls();
    markLog();
  }

  async function switchPerspective(name) {
    const before = perspective;
    stop();
    perspective = name;
    try {
      await refreshLog();
    } catch (error) {
      perspective = before;
      perspectiveSelect.value = before;
      showError(error.message);
      return;
    }
    cache.clear();
    await go(target);
  }

  function setMode(next) {
    mode = next === "event" ? "event" : "decision";
    modeSelect.value = mode;
    table.setMode(mode);
    updateControls();
    markLog();
  }

  // -- playing ------------------------------------------------------------------

  function setPlaying(on) {
    playing = on;
    playButton.innerHTML = on ? PAUSE_ICON : PLAY_ICON;
    playButton.setAttribute("aria-label", on ? (words.pause || "Pause") : (words.play || "Play"));
    playButton.setAttribute("aria-pressed", on ? "true" : "false");
    playButton.classList.toggle("is-playing", on);
  }

  function stop() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    setPlaying(false);
  }

  async function tick() {
    timer = null;
    if (!playing) return;
    if (shown >= steps) {
      stop();
      return;
    }
    const next = moves.forward();
    prefetch(next);
    await go(next);
    if (playing && shown < steps) timer = setTimeout(tick, BASE_DELAY_MS / speed);
    else if (shown >= steps) stop();
  }

  function play() {
    if (playing) return;
    setPlaying(true);
    if (shown >= steps) {
      go(1).then(() => {
        if (playing) timer = setTimeout(tick, BASE_DELAY_MS / speed);
      });
    } else {
      tick();
    }
  }

  function toggle() {
    if (playing) stop();
    else play();
  }

  // -- wiring -------------------------------------------------------------------

  function jump(name) {
    stop();
    go(moves[name]());
  }

  for (const [name, link] of Object.entries(nav)) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      jump(name);
    });
  }
  const buttons = { "rc-prev-turn": "prevTurn", "rc-next-turn": "nextTurn", "rc-prev-phase": "prevPhase", "rc-next-phase": "nextPhase" };
  for (const [id, name] of Object.entries(buttons)) {
    const button = $(id);
    if (button) button.addEventListener("click", () => jump(name));
  }
  playButton.addEventListener("click", toggle);
  speedSelect.addEventListener("change", () => {
    speed = Number(speedSelect.value) || 1;
  });
  modeSelect.addEventListener("change", () => setMode(modeSelect.value));
  spoilers.addEventListener("change", () => {
    logBox.classList.toggle("show-all", spoilers.checked);
    markLog();
    if (spoilers.checked) {
      ensureLog(steps).then(markLog, (error) => showError(error.message));
    }
  });
  scrub.addEventListener("input", () => {
    stop();
    go(Number(scrub.value));
  });
  $("rc-step-form").addEventListener("submit", (event) => {
    event.preventDefault();
    stop();
    go(Number(stepInput.value));
  });
  stepInput.addEventListener("change", () => {
    stop();
    go(Number(stepInput.value));
  });
  $("rc-turn-form").addEventListener("submit", (event) => event.preventDefault());
  turnSelect.addEventListener("change", () => {
    stop();
    go(Number(turnSelect.value));
  });
  $("rc-perspective-form").addEventListener("submit", (event) => event.preventDefault());
  perspectiveSelect.addEventListener("change", () => switchPerspective(perspectiveSelect.value));
  logList.addEventListener("click", (event) => {
    const item = event.target.closest("li[data-seq]");
    if (!item) return;
    event.preventDefault();
    stop();
    go(Number(item.dataset.seq));
  });

  // Keys that a focused control uses itself; a checkbox only takes the space.
  function typing(element, key) {
    if (!element || !element.tagName) return false;
    const tag = element.tagName;
    if (tag === "INPUT" && element.type === "checkbox") return key === " ";
    return tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || element.isContentEditable;
  }

  const keys = {
    ArrowLeft: (e) => (e.shiftKey ? "eventBack" : "back"),
    ArrowRight: (e) => (e.shiftKey ? "eventForward" : "forward"),
    PageUp: () => "prevTurn",
    PageDown: () => "nextTurn",
    "[": () => "prevPhase",
    "]": () => "nextPhase",
    Home: () => "first",
    End: () => "last",
  };

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target, event.key)) return;
    if (keys[event.key]) {
      jump(keys[event.key](event));
    } else if (event.key === " " || event.key === "Spacebar") {
      toggle();
    } else if (event.key === "e" || event.key === "E") {
      setMode(mode === "event" ? "decision" : "event");
    } else {
      return;
    }
    event.preventDefault();
  });
  // A focused button would also take the space as a click when the key comes up.
  document.addEventListener("keyup", (event) => {
    if (event.key === " " && !typing(event.target, event.key)) event.preventDefault();
  });

  function copy(text, button) {
    const done = () => {
      const label = button.textContent;
      button.textContent = words.copied || "Copied";
      setTimeout(() => { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, () => showError(words.copyFailed));
    } else {
      showError(words.noCopy);
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-copy]");
    if (!button) return;
    const source = $(button.dataset.copy);
    source.select();
    copy(source.value, button);
  });

  setMode("decision");
  markWatched(); // opened at the end (a finished game's replay from its live table)
  prefetch(moves.forward());
})();
