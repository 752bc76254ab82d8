/* A running bot test's page (templates/tournaments/bot_test.html): the part that moves
 * as its sets are played (status, Elo estimate, LLR and its chart) is fetched again
 * every POLL_MS and put in place if it changed, until it says the test is decided. */
(function () {
  "use strict";

  const POLL_MS = 2000;

  document.addEventListener("DOMContentLoaded", () => {
    const box = document.querySelector(".bot-test-live[data-url]");
    if (!box) return;
    function poll() {
      if (box.querySelector("[data-test-decided]")) return;
      if (document.hidden) { setTimeout(poll, POLL_MS); return; }
      fetch(box.dataset.url, {headers: {"Accept": "text/html"}, credentials: "same-origin"})
        .then((answer) => answer.ok ? answer.text() : null)
        .then((html) => {
          if (html !== null && html.trim() !== box.innerHTML.trim()) box.innerHTML = html;
        })
        .catch(() => {})
        .finally(() => setTimeout(poll, POLL_MS));
    }
    setTimeout(poll, POLL_MS);
  });
})();
