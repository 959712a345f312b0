"""Tests of the tool-info module's determine_result on recorded slam-run outputs (outputs/),
with the exit code or signal each run ended with. Run from this directory:
    python3 -m unittest test_slam_toolkit
"""

import os
import unittest

import benchexec.util
from benchexec.tooladapter import CURRENT_BASETOOL

from slam_toolkit import slam_run

HERE = os.path.dirname(os.path.abspath(__file__))


def run_of(name, value=None, signal=None, termination=None):
    with open(os.path.join(HERE, "outputs", name), encoding="utf-8") as f:
        lines = f.read().splitlines()
    if signal is not None:
        code = benchexec.util.ProcessExitCode.create(signal=signal)
    else:
        code = benchexec.util.ProcessExitCode.create(value=value)
    return CURRENT_BASETOOL.Run(
        ["slam-run", "task.c"], code, CURRENT_BASETOOL.RunOutput(lines), termination
    )


class DetermineResult(unittest.TestCase):
    def setUp(self):
        self.tool = slam_run.Tool()

    def check(self, expected, run):
        self.assertEqual(self.tool.determine_result(run), expected)

    def test_true(self):
        self.check("true", run_of("true.log", 0))

    def test_false(self):
        self.check("false(unreach-call)", run_of("false.log", 10))

    def test_unknown(self):
        self.check("unknown", run_of("unknown.log", 5))

    def test_own_timeout(self):
        self.check("TIMEOUT", run_of("timeout.log", 5))

    def test_killed_at_the_limit(self):
        # BenchExec killed it at its CPU-time limit: progress lines only.
        self.check("TIMEOUT", run_of("crash.log", signal=9, termination="cputime"))

    def test_crash(self):
        self.check("ERROR (signal 11)", run_of("crash.log", signal=11))

    def test_input_error(self):
        self.check("ERROR (input)", run_of("input-error.log", 2))


class CommandLine(unittest.TestCase):
    def test_task_options(self):
        tool = slam_run.Tool()
        task = CURRENT_BASETOOL.Task.with_files(
            ["t.i"], property_file="unreach-call.prp", options={"data_model": "LP64"}
        )
        cmd = tool.cmdline(
            "slam-run", ["--constrain", "eager"], task, CURRENT_BASETOOL.ResourceLimits(cputime=60)
        )
        self.assertEqual(
            cmd,
            [
                "slam-run",
                "--constrain",
                "eager",
                "--property",
                "unreach-call.prp",
                "--data-model",
                "LP64",
                "--timeout",
                "60",
                "t.i",
            ],
        )


if __name__ == "__main__":
    unittest.main()
