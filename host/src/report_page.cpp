#include "report_page.h"

namespace aoe::host {
namespace {

constexpr const char* page_head = R"html(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>aoe tuning report</title>
<script>
// A script error anywhere on the page is shown, and marked for tests.
window.onerror = function (message, source, line) {
  var box = document.createElement('pre');
  box.id = 'report-error';
  box.textContent = 'report script error: ' + message + ' (line ' + line + ')';
  (document.body || document.documentElement).appendChild(box);
};
</script>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1120px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; margin: 18px 0 4px; word-break: break-all; }
table { border-collapse: collapse; margin: 8px 0; } td, th { padding: 2px 10px; text-align: left; border-bottom: 1px solid #eee; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
svg { background: #fafafa; border: 1px solid #e4e4e4; }
svg text { font: 11px system-ui, sans-serif; fill: #444; }
.axis { stroke: #888; } .grid { stroke: #e6e6e6; }
.best { fill: none; stroke: #1f6feb; stroke-width: 2; }
.pt { fill: #9bbcf0; } .pt.seed { fill: #e3a21a; } .bar { fill: #7aa6e8; }
.default-mark { stroke: #d1242f; stroke-width: 2; stroke-dasharray: 4 3; }
.before { fill: #c2c2c2; } .after { fill: #1f6feb; }
.compute { fill: #8c959f; } .allreduce { fill: #2da44e; }
.note { color: #666; } #report-error { color: #d1242f; font-weight: bold; }
.status-incomplete { color: #bf8700; font-weight: bold; } .status-failed { color: #d1242f; font-weight: bold; }
</style></head>
<body>
<h1>aoe tuning report</h1>
<div id="summary"></div>
<div id="ops"></div>
<div id="gdat"></div>
<div id="bank"></div>
<div id="tasks"></div>
<script type="application/json" id="aoe-data">)html";

constexpr const char* page_script = R"html(</script>
<script>
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('aoe-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var section = data.section || {};

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function fmt(v) {
    if (v === null || v === undefined || !isFinite(v)) return '-';
    if (Number.isInteger(v)) return String(v);
    var a = Math.abs(v);
    return a >= 1000 ? v.toFixed(0) : a >= 10 ? v.toFixed(2) : v.toPrecision(3);
  }
  function table(parent, head, rows, numeric) {
    var t = el('table'), tr = el('tr');
    head.forEach(function (h, i) { tr.appendChild(el('th', numeric && numeric[i] ? {'class': 'num'} : {}, h)); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var row = el('tr');
      r.forEach(function (c, i) {
        row.appendChild(el('td', numeric && numeric[i] ? {'class': 'num'} : {}, typeof c === 'number' ? fmt(c) : String(c)));
      });
      t.appendChild(row);
    });
    parent.appendChild(t);
    return t;
  }
  function ticks(lo, hi, n) {
    var out = [];
    for (var i = 0; i <= n; ++i) out.push(lo + (hi - lo) * i / n);
    return out;
  }
  function range(values) {
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    if (!(hi > lo)) { var pad = Math.abs(lo) * 0.05 || 1; lo -= pad; hi += pad; }
    return [lo, hi];
  }
  // Times spread over more than a decade (a config far off the rest) go on a log scale.
  function wide(r) { return r[0] > 0 && r[1] / r[0] > 20; }
  function scaled(r, allow) {
    var log = allow && wide(r), f = log ? Math.log : function (v) { return v; };
    return {f: f, lo: f(r[0]), hi: f(r[1]), ticks: log ? ticks(f(r[0]), f(r[1]), 4).map(Math.exp) : ticks(r[0], r[1], 4)};
  }
  // An empty chart with axes from xr to yr; returns it with px() and py() to place values.
  // logAxis: 'x' or 'y', the axis of times, which may go on a log scale.
  function frame(cls, w, h, xr, yr, xlabel, ylabel, logAxis) {
    var m = {l: 62, r: 18, t: 10, b: 36}, X = scaled(xr, logAxis === 'x'), Y = scaled(yr, logAxis === 'y');
    var s = sv('svg', {'class': 'chart ' + cls, width: w, height: h, viewBox: '0 0 ' + w + ' ' + h});
    s.px = function (v) { return m.l + (X.f(v) - X.lo) / (X.hi - X.lo) * (w - m.l - m.r); };
    s.py = function (v) { return h - m.b - (Y.f(v) - Y.lo) / (Y.hi - Y.lo) * (h - m.t - m.b); };
    if (logAxis === 'x' && wide(xr)) xlabel += ' (log scale)';
    if (logAxis === 'y' && wide(yr)) ylabel += ' (log scale)';
    Y.ticks.forEach(function (v) {
      s.appendChild(sv('line', {'class': 'grid', x1: m.l, x2: w - m.r, y1: s.py(v), y2: s.py(v)}));
      s.appendChild(sv('text', {x: m.l - 4, y: s.py(v) + 4, 'text-anchor': 'end'}, fmt(v)));
    });
    X.ticks.forEach(function (v) {
      s.appendChild(sv('text', {x: s.px(v), y: h - m.b + 14, 'text-anchor': 'middle'}, fmt(v)));
    });
    s.appendChild(sv('line', {'class': 'axis', x1: m.l, x2: w - m.r, y1: h - m.b, y2: h - m.b}));
    s.appendChild(sv('line', {'class': 'axis', x1: m.l, x2: m.l, y1: m.t, y2: h - m.b}));
    s.appendChild(sv('text', {x: (w + m.l) / 2, y: h - 4, 'text-anchor': 'middle'}, xlabel));
    s.appendChild(sv('text', {x: 12, y: (h - m.b) / 2, transform: 'rotate(-90 12 ' + (h - m.b) / 2 + ')',
                              'text-anchor': 'middle'}, ylabel));
    return s;
  }

  // Each task's time before tuning (the default config's), in us, by name.
  function defaults() {
    var out = {};
    (section.opat_tuned_operators || []).forEach(function (op) {
      if (op['performance_before_tune(us)'] !== undefined) out[op.op_name] = op['performance_before_tune(us)'];
    });
    (section.sgat_tuned_subgraphs || []).forEach(function (sg) {
      if (sg['performance_before_tune(ms)'] !== undefined) out[sg.subgraph_name] = sg['performance_before_tune(ms)'] * 1000;
    });
    return out;
  }

  function summary() {
    var box = document.getElementById('summary'), b = data.basic || {};
    var status = section[(data.mode || '').toLowerCase() + '_tuning_result'];
    var rows = [['workspace', data.workspace], ['mode', data.mode || 'unknown (no result file in the workspace)']];
    ['tuning_name', 'model', 'device', 'soc_version', 'bank_path', 'tuning_time(s)'].forEach(function (k) {
      if (b[k] !== undefined) rows.push([k, b[k]]);
    });
    if (status) rows.push(['status', status]);
    if (section['model_baseline_performance(ms)'] !== undefined)
      rows.push(['model before -> after (ms)', fmt(section['model_baseline_performance(ms)']) + ' -> ' +
                 fmt(section['model_result_performance(ms)']) + ' (' + section.model_performance_improvement + ')']);
    table(box, ['', ''], rows);
    if (status === 'tuning incomplete')
      box.appendChild(el('p', {'class': 'status-incomplete'}, 'The run was interrupted: what follows is what it measured before it stopped.'));
    if (status === 'tuning failed')
      box.appendChild(el('p', {'class': 'status-failed'}, 'Some tasks could not be tuned; see the table of ops.'));
    if (data.skipped_lines)
      box.appendChild(el('p', {'class': 'note'}, data.skipped_lines + ' unreadable line(s) of measurements.jsonl skipped.'));
  }

  // The model's time by op (OPAT) or subgraph (SGAT), before and after, slowest first.
  function ops() {
    var rows = [];
    (section.opat_tuned_operators || []).forEach(function (op) {
      rows.push({name: op.op_name, type: op.op_type, before: op['performance_before_tune(us)'],
                 after: op['performance_after_tune(us)'], repo: op.repo, forward: op.forward_op});
    });
    (section.sgat_tuned_subgraphs || []).forEach(function (sg) {
      rows.push({name: sg.subgraph_name, type: (sg.nodes || []).length + (sg.phase ? ' kernels' : ' nodes'),
                 before: sg['performance_before_tune(ms)'] * 1000, after: sg['performance_after_tune(ms)'] * 1000, repo: sg.repo,
                 forward: sg.forward_ops ? sg.forward_ops.join(', ') : undefined});
    });
    var uncovered = section.unsupported_operators || [];
    if (!rows.length && !uncovered.length) return;
    var box = document.getElementById('ops');
    box.appendChild(el('h2', {}, 'Time by ' + (section.sgat_tuned_subgraphs ? 'subgraph' : 'op') + ', before and after tuning'));
    var timed = rows.filter(function (r) { return isFinite(r.before); });
    timed.sort(function (a, b) { return b.before - a.before; });
    if (timed.length) {
      var rowH = 22, labelW = 260, w = 880, h = timed.length * rowH + 30;
      var max = Math.max.apply(null, timed.map(function (r) { return Math.max(r.before, r.after || 0); }));
      var s = sv('svg', {'class': 'chart ops-chart', width: w, height: h, viewBox: '0 0 ' + w + ' ' + h});
      var x = function (v) { return labelW + v / max * (w - labelW - 130); };
      timed.forEach(function (r, i) {
        var y = 8 + i * rowH;
        var name = r.name.length > 40 ? r.name.slice(0, 39) + '\u2026' : r.name;
        s.appendChild(sv('text', {x: labelW - 6, y: y + 13, 'text-anchor': 'end'}, name));
        s.appendChild(sv('rect', {'class': 'before', x: labelW, y: y, width: x(r.before) - labelW, height: 8}));
        if (isFinite(r.after))
          s.appendChild(sv('rect', {'class': 'after', x: labelW, y: y + 9, width: x(r.after) - labelW, height: 8}));
        s.appendChild(sv('text', {x: x(Math.max(r.before, r.after || 0)) + 4, y: y + 13},
                         fmt(r.before) + ' \u2192 ' + fmt(r.after) + ' us'));
      });
      s.appendChild(sv('text', {x: labelW, y: h - 4}, 'grey: before (default config), blue: after (tuned), us per call'));
      box.appendChild(s);
    }
    // A training step's kernels say which forward op each comes from.
    var training = rows.some(function (r) { return r.forward !== undefined; });
    rows.sort(function (a, b) { return (b.before || 0) - (a.before || 0); });
    if (training)
      table(box, ['name', 'type', 'forward op', 'before (us)', 'after (us)', 'bank'],
            rows.map(function (r) { return [r.name, r.type, r.forward || '', r.before, r.after, r.repo || '']; }),
            [0, 0, 0, 1, 1, 0]);
    else
      table(box, ['name', 'type', 'before (us)', 'after (us)', 'bank'],
            rows.map(function (r) { return [r.name, r.type, r.before, r.after, r.repo || '']; }), [0, 0, 1, 1, 0]);
    if (uncovered.length) {
      box.appendChild(el('h3', {}, 'Ops no device covered (' + uncovered.length + ')'));
      table(box, ['op', 'type / reason'], uncovered.map(function (u) {
        if (typeof u === 'string') return [u, ''];
        var name = u.op_name || u.name || JSON.stringify(u);
        if (u.forward_op && u.forward_op !== name) name += ' (from ' + u.forward_op + ')';
        return [name, u.op_type || u.reason || ''];
      }));
    }
  }

  // GDAT: the schedule of the chosen split and of the baseline (from its trace), and every baseline's step.
  function gdat() {
    var box = document.getElementById('gdat');
    var trace = data.gdat_trace;
    if (!trace && !section.baselines) return;
    box.appendChild(el('h2', {}, 'Gradient allreduce timeline'));
    if (trace && trace.traceEvents) {
      var names = {}, lanes = [], end = 0;
      trace.traceEvents.forEach(function (e) {
        if (e.ph === 'M' && e.name === 'process_name') names[e.pid] = e.args.name;
        if (e.ph === 'X') end = Math.max(end, e.ts + e.dur);
      });
      Object.keys(names).sort().forEach(function (pid) {
        lanes.push({pid: +pid, tid: 1, label: names[pid] + ' / compute'});
        lanes.push({pid: +pid, tid: 2, label: names[pid] + ' / allreduce'});
      });
      var laneH = 24, labelW = 260, w = 880, h = lanes.length * laneH + 40;
      var s = sv('svg', {'class': 'chart gdat-timeline', width: w, height: h, viewBox: '0 0 ' + w + ' ' + h});
      var x = function (us) { return labelW + us / end * (w - labelW - 12); };
      lanes.forEach(function (lane, i) {
        s.appendChild(sv('text', {x: labelW - 6, y: 8 + i * laneH + 14, 'text-anchor': 'end'}, lane.label));
      });
      trace.traceEvents.forEach(function (e) {
        if (e.ph !== 'X') return;
        var i = lanes.findIndex(function (l) { return l.pid === e.pid && l.tid === e.tid; });
        if (i < 0) return;
        var r = sv('rect', {'class': 'span ' + e.cat, x: x(e.ts), y: 8 + i * laneH, width: Math.max(1, x(e.ts + e.dur) - x(e.ts)),
                            height: laneH - 6, stroke: '#fff'});
        r.appendChild(sv('title', {}, e.name + ': ' + fmt(e.ts / 1000) + ' -> ' + fmt((e.ts + e.dur) / 1000) + ' ms' +
                         (e.args && e.args.bytes ? ', ' + fmt(e.args.bytes / 1048576) + ' MiB' : '')));
        s.appendChild(r);
      });
      ticks(0, end, 4).forEach(function (v) {
        s.appendChild(sv('text', {x: x(v), y: h - 16, 'text-anchor': 'middle'}, fmt(v / 1000)));
      });
      s.appendChild(sv('text', {x: labelW, y: h - 2}, 'ms from the step\'s start; grey: forward and backward, green: allreduce buckets'));
      box.appendChild(s);
    }
    var splits = (section.baselines || []).map(function (b) {
      return [b.name, b.segments, b['predicted_tail(ms)'], b['predicted_step(ms)']];
    });
    if (section.result)
      splits.push(['chosen: ' + (section.result.chosen_by || ''), (section.result.split || {}).segments,
                   section.result['predicted_tail(ms)'], section.result['predicted_step(ms)']]);
    splits.sort(function (a, b) { return a[3] - b[3]; });
    if (splits.length) table(box, ['split', 'segments', 'tail (ms)', 'step (ms)'], splits, [0, 1, 1, 1]);
  }

  function bank() {
    var box = document.getElementById('bank');
    var summary = section.repo_summary, folders = data.bank || {};
    if (!summary && !Object.keys(folders).length) return;
    box.appendChild(el('h2', {}, 'Bank'));
    if (summary) table(box, ['added', 'updated', 'reserved (hit, kept)', 'unsatisfied', 'total'],
                       [[summary.repo_add_num, summary.repo_update_num, summary.repo_reserved_num,
                         summary.repo_unsatisfied_num, summary.total_num]], [1, 1, 1, 1, 1]);
    var rows = Object.keys(folders).map(function (k) { return [k, folders[k]]; });
    if (rows.length) {
      box.appendChild(el('p', {'class': 'note'}, 'Entries now in ' + (data.basic || {}).bank_path + ':'));
      table(box, ['folder', 'entries'], rows, [0, 1]);
    }
  }

  // Per task: best so far against evaluations and against time, and the measured times' distribution.
  function tasks() {
    var box = document.getElementById('tasks'), before = defaults();
    var names = Object.keys(data.tasks || {});
    if (!names.length) return;
    box.appendChild(el('h2', {}, 'Search per task (' + names.length + ')'));
    names.forEach(function (name) {
      var task = data.tasks[name];
      var ok = task.points.filter(function (p) { return p.status === 'ok' && isFinite(p.time_us); });
      var div = el('div', {'class': 'task'});
      div.appendChild(el('h3', {}, name));
      div.appendChild(el('div', {'class': 'note'}, task.points.length + ' evaluations (' + ok.length + ' ok), searcher ' +
                                 task.searcher + ', signature ' + task.signature));
      box.appendChild(div);
      if (!ok.length) return;
      var charts = el('div', {'class': 'charts'});
      div.appendChild(charts);
      var t0 = task.points[0].wall_time_s, best = Infinity;
      var curve = ok.map(function (p) {
        best = Math.min(best, p.time_us);
        return {e: p.evaluation, t: p.wall_time_s - t0, best: best, time: p.time_us, seed: p.seed};
      });
      var yr = range(curve.map(function (c) { return c.time; }).concat(isFinite(before[name]) ? [before[name]] : []));
      [['e', 'evaluation', 'convergence-evals'], ['t', 'seconds since the first measurement', 'convergence-time']].forEach(function (axis) {
        var xa = range(curve.map(function (c) { return c[axis[0]]; }));
        var s = frame(axis[2], 350, 220, xa, yr, axis[1], 'time (us)', 'y');
        curve.forEach(function (c) {
          s.appendChild(sv('circle', {'class': c.seed ? 'pt seed' : 'pt', cx: s.px(c[axis[0]]), cy: s.py(c.time), r: 2.5}));
        });
        s.appendChild(sv('polyline', {'class': 'best', points: curve.map(function (c) {
          return s.px(c[axis[0]]) + ',' + s.py(c.best);
        }).join(' ')}));
        if (isFinite(before[name]))
          s.appendChild(sv('line', {'class': 'default-mark', x1: s.px(xa[0]), x2: s.px(xa[1]), y1: s.py(before[name]),
                                   y2: s.py(before[name])}));
        charts.appendChild(s);
      });
      // The distribution: a histogram of the measured times, the default's time marked.
      var times = ok.map(function (p) { return p.time_us; });
      var xr = range(times.concat(isFinite(before[name]) ? [before[name]] : []));
      var bins = Math.min(24, Math.max(8, Math.ceil(Math.sqrt(times.length)))), counts = [], X = scaled(xr, true);
      var edge = function (i) { var v = X.lo + (X.hi - X.lo) * i / bins; return wide(xr) ? Math.exp(v) : v; };
      for (var i = 0; i < bins; ++i) counts.push(0);
      times.forEach(function (v) { counts[Math.min(bins - 1, Math.floor((X.f(v) - X.lo) / (X.hi - X.lo) * bins))]++; });
      var h = frame('distribution', 350, 220, xr, [0, Math.max.apply(null, counts)], 'measured time (us)', 'configs', 'x');
      counts.forEach(function (c, i) {
        var x0 = h.px(edge(i)), x1 = h.px(edge(i + 1));
        h.appendChild(sv('rect', {'class': 'bar', x: x0 + 0.5, width: Math.max(0.5, x1 - x0 - 1), y: h.py(c), height: h.py(0) - h.py(c)}));
      });
      if (isFinite(before[name])) {
        h.appendChild(sv('line', {'class': 'default-mark', x1: h.px(before[name]), x2: h.px(before[name]), y1: 10, y2: h.py(0)}));
        h.appendChild(sv('text', {x: h.px(before[name]) + 3, y: 20}, 'default ' + fmt(before[name])));
      }
      charts.appendChild(h);
    });
  }

  summary(); ops(); gdat(); bank(); tasks();
  document.body.setAttribute('data-rendered', 'yes');
})();
</script>
</body></html>
)html";

}  // namespace

std::string script_safe_json(const nlohmann::json& data) {
  // ensure_ascii: U+2028 and U+2029, line ends to a script, come out escaped too.
  const std::string text = data.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

std::string report_html(const nlohmann::json& data) {
  return std::string(page_head) + script_safe_json(data) + page_script;
}

}  // namespace aoe::host
