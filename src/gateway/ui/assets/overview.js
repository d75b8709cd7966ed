/*
 * Overview page: draws the two charts with the bundled uPlot from the series the
 * server put in each chart's data-series attribute (no inline script: CSP).
 */
(function () {
  "use strict";
  if (typeof uPlot === "undefined") return;
  var COLORS = { "2xx": "#1b7f3b", "3xx": "#3a6ea5", "4xx": "#b36b00", "5xx": "#c62828", p50: "#3a6ea5", p99: "#8e24aa" };
  var charts = [];

  function build(el) {
    var data = JSON.parse(el.dataset.series);
    var names = el.dataset.chart === "latency" ? ["p50", "p99"] : ["2xx", "3xx", "4xx", "5xx"];
    var series = [{}].concat(
      names.map(function (n) {
        return { label: n, stroke: COLORS[n], width: 2, points: { show: el.dataset.chart === "latency", size: 6 }, spanGaps: el.dataset.chart === "latency", value: function (_u, v) { return v == null ? "–" : String(v); } };
      }),
    );
    var columns = [data.x].concat(names.map(function (n) { return data[n]; }));
    var plot = new uPlot(
      { width: Math.max(280, el.clientWidth), height: 180, series: series, scales: { x: { time: true } }, axes: [{}, { size: 50 }], legend: { live: false } },
      columns,
      el,
    );
    charts.push({ el: el, plot: plot });
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-chart]"), build);
  window.addEventListener("resize", function () {
    charts.forEach(function (c) {
      c.plot.setSize({ width: Math.max(280, c.el.clientWidth), height: 180 });
    });
  });
})();
