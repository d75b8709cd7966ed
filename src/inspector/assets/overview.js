/*
 * Overview page: draws the two charts with the bundled uPlot from the series the
 * server put in each chart's data-series attribute (no inline script: CSP).
 *
 * One clock: the time axis and the legend are UTC, 24-hour (uPlot would use the
 * browser's local 12-hour time). The labels the axis was last drawn with are kept
 * in the chart's data-x-ticks attribute (what the browser tests read).
 */
(function () {
  "use strict";
  if (typeof uPlot === "undefined") return;
  var COLORS = { "2xx": "#1b7f3b", "3xx": "#3a6ea5", "4xx": "#b36b00", "5xx": "#c62828", p50: "#3a6ea5", p99: "#8e24aa" };
  var charts = [];

  function pad(n) {
    return n < 10 ? "0" + n : String(n);
  }
  /** Unix seconds → "HH:MM" UTC. */
  function hhmm(s) {
    var d = new Date(s * 1000);
    return pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes());
  }

  function build(el) {
    var data = JSON.parse(el.dataset.series);
    var latency = el.dataset.chart === "latency";
    var names = latency ? ["p50", "p99"] : ["2xx", "3xx", "4xx", "5xx"];
    var series = [
      {
        label: "UTC",
        value: function (_u, v) {
          return v == null ? "–" : hhmm(v) + " UTC";
        },
      },
    ].concat(
      names.map(function (n) {
        return {
          label: n,
          stroke: COLORS[n],
          width: 2,
          points: { show: latency, size: 6 },
          spanGaps: latency,
          value: function (_u, v) {
            return v == null ? "–" : String(v);
          },
        };
      }),
    );
    var columns = [data.x].concat(
      names.map(function (n) {
        return data[n];
      }),
    );
    var xAxis = {
      label: "UTC",
      values: function (_u, splits) {
        var labels = splits.map(hhmm);
        el.dataset.xTicks = labels.join(",");
        return labels;
      },
    };
    var plot = new uPlot(
      // tzDate: uPlot places its ticks by the clock it is given (the browser's local one by default).
      {
        width: Math.max(280, el.clientWidth),
        height: 180,
        tzDate: function (ts) {
          return uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC");
        },
        series: series,
        scales: { x: { time: true } },
        axes: [xAxis, { size: 50 }],
        legend: { live: false },
      },
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
