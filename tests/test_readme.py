import pathlib
import re


def test_readme_quickstart_runs():
    text = (pathlib.Path(__file__).parent.parent / "README.md").read_text()
    code = re.search(r"## Quickstart\n\n```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})


def test_readme_sharding_example_runs():
    """The sharding example sets the CPU device count before minijax starts, so it runs
    in a process of its own; its loss equals the same steps run unsharded."""
    import subprocess
    import sys
    text = (pathlib.Path(__file__).parent.parent / "README.md").read_text()
    code = re.search(r"Sharding over several devices.*?```python\n(.*?)```", text,
                     re.S).group(1)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    loss, specs = out.stdout.split(" ", 1)
    assert specs.strip() == "P('batch') P()"
    unsharded = code.replace("minijax.device_put(", "(lambda v, s: v)(").replace(
        "print(l, x.sharding.spec, params[0].sharding.spec)", "print(l, 0)")
    ref = subprocess.run([sys.executable, "-c", unsharded], capture_output=True, text=True,
                         timeout=300)
    assert abs(float(loss) - float(ref.stdout.split(" ", 1)[0])) < 1e-9, ref.stderr[-2000:]
