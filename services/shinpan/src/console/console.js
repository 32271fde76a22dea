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
function wireSteps() {
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
}
wireSteps();

// A dispute sent from the end of the game follows its adjudication live (AdjudicateStream):
// the regions searched so far, then the answer in place of the page's content. Without
// server-sent events the form is posted as it stands.
(function () {
  var form = document.querySelector("form[data-dispute-live]");
  if (!form || !window.EventSource || !window.URLSearchParams) { return; }
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var query = new URLSearchParams(new FormData(form)).toString();
    var status = document.createElement("div");
    status.className = "dispute-progress";
    form.appendChild(status);
    form.querySelector("button").disabled = true;
    var source = new EventSource(form.getAttribute("data-dispute-live") + "?" + query);
    var done = false;
    source.addEventListener("progress", function (e) { status.innerHTML = e.data; });
    source.addEventListener("done", function (e) {
      done = true;
      source.close();
      document.querySelector("main").innerHTML = e.data;
      wireSteps();
    });
    source.onerror = function () {
      source.close();
      if (!done) { form.submit(); }
    };
  });
})();
