//! `slam-bench` end to end with a deterministic stand-in for `slam-run` (`tests/data/standin.sh`:
//! each task file says which verdict it gives in which mode), so every row is known in advance: the
//! statuses and scores of the summary, the files of the report, resuming a benchmark killed
//! halfway, and shards merged back together — each compared on (task, configuration, verdict,
//! status) rows with an uninterrupted run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn standin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/standin.sh")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("slam-bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A task set `root/set` with the C files `files` (name, content).
fn task_set(root: &Path, set: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = root.join(set);
    std::fs::create_dir_all(&d).expect("set dir");
    for (file, text) in files {
        std::fs::write(d.join(file), text).expect("task");
    }
    d
}

/// The task sets: (set, file, content). `.yml` tasks name their C file.
const TASKS: &[(&str, &str, &str)] = &[
    ("alpha", "a_true-unreach-call.c", "// standin *: TRUE\n"),
    (
        "alpha",
        "b_false-unreach-call.c",
        "// standin *: FALSE(unreach-call)\n",
    ),
    (
        "alpha",
        "c_true-unreach-call.c",
        "// standin off: UNKNOWN (no difference found)\n// standin *: TRUE\n",
    ),
    ("alpha", "d_false-unreach-call.c", "// standin *: TRUE\n"),
    (
        "beta",
        "e.yml",
        "format_version: '2.0'\ninput_files: 'e.c'\nproperties:\n  - property_file: \
         ../properties/unreach-call.prp\n    expected_verdict: true\n",
    ),
    (
        "beta",
        "e.c",
        "// standin off: UNKNOWN (timeout)\n// standin *: TRUE\n",
    ),
    ("beta", "f_true-unreach-call.c", "// standin crash\n"),
    (
        "beta",
        "g_false-unreach-call.c",
        "// standin lazy: FALSE(unreach-call)\n// standin *: UNKNOWN (iterations)\n",
    ),
    (
        "beta",
        "h_true-unreach-call.c",
        "// standin *: FALSE(unreach-call)\n",
    ),
    // Not a task: no verdict in its name and no .yml.
    ("beta", "helper.c", "// standin *: TRUE\n"),
];

/// The expected status of each (task, configuration).
fn expected_status(task: &str, config: &str) -> &'static str {
    match (task, config) {
        ("alpha/a_true-unreach-call.c", _) => "correct-true",
        ("alpha/b_false-unreach-call.c", _) => "correct-false",
        ("alpha/c_true-unreach-call.c", "no-constrain") => "ndf",
        ("alpha/c_true-unreach-call.c", _) => "correct-true",
        ("alpha/d_false-unreach-call.c", _) => "wrong-true",
        ("beta/e.yml", "no-constrain") => "timeout",
        ("beta/e.yml", _) => "correct-true",
        ("beta/f_true-unreach-call.c", _) => "error",
        ("beta/g_false-unreach-call.c", "lazy") => "correct-false",
        ("beta/g_false-unreach-call.c", _) => "unknown",
        ("beta/h_true-unreach-call.c", _) => "wrong-false",
        other => panic!("unexpected row {other:?}"),
    }
}

fn make_tasks(root: &Path, sleep: Option<f64>) {
    for (set, file, text) in TASKS {
        let d = root.join(set);
        std::fs::create_dir_all(&d).expect("set dir");
        let mut text = text.to_string();
        if let Some(s) = sleep
            && file.ends_with(".c")
        {
            text.push_str(&format!("// standin sleep: {s}\n"));
        }
        std::fs::write(d.join(file), text).expect("task");
    }
}

fn bench<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slam-bench"))
        .args(args)
        .output()
        .expect("slam-bench runs")
}

/// `slam-bench run` on the two sets under `root` with the stand-in, into `out`.
fn run_args(root: &Path, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "run",
        "--quiet",
        "--cpu-limit",
        "20",
        "--jobs",
        "2",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(r(out));
    v.extend(extra.iter().map(|s| s.to_string()));
    v.push("--slam-run".into());
    v.push(r(&standin()));
    v.push(r(&root.join("alpha")));
    v.push(r(&root.join("beta")));
    v
}

fn rows(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.ends_with('}'))
        .map(|l| serde_json::from_str(l).expect("a row"))
        .collect()
}

