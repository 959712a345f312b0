//! The HTML report, after BenchExec's table-generator: at the top the host, the `slam-run`
//! version and the dates; then the summary tables, the plots (inline SVG), and a table with a
//! row per run — task, configuration, expected verdict, status (coloured), verdict, CPU and
//! wall-clock seconds, memory, iterations, predicates and links to the run's standard output
//! and error — that a little inline script sorts (click a heading) and filters (text, status,
//! configuration; the address can carry a view, `report.html#status=timeout&sort=-5`). The
//! page loads nothing: it works offline, from the results directory.
//!
//! The page is well-formed XML as well as HTML (the script sits in a CDATA section), so that
//! it can be checked with an XML parser.

use std::fmt::Write as _;

use crate::results::{Row, Status};
use crate::summary::Table;

/// What the page shows.
pub struct Page<'a> {
    /// Lines of the heading block: (what, value).
    pub about: Vec<(String, String)>,
    /// The summary tables.
    pub tables: &'a [Table],
    /// Every run.
    pub rows: &'a [Row],
    /// Per run (in `rows`' order), the relative URLs of its kept standard output and error,
    /// when there are such files.
    pub outputs: Vec<(Option<String>, Option<String>)>,
    /// The configurations, in report order.
    pub configs: &'a [String],
    /// The quantile plot.
    pub quantile: &'a str,
    /// The scatter plot, when there are two configurations.
    pub scatter: Option<&'a str>,
}

