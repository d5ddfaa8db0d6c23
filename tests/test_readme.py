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


def _readme_block(after):
    text = (pathlib.Path(__file__).parent.parent / "README.md").read_text()
    return re.search(re.escape(after) + r".*?```python\n(.*?)```", text, re.S).group(1)


def test_readme_shard_map_step_equals_the_jit_step():
    """The shard_map form of the sharding example, run after it in the same process,
    reaches the same loss and parameters as the jit step."""
    import subprocess
    import sys
    code = (_readme_block("Sharding over several devices")
            + _readme_block("The same step written per device with `shard_map`")
            + """
params2 = minijax.device_put([rng.normal(size=(16, 32)), rng.normal(size=(32, 1))], replicated)
rng = onp.random.default_rng(0)
p1 = minijax.device_put([rng.normal(size=(16, 32)), rng.normal(size=(32, 1))], replicated)
p2 = p1
for _ in range(3):
    l1, p1 = step(p1, x, y)
    l2, p2 = step_per_device(p2, x, y)
onp.testing.assert_allclose(float(l2), float(l1), rtol=1e-12)
for a, b in zip(p2, p1):
    onp.testing.assert_allclose(onp.asarray(a), onp.asarray(b), rtol=1e-12, atol=1e-12)
print("same")
""")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("same")


def test_readme_two_process_example_runs():
    import socket
    import subprocess
    import sys
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = _readme_block("Two processes on one machine").replace("12345", str(port))
    env = {**__import__("os").environ, "MINIJAX_CPU_DEVICE_COUNT": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(rank)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rank in (0, 1)]
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err[-2000:]
            outs.append(out.strip().splitlines()[-1])   # (after gloo's own lines)
    finally:
        for p in procs:
            p.kill()
    assert sorted(outs) == ["0 [3. 3. 3.]", "1 [3. 3. 3.]"]
