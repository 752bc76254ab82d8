/* A running competition's page (templates/tournaments/detail.html): its progress bar
 * follows the games stored, game by game, with their rate and the time left, from the
 * progress answer every second, and the page is
 * loaded again once the competition has finished (its standings and podium). */
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", () => {
    const box = document.querySelector(".progress");
    if (!box || box.dataset.finished === "1") return;
    const bar = document.getElementById("competition-progress");
    const count = document.getElementById("competition-count");
    const pace = document.getElementById("competition-pace");
    const status = document.getElementById("competition-status");
    function poll() {
      fetch(box.dataset.progressUrl, {headers: {"Accept": "application/json"}})
        .then((answer) => answer.json())
        .then((p) => {
          bar.max = p.total; bar.value = p.done;
          count.textContent = p.text;
          if (pace) pace.textContent = p.pace;
          status.textContent = p.status;
          status.classList.toggle("stalled", p.stalled);
          if (p.finished) { location.reload(); } else { setTimeout(poll, 1000); }
        })
        .catch(() => { setTimeout(poll, 5000); });
    }
    setTimeout(poll, 1000);
  });
})();
