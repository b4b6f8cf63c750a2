"use strict";
(function () {
  // The wipes: the old picture under the new, the new one cut at the
  // slider's place. They show the pictures of the step's figures (one copy
  // of each in the file) and appear only once this script runs.
  document.querySelectorAll(".wipe").forEach(function (w) {
    var from = document.getElementById(w.dataset.old), to = document.getElementById(w.dataset.new);
    if (!from || !to) return;
    var oldImg = w.querySelector(".wold"), newImg = w.querySelector(".wnew");
    var line = w.querySelector(".wline"), range = w.querySelector("input");
    oldImg.src = from.src;
    newImg.src = to.src;
    function set() {
      var v = Math.max(0, Math.min(100, Number(range.value) || 0));
      newImg.style.clipPath = "inset(0 0 0 " + v + "%)";
      line.style.left = v + "%";
      w.dataset.at = String(v);
    }
    range.addEventListener("input", set);
    set();
    w.hidden = false;
  });
  document.body.dataset.ready = "1";
})();
