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
