/* The replay viewer in the browser (templates/replays/viewer.html and embed.html).
 *
 * The server draws every step (steps/<n>.json carries the table as HTML, built from the
 * perspective's view), so this file never decides what a perspective may see: it
 * fetches steps (and caches them), swaps them in, highlights the log, plays at a chosen
 * speed, answers the keyboard, and keeps the address bar a share link of what is shown.
 * Without JavaScript the page still works through its plain links and GET forms.
 */
(function () {
  "use strict";

  const configNode = document.getElementById("replay-config");
  if (!configNode) return;
  const cfg = JSON.parse(configNode.textContent);
  document.documentElement.classList.add("js");

  const BASE_DELAY_MS = 900; // one event a little under a second at 1x
  const PREFETCH = 4; // steps fetched ahead while playing
  const PLAY_ICON = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2.5v11l9.5-5.5z"/></svg>';
  const PAUSE_ICON = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 3h3v10H4zM9 3h3v10H9z"/></svg>';

  const $ = (id) => document.getElementById(id);
  const tableBox = $("replay-table");
  const eventLine = $("replay-event");
  const logList = $("replay-log-lines");
  const stepInput = $("rc-step");
  const stepsLabel = $("rc-steps");
  const scrub = $("rc-scrub");
  const turnSelect = $("rc-turn");
  const perspectiveSelect = $("rc-perspective");
  const speedSelect = $("rc-speed");
  const playButton = $("rc-play");
  const errorBox = $("rc-error");
  const shareInput = $("share-link");
  const embedCode = $("embed-code");
  const embedOpen = $("embed-open");
  const nav = {
    first: $("rc-first"),
    back: $("rc-back"),
    forward: $("rc-forward"),
    last: $("rc-last"),
  };

  let shown = cfg.step; // the step on screen
  let target = cfg.step; // the step last asked for
  let steps = cfg.steps;
  let perspective = cfg.perspective;
  let speed = 1;
  let playing = false;
  let timer = null;
  let ticket = 0; // answers to older requests are dropped
  const cache = new Map();

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

  // -- fetching -----------------------------------------------------------------

  async function getJson(url) {
    const response = await fetch(url, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      throw new Error("The server answered " + response.status + " without a readable body.");
    }
    if (!response.ok) throw new Error(body.error || "The server answered " + response.status + ".");
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

  function prefetch(from, count) {
    for (let s = from; s <= Math.min(steps, from + count - 1); s++) {
      fetchStep(s).catch(() => {});
    }
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
      const data = await fetchStep(target);
      if (mine !== ticket) return;
      show(data);
      clearError();
      if (!playing) prefetch(shown + 1, 1);
    } catch (error) {
      if (mine !== ticket) return;
      stop();
      showError(error.message);
    }
  }

  function show(data) {
    shown = data.step;
    tableBox.innerHTML = data.html;
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
    const hrefs = { first: 1, back: Math.max(1, shown - 1), forward: Math.min(steps, shown + 1), last: steps };
    for (const [name, link] of Object.entries(nav)) {
      link.href = "?" + params(hrefs[name], cfg.token);
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
    for (let i = 0; i < lines.length; i++) {
      const seq = i + 1;
      lines[i].classList.toggle("is-current", seq === shown);
      lines[i].classList.toggle("is-future", seq > shown);
      if (seq === shown) lines[i].setAttribute("aria-current", "step");
      else lines[i].removeAttribute("aria-current");
    }
    const current = lines[shown - 1];
    const box = logList;
    if (current) {
      const top = current.offsetTop;
      const bottom = top + current.offsetHeight;
      if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) {
        box.scrollTop = top - box.clientHeight / 3;
      }
    }
  }

  // -- the log and the turns, rebuilt for another perspective or a longer game ------

  function lineNode(line) {
    const item = document.createElement("li");
    item.dataset.seq = String(line.seq);
    item.dataset.turn = String(line.turn);
    item.className = "log-" + line.kind;
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
    const data = await getJson(logUrl());
    steps = data.steps;
    logList.replaceChildren(...data.lines.map(lineNode));
    const setup = turnSelect.options[0].cloneNode(true);
    const options = data.turns.map((t) => {
      const option = document.createElement("option");
      option.value = String(t.step);
      option.textContent = "turn " + t.turn;
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

  // -- playing ------------------------------------------------------------------

  function setPlaying(on) {
    playing = on;
    playButton.innerHTML = on ? PAUSE_ICON : PLAY_ICON;
    playButton.setAttribute("aria-label", on ? "Pause" : "Play");
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
    prefetch(shown + 2, PREFETCH);
    await go(shown + 1);
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

  const moves = {
    first: () => 1,
    back: () => target - 1,
    forward: () => target + 1,
    last: () => steps,
  };
  for (const [name, link] of Object.entries(nav)) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      stop();
      go(moves[name]());
    });
  }
  playButton.addEventListener("click", toggle);
  speedSelect.addEventListener("change", () => {
    speed = Number(speedSelect.value) || 1;
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

  function typing(element) {
    if (!element || !element.tagName) return false;
    const tag = element.tagName;
    return tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || element.isContentEditable;
  }

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    switch (event.key) {
      case "ArrowLeft":
        stop();
        go(target - 1);
        break;
      case "ArrowRight":
        stop();
        go(target + 1);
        break;
      case "Home":
        stop();
        go(1);
        break;
      case "End":
        stop();
        go(steps);
        break;
      case " ":
      case "Spacebar":
        toggle();
        break;
      default:
        return;
    }
    event.preventDefault();
  });
  // A focused button would also take the space as a click when the key comes up.
  document.addEventListener("keyup", (event) => {
    if (event.key === " " && !typing(event.target)) event.preventDefault();
  });

  function copy(text, button) {
    const done = () => {
      const label = button.textContent;
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, () => showError("Copying failed: select the text and copy it."));
    } else {
      showError("Copying is not available here: select the text and copy it.");
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-copy], button[data-copy-text]");
    if (!button) return;
    const source = button.dataset.copy ? $(button.dataset.copy) : null;
    const text = source ? source.value : button.dataset.copyText;
    if (source) source.select();
    copy(text, button);
  });

  updateControls();
  markLog();
  prefetch(shown + 1, 1);
})();