/// (task, configuration, verdict, status) of every row.
fn keys(dir: &Path) -> BTreeSet<(String, String, String, String)> {
    rows(dir)
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
            (s("task"), s("config"), s("verdict"), s("status"))
        })
        .collect()
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "slam-bench failed: {}\n{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn a_benchmark_and_its_report() {
    let root = scratch("report");
    make_tasks(&root, None);
    let out = root.join("out");
    let o = r(&out);
    let res = bench(&run_args(&root, &out, &["--preset", "fig4"]));
    ok(&res);
    let rs = rows(&out);
    assert_eq!(rs.len(), 8 * 3, "one row per task and configuration");
    for row in &rs {
        let (task, config) = (
            row["task"].as_str().unwrap(),
            row["config"].as_str().unwrap(),
        );
        assert_eq!(
            row["status"].as_str().unwrap(),
            expected_status(task, config),
            "{task} under {config}: {row}"
        );
        if row["status"] != "error" {
            // The stand-in's statistics reach the row.
            assert_eq!(row["iterations"], 3);
            assert_eq!(row["prover_queries"], 17);
            let mode = match config {
                "no-constrain" => "off",
                c => c,
            };
            assert_eq!(row["constraints"], mode.len() as u64);
        } else {
            assert_eq!(row["end"]["signal"], 11, "the crash is a signal: {row}");
            assert!(row["note"].as_str().unwrap().contains("crashed"));
        }
    }
    // The summary: per configuration, the Fig. 4 counts and the SV-COMP score.
    let summary = std::fs::read_to_string(out.join("summary.md")).expect("summary.md");
    let stdout = String::from_utf8_lossy(&res.stdout);
    assert!(stdout.contains("### All configurations"));
    // no-constrain: correct TRUE a; correct FALSE b; wrong d, h; NDF c; timeout e; unknown g;
    // error f: score 2 + 1 - 32 - 16 = -45.
    for (config, line) in [
        (
            "no-constrain",
            "| **total** | 8 | 1 | 1 | 2 | 1 | 1 | 1 | 1 | 0 | -45 |",
        ),
        // lazy: correct TRUE a, c, e; correct FALSE b, g: 6 + 2 - 48 = -40.
        (
            "lazy",
            "| **total** | 8 | 3 | 2 | 2 | 0 | 0 | 0 | 1 | 0 | -40 |",
        ),
        // eager: as lazy but g unknown: 6 + 1 - 48 = -41.
        (
            "eager",
            "| **total** | 8 | 3 | 1 | 2 | 0 | 0 | 1 | 1 | 0 | -41 |",
        ),
    ] {
        let table = summary
            .split("### Configuration ")
            .find(|t| t.starts_with(&format!("`{config}`")))
            .unwrap_or_else(|| panic!("no table for {config}:\n{summary}"));
        assert!(
            table.contains(line),
            "{config}: expected {line} in\n{table}"
        );
        assert!(table.contains("| alpha | 4 |") && table.contains("| beta | 4 |"));
    }
    assert!(
        summary.contains("| SV-COMP score | -45 | -40 | -41 |"),
        "{summary}"
    );
    assert!(
        summary.contains("| constraints generated | 21 | 28 | 35 |"),
        "{summary}"
    );
    // CSV: a header and a record per run, read back by a CSV reader as the rows.
    let mut csv = csv::Reader::from_path(out.join("results.csv")).expect("results.csv");
    let header = csv.headers().expect("a header").clone();
    assert_eq!(
        header.iter().take(7).collect::<Vec<_>>(),
        [
            "task", "set", "config", "expected", "verdict", "status", "cpu_s"
        ]
    );
    let records: Vec<csv::StringRecord> = csv.records().map(|r| r.expect("a record")).collect();
    assert_eq!(records.len(), 24);
    let by_key: BTreeSet<(String, String, String, String)> = records
        .iter()
        .map(|r| (r[0].into(), r[2].into(), r[4].into(), r[5].into()))
        .collect();
    assert_eq!(by_key, keys(&out));
    // Plots: a series per configuration with its correct runs; in the scatter plot, each kind
    // of outcome with its own marker and count (no-constrain against lazy: a, b both correct;
    // c NDF and g UNKNOWN; e a timeout; d, h wrong and f a crash).
    let q = std::fs::read_to_string(out.join("quantile.svg")).expect("quantile.svg");
    assert!(q.starts_with("<svg") && q.trim_end().ends_with("</svg>"));
    for c in [
        "no-constrain (2 correct)",
        "lazy (5 correct)",
        "eager (4 correct)",
    ] {
        assert!(q.contains(c), "{c} in the quantile plot");
    }
    let sc = std::fs::read_to_string(out.join("scatter.svg")).expect("scatter.svg");
    for label in [
        "both correct (2)",
        "an UNKNOWN (NDF included) (2)",
        "a timeout or out of memory (1)",
        "a wrong verdict or an error (3)",
    ] {
        assert!(sc.contains(label), "{label} in the scatter plot");
    }
    report_has_a_row_per_run(&out, &rs);
    // A second run into the same directory is refused: nothing is overwritten.
    let again = bench(&run_args(&root, &out, &["--preset", "fig4"]));
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    // Resuming with other configurations is refused too.
    let other = bench(&run_args(&root, &out, &["--preset", "lazy", "--resume"]));
    assert_eq!(other.status.code(), Some(2));
    // `report` writes the same summary again from the rows.
    let rep = bench(&["report", &o]);
    ok(&rep);
    assert_eq!(
        std::fs::read_to_string(out.join("summary.md")).unwrap(),
        summary
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// `report.html` parses as XML and has the provenance at the top, and a row per run with its
/// configuration, its status (a class that colours it) and links to the run's standard output
/// and error, files that exist and hold what the run printed.
fn report_has_a_row_per_run(out: &Path, rs: &[serde_json::Value]) {
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(&html, opts)
        .unwrap_or_else(|e| panic!("report.html does not parse: {e}"));
    let text_of = |n: roxmltree::Node| {
        n.descendants()
            .filter(|d| d.is_text())
            .filter_map(|d| d.text())
            .collect::<String>()
    };
    let about: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("table") && n.attribute("class") == Some("about"))
        .flat_map(|t| t.children().filter(|r| r.has_tag_name("tr")))
        .map(text_of)
        .collect();
    for what in [
        "host",
        "CPU",
        "tool",
        "benchmark started",
        "report written",
        "limits",
    ] {
        assert!(
            about.iter().any(|l| l.starts_with(what)),
            "{what} in {about:?}"
        );
    }
    assert!(
        about.iter().any(|l| l == "toolslam-run 0.0.0 (stand-in)"),
        "{about:?}"
    );
    assert_eq!(
        doc.descendants().filter(|n| n.has_tag_name("svg")).count(),
        2,
        "both plots inline"
    );
    // Nothing is loaded from elsewhere: the page works offline.
    for n in doc.descendants().filter(|n| n.is_element()) {
        for a in n.attributes() {
            let v = a.value();
            assert!(
                !(v.contains("://") || v.starts_with("//")),
                "{}={v}: an external resource",
                a.name()
            );
        }
    }
    let runs: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("tr") && n.attribute("class") == Some("run"))
        .collect();
    assert_eq!(runs.len(), rs.len(), "one row per run");
    let mut seen = BTreeSet::new();
    for tr in runs {
        let cells: Vec<roxmltree::Node> = tr.children().filter(|c| c.has_tag_name("td")).collect();
        let (task, config, status) = (text_of(cells[0]), text_of(cells[1]), text_of(cells[3]));
        assert_eq!(
            status,
            expected_status(&task, &config),
            "{task} under {config}"
        );
        assert_eq!(tr.attribute("data-status"), Some(status.as_str()));
        assert_eq!(
            cells[3].attribute("class"),
            Some(format!("l st-{status}").as_str())
        );
        let links: Vec<&str> = cells[10]
            .descendants()
            .filter(|n| n.has_tag_name("a"))
            .filter_map(|a| a.attribute("href"))
            .collect();
        assert_eq!(links.len(), 2, "{task} under {config}: {links:?}");
        let stdout = std::fs::read_to_string(out.join(links[0]))
            .unwrap_or_else(|e| panic!("{}: {e}", links[0]));
        let stderr = std::fs::read_to_string(out.join(links[1])).expect("stderr file");
        if status == "error" {
            assert!(stderr.contains("crashed"), "{stderr}");
        } else {
            assert!(stdout.starts_with(text_of(cells[4]).as_str()), "{stdout}");
            assert!(stdout.contains("summary: iterations=3"), "{stdout}");
        }
        seen.insert((task, config));
    }
    assert_eq!(seen.len(), rs.len(), "a row per (task, configuration)");
}

