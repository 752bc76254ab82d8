// The new competition form's time zone (templates/tournaments/new.html): the browser's
// IANA zone into the hidden field, so the sign-up deadline is read as the organiser
// typed it (tournaments.forms.NewCompetition.clean); without this script it is UTC.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  let zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) {
    zone = "";
  }
  for (const field of document.querySelectorAll("input[data-time-zone]")) {
    if (!field.value) field.value = zone;
    const deadline = field.form && field.form.querySelector("input[name=deadline]");
    const help = deadline && deadline.parentElement.querySelector("small");
    if (help && field.value) help.append(" (" + field.value + ")");
  }
});
