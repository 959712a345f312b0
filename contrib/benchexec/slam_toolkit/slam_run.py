# BenchExec tool-info module for slam-run, the refinement loop of slam-toolkit (SLAM-style
# predicate abstraction: c2bp, bebop, newton, and Das-Dill refinement with constrain).
#
# Use: put contrib/benchexec on PYTHONPATH and name the tool `slam_toolkit.slam_run` in a
# benchmark definition (<benchmark tool="slam_toolkit.slam_run" ...>), or check it with
#   PYTHONPATH=contrib/benchexec python3 -m benchexec.test_tool_info slam_toolkit.slam_run \
#       --no-container --tool-directory .
# from the repository's root (a name with a dot is imported as it is, not from
# benchexec.tools).
"""BenchExec tool-info module for slam-run (slam-toolkit)."""

import benchexec.result as result
import benchexec.tools.template


class Tool(benchexec.tools.template.BaseTool2):
    """
    slam-run checks that a C program cannot reach its error (SV-COMP's unreach-call):
    counterexample-guided abstraction refinement with Boolean programs, in the manner of SLAM,
    with Das-Dill refinement of the abstract transition relation when new predicates stop
    helping. The verdict is the first line of its standard output: TRUE,
    FALSE(unreach-call) (with a counterexample replayed on the concrete program) or
    UNKNOWN (reason). Exit codes: 0 TRUE, 10 FALSE, 5 UNKNOWN, 1 usage error, 2 input error,
    6 internal error.
    """

    def executable(self, tool_locator):
        try:
            return tool_locator.find_executable("slam-run", subdir="target/release")
        except benchexec.tools.template.ToolNotFoundException:
            return tool_locator.find_executable("slam-run", subdir="target/debug")

    def name(self):
        return "slam-toolkit"

    def project_url(self):
        return None

    def version(self, executable):
        # `slam-run --version` prints "slam-run 0.1.0".
        words = self._version_from_tool(executable).split()
        return words[-1] if words else ""

    def program_files(self, executable):
        return [executable]

    def cmdline(self, executable, options, task, rlimits):
        cmd = [executable, *options]
        if task.property_file:
            cmd += ["--property", task.property_file]
        task_options = task.options if isinstance(task.options, dict) else {}
        data_model = task_options.get("data_model")
        if data_model and "--data-model" not in options:
            cmd += ["--data-model", data_model]
        if rlimits.cputime and "--timeout" not in options:
            # slam-run ends itself with UNKNOWN (timeout) at its limit.
            cmd += ["--timeout", str(rlimits.cputime)]
        # Raises UnsupportedFeatureException for tasks of several files.
        return cmd + [task.single_input_file]

    def determine_result(self, run):
        # The output mixes stderr (progress, messages) and stdout (verdict first).
        for line in run.output:
            line = line.strip()
            if line == "TRUE":
                return result.RESULT_TRUE_PROP
            if line.startswith("FALSE(unreach-call)"):
                return result.RESULT_FALSE_REACH
            if line.startswith("FALSE"):
                return result.RESULT_FALSE_PROP
            if line.startswith("UNKNOWN"):
                if line.startswith("UNKNOWN (timeout)"):
                    return result.RESULT_TIMEOUT
                return result.RESULT_UNKNOWN
        if run.was_timeout:
            return result.RESULT_TIMEOUT
        if run.exit_code.signal:
            return f"{result.RESULT_ERROR} (signal {run.exit_code.signal})"
        code = run.exit_code.value
        if code == 1:
            return f"{result.RESULT_ERROR} (usage)"
        if code == 2:
            return f"{result.RESULT_ERROR} (input)"
        if code == 6:
            return f"{result.RESULT_ERROR} (internal)"
        return f"{result.RESULT_ERROR} (exit code {code})"