/// A headless browser, when one is installed.
fn headless_browser() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// The report's script in a real browser: the view in the address filters the runs to the
/// timeouts and sorts them by CPU time, longest first. Skipped, saying so, without a
/// headless browser.
#[test]
fn the_report_filters_and_sorts_in_a_browser() {
    let Some(browser) = headless_browser() else {
        eprintln!("SKIP: no headless browser (chromium) installed");
        return;
    };
    let root = scratch("browser");
    make_tasks(&root, None);
    let out = root.join("out");
    ok(&bench(&run_args(&root, &out, &["--preset", "fig4"])));
    let url = format!(
        "file://{}#status=wrong-true&sort=-5",
        out.join("report.html").display()
    );
    let dom = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(&url)
        .output()
        .expect("the browser runs");
    let dom = String::from_utf8_lossy(&dom.stdout);
    let shown: Vec<&str> = dom
        .split("<tr class=\"run\"")
        .skip(1)
        .filter(|r| !r[..r.find('>').unwrap_or(0)].contains("display: none"))
        .collect();
    // alpha/d is wrong-true under each of the three configurations.
    assert_eq!(shown.len(), 3, "{dom}");
    assert!(
        shown
            .iter()
            .all(|r| r.contains("alpha/d_false-unreach-call.c"))
    );
    assert!(dom.contains("3 of 24 runs shown"), "{dom}");
    let cpu = |r: &str| -> f64 {
        let cells: Vec<&str> = r.split("<td").collect();
        let c = cells[6];
        c[c.find('>').unwrap() + 1..c.find("</td>").unwrap()]
            .parse()
            .unwrap()
    };
    let times: Vec<f64> = shown.iter().map(|r| cpu(r)).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    assert!(
        dom.contains("class=\"down\">CPU s</th>"),
        "sorted by CPU s, descending"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_killed_benchmark_resumes_to_the_same_rows() {
    let root = scratch("resume");
    make_tasks(&root, Some(0.2));
    let full = root.join("full");
    ok(&bench(&run_args(
        &root,
        &full,
        &["--preset", "no-constrain,lazy"],
    )));
    let expected = keys(&full);
    assert_eq!(expected.len(), 16);

    let part = root.join("part");
    let args = run_args(&root, &part, &["--preset", "no-constrain,lazy"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_slam-bench"))
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let t0 = Instant::now();
    while rows(&part).len() < 5 && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("kill");
    let _ = child.wait();
    let before = rows(&part).len();
    assert!(
        (5..16).contains(&before),
        "killed halfway: {before} rows of 16"
    );
    let mut resume = args.clone();
    resume.insert(1, "--resume".into());
    ok(&bench(&resume));
    assert_eq!(rows(&part).len(), 16, "every pair once");
    assert_eq!(keys(&part), expected);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn shards_merge_to_the_rows_of_one_run() {
    let root = scratch("shards");
    make_tasks(&root, None);
    let whole = root.join("whole");
    ok(&bench(&run_args(&root, &whole, &["--preset", "fig4"])));
    let mut shard_dirs = Vec::new();
    let mut seen = 0;
    for i in 1..=3 {
        let d = root.join(format!("shard{i}"));
        let spec = format!("{i}/3");
        ok(&bench(&run_args(
            &root,
            &d,
            &["--preset", "fig4", "--shard", &spec],
        )));
        seen += rows(&d).len();
        shard_dirs.push(r(&d));
    }
    assert_eq!(seen, 24, "the shards partition the pairs");
    let merged = root.join("merged");
    let mut args = vec!["merge".to_string(), "--out".into(), r(&merged)];
    args.extend(shard_dirs);
    ok(&bench(&args));
    assert_eq!(keys(&merged), keys(&whole));
    let summary = |d: &Path| without_times(&std::fs::read_to_string(d.join("summary.md")).unwrap());
    assert_eq!(summary(&merged), summary(&whole));
    // The merged report links every run's output, copied from its shard.
    report_has_a_row_per_run(&merged, &rows(&merged));
    let _ = std::fs::remove_dir_all(&root);
}

/// Runs `slam-bench run --quiet --preset lazy` with the stand-in on the tasks in `dir`, with
/// `args` (the limits); the rows by task file name.
fn limit_rows(
    dir: &Path,
    out: &Path,
    args: &[&str],
) -> std::collections::BTreeMap<String, serde_json::Value> {
    let mut v = vec!["run", "--quiet", "--preset", "lazy", "--jobs", "3"];
    v.extend_from_slice(args);
    let (o, s, d) = (r(out), r(&standin()), r(dir));
    v.extend(["--out", &o, "--slam-run", &s, &d]);
    ok(&bench(&v));
    rows(out)
        .into_iter()
        .map(|row| {
            let name = row["task"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string();
            (name, row)
        })
        .collect()
}

#[test]
fn the_cpu_limit_is_cpu_time() {
    let root = scratch("cpu");
    let d = task_set(
        &root,
        "limits",
        &[
            // Sleeps 5 s: wall-clock time, not CPU time.
            (
                "sleep_true-unreach-call.c",
                "// standin sleep: 5\n// standin *: TRUE\n",
            ),
            // Computes 5 s: killed by SIGXCPU at the limit.
            (
                "spin_true-unreach-call.c",
                "// standin spin: 5\n// standin *: TRUE\n",
            ),
            // Computes until SIGXCPU, where it stops itself with its statistics, as slam-run
            // does. Not a spin of 5 s: the kernel's CPU clock for the limit (tick samples,
            // without the time a virtual machine's host steals) can lag behind the usage
            // the spin reads from /proc, and a loaded machine then let it end first.
            (
                "caught_true-unreach-call.c",
                "// standin catch-xcpu\n// standin spin\n// standin *: TRUE\n",
            ),
        ],
    );
    let rs = limit_rows(&d, &root.join("out"), &["--cpu-limit", "3"]);
    assert_eq!(rs.len(), 3);
    let sleep = &rs["sleep_true-unreach-call.c"];
    assert_eq!(sleep["status"], "correct-true", "{sleep}");
    assert!(sleep["end"]["wall_seconds"].as_f64().unwrap() >= 5.0);
    assert!(sleep["end"]["limit"].is_null());
    let spin = &rs["spin_true-unreach-call.c"];
    assert_eq!(spin["status"], "timeout", "{spin}");
    assert_eq!(spin["end"]["limit"], "cpu");
    // Ended by the kernel at the soft limit (SIGXCPU) — or, on a heavily loaded machine where
    // the signal can arrive after the spin has ended, measured over the limit: a timeout
    // either way, never a correct answer.
    let cpu = spin["end"]["cpu_seconds"].as_f64().unwrap();
    assert!(
        spin["end"]["signal"] == libc::SIGXCPU || cpu >= 3.0,
        "{spin}"
    );
    assert!(cpu > 0.8 * 3.0);
    let caught = &rs["caught_true-unreach-call.c"];
    assert_eq!(caught["status"], "timeout", "{caught}");
    assert_eq!(caught["end"]["limit"], "cpu");
    assert_eq!(caught["verdict"], "UNKNOWN (timeout)");
    assert_eq!(caught["end"]["exit_code"], 5);
    // Its statistics reach the row: the phases, and where the limit stopped it.
    assert_eq!(caught["phases"]["stopped_in"], "bebop", "{caught}");
    assert_eq!(caught["phases"]["c2bp_s"], 1.5);
    // A wall-clock limit of its own: slam-run's --timeout, so the sleeper stops there itself.
    let out = root.join("wall");
    let rs = limit_rows(&d, &out, &["--cpu-limit", "3", "--wall-limit", "1"]);
    let sleep = &rs["sleep_true-unreach-call.c"];
    assert_eq!(sleep["status"], "timeout", "{sleep}");
    assert_eq!(sleep["end"]["limit"], "wall");
    assert_eq!(sleep["verdict"], "UNKNOWN (timeout)");
    assert!(sleep["end"]["wall_seconds"].as_f64().unwrap() < 4.0);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("bench.json")).unwrap()).unwrap();
    assert_eq!(meta["cpu_limit"], 3.0);
    assert_eq!(meta["wall_limit"], 1.0);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn limits_and_bad_input() {
    let root = scratch("limits");
    let d = task_set(
        &root,
        "spin",
        &[("s_true-unreach-call.c", "// standin spin\n")],
    );
    let out = root.join("out");
    let o = r(&out);
    let res = bench(&[
        "run",
        "--quiet",
        "--cpu-limit",
        "1",
        "--preset",
        "lazy",
        "--out",
        &o,
        "--slam-run",
        &r(&standin()),
        &r(&d),
    ]);
    ok(&res);
    let rs = rows(&out);
    assert_eq!(rs.len(), 1);
    assert_eq!(rs[0]["status"], "timeout", "{}", rs[0]);
    assert_eq!(rs[0]["end"]["limit"], "cpu");
    // The kernel's CPU clock of the limit and the rusage wait4 reports are sampled
    // differently (more so on a loaded virtual machine): SIGXCPU may come at a reported
    // 0.7 s.
    assert!(rs[0]["end"]["cpu_seconds"].as_f64().unwrap() > 0.5);
    // Missing task set (an input error, exit code 2); unknown preset, the paper's
    // symbolic-prover columns, bad limits, an unknown configuration for the scatter plot
    // (usage errors, 1): one line, before any run.
    let (s, dd) = (r(&standin()), r(&d));
    let fresh = r(&root.join("never"));
    for args in [
        vec!["run", "--out", &o, "/nonexistent/tasks"],
        vec!["run", "--out", &o, "--preset", "fastest", &dd],
        vec!["run", "--out", &o, "--preset", "S/3", &dd],
        vec!["run", "--out", &fresh, "--cpu-limit", "0", &dd],
        vec!["run", "--out", &fresh, "--cpu-limit", "-1", &dd],
        vec!["run", "--out", &fresh, "--cpu-limit", "inf", &dd],
        vec!["run", "--out", &fresh, "--wall-limit", "0", &dd],
        vec!["table", "--cpu-limit", "0", &dd],
        // Options slam-bench gives every run itself.
        vec!["run", "--out", &fresh, "--slam-arg=--timeout=5", &dd],
        vec!["run", "--out", &fresh, "--slam-arg=--json=s.json", &dd],
        vec![
            "run",
            "--out",
            &fresh,
            "--config",
            "x=--stats-json s.json",
            &dd,
        ],
        vec![
            "run",
            "--out",
            &fresh,
            "--slam-run",
            &s,
            "--preset",
            "fig4",
            "--scatter",
            "lazy,fastest",
            &dd,
        ],
        vec![
            "run",
            "--out",
            &fresh,
            "--slam-run",
            &s,
            "--preset",
            "fig4",
            "--scatter",
            "lazy",
            &dd,
        ],
        vec!["report", &o, "--scatter", "lazy,eager"],
    ] {
        let res = bench(&args);
        let code = if args.contains(&"/nonexistent/tasks") {
            cli_common::exit::INPUT_ERROR
        } else {
            cli_common::exit::USAGE
        };
        assert_eq!(res.status.code(), Some(code), "{args:?}");
        let err = String::from_utf8_lossy(&res.stderr);
        let first = err.lines().next().unwrap_or("");
        assert!(
            first.starts_with("slam-bench: ") || first.starts_with("error: "),
            "{args:?}: {err}"
        );
        assert!(!err.contains("internal"), "{err}");
    }
    assert!(
        !root.join("never").join("results.jsonl").exists(),
        "nothing ran"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn strategy_dimensions_in_one_schema() {
    let root = scratch("dims");
    let d = task_set(
        &root,
        "set",
        &[
            ("a_true-unreach-call.c", "// standin *: TRUE\n"),
            (
                "b_false-unreach-call.c",
                "// standin *: FALSE(unreach-call)\n",
            ),
        ],
    );
    let (s, dd) = (r(&standin()), r(&d));
    let run = |out: &Path, extra: &[&str]| {
        let o = r(out);
        let mut v = vec![
            "run",
            "--quiet",
            "--jobs",
            "2",
            "--out",
            &o,
            "--slam-run",
            &s,
        ];
        v.extend_from_slice(extra);
        v.push(&dd);
        bench(&v)
    };
    // A dimension slam-run has (through its shorthand) and one it does not have yet.
    let out = root.join("out");
    let scatter = "constrain=lazy,refine=wp,constrain=off,refine=wp";
    let args = [
        "--dim",
        "refine=wp,horn",
        "--constrain",
        "lazy,off",
        "--scatter",
        scatter,
    ];
    ok(&run(&out, &args));
    let names: BTreeSet<String> = keys(&out).into_iter().map(|k| k.1).collect();
    let expected: BTreeSet<String> = [
        "constrain=lazy,refine=wp",
        "constrain=lazy,refine=horn",
        "constrain=off,refine=wp",
        "constrain=off,refine=horn",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(names, expected);
    for row in rows(&out) {
        // slam-run (here its stand-in) rejects --refine: an error row that says why.
        assert_eq!(row["status"], "error", "{row}");
        assert_eq!(row["end"]["exit_code"], 2);
        let note = row["note"].as_str().unwrap();
        assert!(note.contains("'--refine'"), "{note}");
    }
    assert!(out.join("scatter.svg").exists());
    let meta_path = out.join("bench.json");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    let schema: Vec<(String, String)> = meta["schema"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().into(),
                d["flag"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        schema,
        [
            ("constrain".to_string(), "--constrain".to_string()),
            ("refine".to_string(), "--refine".to_string())
        ]
    );
    assert_eq!(
        meta["configs"][1]["args"],
        serde_json::json!(["--constrain", "lazy", "--refine", "horn"])
    );
    // Resuming the same benchmark: nothing left to run.
    let mut again = args.to_vec();
    again.push("--resume");
    ok(&run(&out, &again));
    assert_eq!(rows(&out).len(), 8);
    // A benchmark whose dimensions meant other options is another benchmark.
    let edited = std::fs::read_to_string(&meta_path)
        .unwrap()
        .replace("\"--refine\"", "\"--refinement\"");
    std::fs::write(&meta_path, edited).unwrap();
    let res = run(&out, &again);
    assert_eq!(res.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&res.stderr).contains("dimensions"));
    // A dimension slam-run has: the stand-in answers.
    let cubes = root.join("cubes");
    ok(&run(
        &cubes,
        &["--dim", "cube=1,inf", "--bitvector", "off,on"],
    ));
    let rs = rows(&cubes);
    assert_eq!(rs.len(), 8);
    assert!(
        rs.iter()
            .all(|r| r["status"].as_str().unwrap().starts_with("correct"))
    );
    let names: BTreeSet<String> = keys(&cubes).into_iter().map(|k| k.1).collect();
    assert!(names.contains("cube=inf,bitvector=on"), "{names:?}");
    // Unknown dimensions and values, a dimension given twice: usage errors before any run.
    for bad in [
        vec!["--dim", "frobnicate=1"],
        vec!["--dim", "refine=interpolants"],
        vec!["--dim", "cube=0"],
        vec!["--cube-len", "1", "--dim", "cube=3"],
        vec!["--dim", "refine"],
        vec!["--bitvector", "maybe"],
    ] {
        let res = run(&root.join("never"), &bad);
        assert_eq!(res.status.code(), Some(cli_common::exit::USAGE), "{bad:?}");
        let err = String::from_utf8_lossy(&res.stderr);
        assert!(
            err.starts_with("slam-bench: ") && err.lines().count() == 1,
            "{err}"
        );
    }
    assert!(!root.join("never").join("results.jsonl").exists());
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_table_of_the_sets_in_their_order() {
    let root = scratch("table");
    make_tasks(&root, None);
    let res = bench(&[
        "table",
        &r(&root.join("beta")),
        &r(&root.join("alpha")),
        "--cpu-limit",
        "20",
        "--slam-run",
        &r(&standin()),
        "--",
        "--constrain",
        "off",
    ]);
    ok(&res);
    let out = String::from_utf8_lossy(&res.stdout);
    // Each row without its CPU seconds: task, expected, verdict, result, summary values.
    let rows: Vec<String> = out
        .lines()
        .map(|l| {
            let mut w: Vec<&str> = l.split_whitespace().collect();
            w.pop();
            w.join(" ")
        })
        .collect();
    let expected = [
        "task expect verdict result iters preds wall-s",
        "beta/e.yml true UNKNOWN (timeout) unknown 3 4 0.01",
        "beta/f_true-unreach-call.c true unknown - - -",
        "beta/g_false-unreach-call.c false UNKNOWN (iterations) unknown 3 4 0.01",
        "beta/h_true-unreach-call.c true FALSE(unreach-call) WRONG 3 4 0.01",
        "alpha/a_true-unreach-call.c true TRUE correct 3 4 0.01",
        "alpha/b_false-unreach-call.c false FALSE(unreach-call) correct 3 4 0.01",
        "alpha/c_true-unreach-call.c true UNKNOWN (no difference found) unknown 3 4 0.01",
        "alpha/d_false-unreach-call.c false TRUE WRONG 3 4 0.01",
        "",
        "options: --constrain",
        "beta 0/4 correct, 1 wrong (limit 20 s per",
        "alpha 2/4 correct, 1 wrong (limit 20 s per",
    ];
    assert_eq!(rows, expected, "{out}");
    assert!(
        out.lines().nth(1).is_some_and(|l| l.starts_with(
            "beta/e.yml                                   true   UNKNOWN (timeout)      unknown"
        )),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_table_breaks_the_slowest_tasks_down_by_phase() {
    let root = scratch("breakdown");
    let d = task_set(
        &root,
        "set",
        &[
            ("fast_true-unreach-call.c", "// standin *: TRUE\n"),
            (
                "slow_true-unreach-call.c",
                "// standin spin: 1\n// standin *: TRUE\n",
            ),
            (
                "slower_true-unreach-call.c",
                "// standin spin: 2\n// standin *: TRUE\n",
            ),
        ],
    );
    let res = bench(&[
        "table",
        &r(&d),
        "--cpu-limit",
        "20",
        "--breakdown",
        "2",
        "--slam-run",
        &r(&standin()),
    ]);
    ok(&res);
    let out = String::from_utf8_lossy(&res.stdout);
    let (_, bd) = out
        .split_once("Breakdown of the 2 slowest tasks (CPU seconds):")
        .unwrap_or_else(|| panic!("no breakdown:\n{out}"));
    let heads: Vec<&str> = bd
        .lines()
        .filter(|l| l.starts_with("set/"))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        heads,
        [
            "set/slower_true-unreach-call.c",
            "set/slow_true-unreach-call.c"
        ],
        "{bd}"
    );
    assert!(bd.contains("3 iterations, 4 predicates"), "{bd}");
    // The stand-in's phases (CPU, wall-clock seconds) and a line per round.
    for line in [
        "  c2bp          1.50     1.50",
        "  bebop         0.75     0.75",
        "  newton        0.38     0.38",
        "  constrain     0.19     0.19",
    ] {
        assert!(bd.contains(line), "{line} in\n{bd}");
    }
    assert_eq!(bd.matches("infeasible").count(), 2 * 3, "{bd}");
    let _ = std::fs::remove_dir_all(&root);
}

fn r(p: &Path) -> String {
    p.display().to_string()
}

/// A summary without its CPU-time rows and columns (times differ from run to run).
fn without_times(summary: &str) -> String {
    summary
        .lines()
        .filter(|l| !l.contains("CPU s ("))
        .map(|l| l.split('|').take(12).collect::<Vec<_>>().join("|"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_directory_without_tasks_says_what_a_task_is() {
    let root = scratch("notasks");
    let d = task_set(
        &root,
        "plain",
        &[
            ("main.c", "int main(void) { return 0; }\n"),
            ("util.c", "\n"),
        ],
    );
    let res = bench(&[
        "run",
        "--quiet",
        "--out",
        &r(&root.join("out")),
        "--slam-run",
        &r(&standin()),
        &r(&d),
    ]);
    assert_eq!(res.status.code(), Some(2));
    let err = String::from_utf8_lossy(&res.stderr);
    for what in [
        "no tasks found in",
        "NAME.yml, with an unreach-call property",
        "expected_verdict: true",
        "NAME_true-unreach-call.c",
        "NAME_false-unreach-call.c",
        "2 C file(s) here name no verdict (main.c, util.c)",
    ] {
        assert!(err.contains(what), "{what} in\n{err}");
    }
    // `table` says the same.
    let res = bench(&["table", "--slam-run", &r(&standin()), &r(&d)]);
    assert_eq!(res.status.code(), Some(2));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(
        err.contains("no tasks found") && err.contains("NAME_true-unreach-call.c"),
        "{err}"
    );
    // As the message says: a .yml for one of them makes it a task.
    std::fs::write(
        d.join("main.yml"),
        "format_version: '2.0'\ninput_files: 'main.c'\nproperties:\n  - property_file: \
         ../properties/unreach-call.prp\n    expected_verdict: true\n",
    )
    .expect("yml");
    std::fs::write(d.join("main.c"), "// standin *: TRUE\n").expect("c");
    let res = bench(&[
        "run",
        "--quiet",
        "--preset",
        "lazy",
        "--out",
        &r(&root.join("out")),
        "--slam-run",
        &r(&standin()),
        &r(&d),
    ]);
    ok(&res);
    assert_eq!(rows(&root.join("out"))[0]["status"], "correct-true");
    let _ = std::fs::remove_dir_all(&root);
}
