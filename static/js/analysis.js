/* The analysis section of the replay viewer (templates/analyses/_section.html).
 *
 * Asks the analyses app how far the game's analysis is (status.json: a status, the
 * decisions judged of how many and a sentence, nothing of the judgments), offers the
 * "Analyse this game" button to a signed-in reader, polls while the job runs and shows
 * its progress, then fetches the finished analysis (analysis.json: the panel drawn by
 * the server and a note for each judged line of the log) and shows it. The notes go
 * on the log's lines, those the page holds and those static/js/replay.js adds later.
 * The panel tells the result: it stays folded until the reader opens it, or is at the
 * game's last step (where the end-of-game summary shows it anyway).
 */
(function () {
  "use strict";

  const section = document.getElementById("analysis");
  if (!section) return;
  const POLL_MS = 1500;
  const $ = (id) => document.getElementById(id);
  const state = $("analysis-state");
  const button = $("analysis-ask");
  const bar = $("analysis-progress");
  const details = $("analysis-details");
  const body = $("analysis-body");
  const log = $("replay-log-lines");
  let notes = null;
  let timer = null;

  function csrfToken() {
    const found = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="));
    return found ? decodeURIComponent(found.slice("csrftoken=".length)) : "";
  }

  async function getJson(url, options) {
    const response = await fetch(url, Object.assign({
      headers: { Accept: "application/json" }, credentials: "same-origin",
    }, options || {}));
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      throw new Error(String(response.status));
    }
    if (!response.ok) throw new Error(data.error || String(response.status));
    return data;
  }

  function note(item) {
    if (!notes || item.querySelector(".log-judged")) return;
    const found = notes[item.dataset.seq];
    if (!found) return;
    item.classList.add("is-judged");
    if (!found.flag) return;
    item.classList.add("flag-" + found.flag);
    const span = document.createElement("span");
    span.className = "log-judged";
    span.textContent = found.text;
    item.append(span);
  }

  function noteAll() {
    if (log) for (const item of log.children) note(item);
  }

  function showStatus(data) {
    state.textContent = data.text;
    button.hidden = !(data.signedIn && !data.refusal && (data.status === "none" || data.status === "failed"));
    const busy = data.status === "queued" || data.status === "running";
    bar.hidden = !busy;
    if (busy) {
      bar.max = Math.max(1, data.total);
      bar.value = data.made;
      bar.setAttribute("aria-label", data.text);
    }
    clearTimeout(timer);
    if (busy) timer = setTimeout(poll, POLL_MS);
    if (data.status === "done" && !notes) showAnalysis();
  }

  async function poll() {
    try {
      showStatus(await getJson(section.dataset.status));
    } catch (error) {
      state.textContent = error.message;
    }
  }

  async function showAnalysis() {
    try {
      const data = await getJson(section.dataset.result);
      notes = data.notes;
      body.innerHTML = data.html; // drawn by the server from the analysis, escaped there
      details.hidden = false;
      if (document.querySelector(".rt-summary")) details.open = true;
      noteAll();
    } catch (error) {
      state.textContent = error.message;
    }
  }

  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      showStatus(await getJson(section.dataset.ask, {
        method: "POST", headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
      }));
    } catch (error) {
      state.textContent = error.message;
    } finally {
      button.disabled = false;
    }
  });

  if (log) new MutationObserver(noteAll).observe(log, { childList: true });
  poll();
})();
