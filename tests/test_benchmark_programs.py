"""benchmarks/programs: every program runs with minijax.numpy and agrees with NumPy."""

import copy
import importlib.util
import json
import pathlib

import numpy as onp
import pytest

import minijax.numpy as mnp
from minijax.runtime.array import Array

_RUN = pathlib.Path(__file__).parent.parent / "benchmarks" / "programs" / "run.py"
_spec = importlib.util.spec_from_file_location("benchmark_programs_run", _RUN)
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)          # puts benchmarks/ on sys.path for ``programs``
programs = runner.programs


def _leaves(tree):
    if isinstance(tree, dict):
        tree = list(tree.values())
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _leaves(t)]
    return [tree]


@pytest.mark.parametrize("name", programs.NAMES)
def test_program_agrees_with_numpy(name):
    mod = programs.load(name)
    args = mod.inputs(tiny=True)
    saved = copy.deepcopy(args)
    want = runner.to_host(mod.run(onp, **args))
    got = mod.run(mnp, **args)
    # the program really ran on minijax arrays, and left its (host) inputs alone
    assert any(isinstance(leaf, Array) for leaf in _leaves(got))
    assert runner.differences(runner.to_host(runner.block(got)), want) == []
    for key, value in saved.items():
        for a, b in zip(_leaves(value), _leaves(args[key])):
            onp.testing.assert_array_equal(a, b)


def test_differences_reports_a_wrong_value_and_shape():
    want = [onp.ones(3), {"a": onp.arange(2)}]
    assert runner.differences([onp.ones(3), {"a": onp.arange(2)}], want) == []
    assert runner.differences([onp.ones(3) + 1e-3, {"a": onp.arange(2)}], want) != []
    assert runner.differences([onp.ones(4), {"a": onp.arange(2)}], want) != []
    assert runner.differences([onp.ones(3), {"a": onp.arange(1, 3)}], want) != []


def test_runner_prints_a_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "programs.json"
    assert runner.main(["--only", "heat_stencil", "--repeats", "1", "--json", str(out)]) == 0
    assert "| heat_stencil |" in capsys.readouterr().out
    row = json.loads(out.read_text())["programs"]["heat_stencil"]
    assert row["ratio"] == pytest.approx(row["minijax_s"] / row["numpy_s"])
