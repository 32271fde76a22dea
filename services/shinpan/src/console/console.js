// Follows the page's server-sent events: each event carries a fragment of HTML that
// replaces the element named by the page's data-live-target.
(function () {
  var root = document.querySelector("[data-live]");
  if (!root || !window.EventSource) { return; }
  var target = document.getElementById(root.getAttribute("data-live-target"));
  var source = new EventSource(root.getAttribute("data-live"));
  var kinds = (root.getAttribute("data-live-events") || "update").split(" ");
  kinds.forEach(function (kind) {
    source.addEventListener(kind, function (e) {
      if (target) { target.innerHTML = e.data; }
    });
  });
})();

// Plays a proof line out on the board move by move: the buttons of [data-steps] show the
// numbered stones up to the current step.
(function () {
  var steps = document.querySelector("[data-steps]");
  if (!steps) { return; }
  var n = +steps.getAttribute("data-steps");
  var k = 0;
  var out = steps.querySelector("output");
  function show() {
    document.querySelectorAll("[data-step]").forEach(function (e) {
      e.style.display = +e.getAttribute("data-step") <= k ? "" : "none";
    });
    out.textContent = k + " / " + n;
  }
  steps.querySelectorAll("button").forEach(function (b) {
    b.addEventListener("click", function () {
      k = Math.max(0, Math.min(n, k + +b.getAttribute("data-go")));
      show();
    });
  });
  show();
})();