/// Escapes text for an element or an attribute value.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}\
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\
td:first-child,th:first-child{text-align:left}\
table.about td,table.about th{text-align:left}\
#runs th{cursor:pointer;background:#f4f4f4;position:sticky;top:0;text-align:left}\
#runs th[data-num]{text-align:right}\
#runs td{white-space:nowrap}#runs td.l{text-align:left}\
#runs th.up::after{content:' \\25B2'}#runs th.down::after{content:' \\25BC'}\
.st-correct-true,.st-correct-false{background:#c7eac7}\
.st-wrong-true,.st-wrong-false{background:#f4b6b6;font-weight:bold}\
.st-timeout,.st-memory{background:#ffd8a8}\
.st-unknown,.st-ndf{background:#fff3b0}\
.st-error{background:#e3d0f0}.st-unchecked{background:#e8e8e8}\
.filters{margin:1em 0}.filters input,.filters select{margin-right:1em}\
svg{display:block;margin:1em 0}";

const SCRIPT: &str = r#"
(function () {
  var table = document.getElementById('runs');
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var text = document.getElementById('filter-text');
  var status = document.getElementById('filter-status');
  var config = document.getElementById('filter-config');
  var shown = document.getElementById('shown');
  function filter() {
    var t = text.value.toLowerCase(), s = status.value, c = config.value, n = 0;
    rows.forEach(function (r) {
      var ok = (!t || r.textContent.toLowerCase().indexOf(t) >= 0) &&
        (!s || r.getAttribute('data-status') === s) &&
        (!c || r.getAttribute('data-config') === c);
      r.style.display = ok ? '' : 'none';
      if (ok) { n++; }
    });
    shown.textContent = n + ' of ' + rows.length + ' runs shown';
  }
  var heads = table.tHead.rows[0].cells, order = {};
  function sortBy(k, d) {
    var num = heads[k].hasAttribute('data-num');
    function key(r) {
      var c = r.cells[k], v = c.hasAttribute('data-v') ? c.getAttribute('data-v') : c.textContent;
      if (!num) { return v; }
      var x = parseFloat(v);
      return isNaN(x) ? -Infinity : x;
    }
    order[k] = d;
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      return (x < y ? -1 : x > y ? 1 : 0) * d;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(heads, function (h) { h.className = ''; });
    heads[k].className = d === 1 ? 'up' : 'down';
  }
  Array.prototype.forEach.call(heads, function (th, k) {
    th.addEventListener('click', function () { sortBy(k, order[k] === 1 ? -1 : 1); });
  });
  // The view can be given in the address: #status=timeout&config=lazy&text=locks&sort=-5
  // (sort: a column's number from 0, negative for descending).
  location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
    var p = kv.split('='), v = decodeURIComponent(p[1] || '');
    if (p[0] === 'status') { status.value = v; }
    if (p[0] === 'config') { config.value = v; }
    if (p[0] === 'text') { text.value = v; }
    if (p[0] === 'sort' && v !== '' && heads[Math.abs(+v)]) {
      sortBy(Math.abs(+v), v.charAt(0) === '-' ? -1 : 1);
    }
  });
  text.addEventListener('input', filter);
  status.addEventListener('change', filter);
  config.addEventListener('change', filter);
  filter();
})();
"#;

fn summary_table(s: &mut String, t: &Table) {
    let _ = write!(s, "<h3>{}", esc(&t.title));
    if let Some(c) = &t.code {
        let _ = write!(s, " <code>{}</code>", esc(c));
    }
    s.push_str("</h3>\n<table class=\"summary\">\n<tr>");
    for h in &t.header {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr>\n");
    for (i, row) in t.rows.iter().enumerate() {
        s.push_str("<tr>");
        for (j, cell) in row.iter().enumerate() {
            if j == 0 && t.total && i + 1 == t.rows.len() {
                let _ = write!(s, "<th>{}</th>", esc(cell));
            } else {
                let _ = write!(s, "<td>{}</td>", esc(cell));
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
}

fn expected(e: Option<bool>) -> &'static str {
    match e {
        Some(true) => "true",
        Some(false) => "false",
        None => "",
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn filters(s: &mut String, rows: &[Row], configs: &[String]) {
    s.push_str(
        "<div class=\"filters\"><label>Filter <input id=\"filter-text\" type=\"search\" \
         placeholder=\"task, verdict, …\"/></label><label>Status <select id=\"filter-status\">\
         <option value=\"\">all</option>",
    );
    for st in Status::ALL {
        let n = rows.iter().filter(|r| r.status == st).count();
        if n > 0 {
            let _ = write!(s, "<option value=\"{0}\">{0} ({n})</option>", st.name());
        }
    }
    s.push_str(
        "</select></label><label>Configuration <select id=\"filter-config\">\
         <option value=\"\">all</option>",
    );
    for c in configs {
        let _ = write!(s, "<option value=\"{0}\">{0}</option>", esc(c));
    }
    s.push_str("</select></label><span id=\"shown\"></span></div>\n");
}

fn run_table(s: &mut String, p: &Page<'_>) {
    filters(s, p.rows, p.configs);
    s.push_str(
        "<table id=\"runs\">\n<thead><tr><th>task</th><th>configuration</th><th>expected</th>\
         <th>status</th><th>verdict</th><th data-num=\"\">CPU s</th><th data-num=\"\">wall s</th>\
         <th data-num=\"\">memory MiB</th><th data-num=\"\">iterations</th>\
         <th data-num=\"\">predicates</th><th>output</th></tr></thead>\n<tbody>\n",
    );
    for (k, r) in p.rows.iter().enumerate() {
        let st = r.status.name();
        let rank = Status::ALL.iter().position(|x| *x == r.status).unwrap_or(0);
        let verdict = if r.verdict.is_empty() {
            format!("({})", r.note)
        } else {
            r.verdict.clone()
        };
        let _ = write!(
            s,
            "<tr class=\"run\" data-status=\"{st}\" data-config=\"{}\"><td class=\"l\">{}</td>\
             <td class=\"l\">{}</td><td class=\"l\">{}</td>\
             <td class=\"l st-{st}\" data-v=\"{rank}\">{st}</td><td class=\"l\">{}</td>\
             <td>{:.2}</td><td>{:.2}</td><td>{:.1}</td><td>{}</td><td>{}</td><td class=\"l\">",
            esc(&r.config),
            esc(&r.task),
            esc(&r.config),
            expected(r.expected),
            esc(&verdict),
            r.end.cpu_seconds,
            r.end.wall_seconds,
            r.end.peak_mem_mib,
            opt(r.iterations),
            opt(r.predicates),
        );
        let (out, err) = p.outputs.get(k).cloned().unwrap_or_default();
        let links: Vec<String> = [(out, "stdout"), (err, "stderr")]
            .into_iter()
            .filter_map(|(url, name)| url.map(|u| format!("<a href=\"{}\">{name}</a>", esc(&u))))
            .collect();
        s.push_str(&links.join(" "));
        s.push_str("</td></tr>\n");
    }
    s.push_str("</tbody></table>\n");
}

/// The page.
pub fn page(p: &Page<'_>) -> String {
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\
         <title>slam-bench report</title>\n<style>{STYLE}</style></head><body>\n\
         <h1>slam-bench report</h1>\n<table class=\"about\">\n"
    );
    for (k, v) in &p.about {
        let _ = writeln!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    }
    s.push_str(
        "</table>\n<p>Files: <a href=\"results.jsonl\">results.jsonl</a>, \
         <a href=\"results.csv\">results.csv</a>, <a href=\"summary.md\">summary.md</a>, \
         <a href=\"quantile.svg\">quantile.svg</a>",
    );
    if p.scatter.is_some() {
        s.push_str(", <a href=\"scatter.svg\">scatter.svg</a>");
    }
    s.push_str(
        ". Scores: +2 correct TRUE, +1 correct FALSE, −16 wrong FALSE, −32 wrong TRUE.</p>\n\
         <h2>Summary</h2>\n",
    );
    for t in p.tables {
        summary_table(&mut s, t);
    }
    s.push_str("<h2>Plots</h2>\n");
    s.push_str(p.quantile);
    s.push('\n');
    match p.scatter {
        Some(sc) => s.push_str(sc),
        None => s.push_str("<p>(a scatter plot needs two configurations)</p>"),
    }
    let _ = write!(s, "\n<h2>Runs</h2>\n");
    run_table(&mut s, p);
    let _ = write!(
        s,
        "<script>//<![CDATA[{SCRIPT}//]]></script>\n</body></html>\n"
    );
    s
}
