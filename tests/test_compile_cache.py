"""The persistent compilation cache (minijax/backend/compile_cache.py).

Every test uses its own temporary cache directory (config or environment), never the
user's cache.
"""

import itertools
import json
import os
import stat
import subprocess
import sys
import textwrap
import time

import numpy as onp
import pytest

import minijax
from minijax import backend
from minijax.backend import compile_cache
from minijax.config import config
from minijax.core.avals import ShapedArray

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_counter = itertools.count()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh, enabled cache in a temporary directory; yields its path."""
    d = tmp_path / "cache"
    monkeypatch.setattr(config, "compilation_cache", True)
    monkeypatch.setattr(config, "compilation_cache_dir", str(d))
    monkeypatch.setattr(config, "compilation_cache_max_bytes", 1 << 30)
    monkeypatch.setattr(config, "compilation_cache_min_compile_secs", 0.0)
    for k in compile_cache.stats:
        monkeypatch.setitem(compile_cache.stats, k, 0)
    return d


def _program():
    """A program text no other test compiles: adds a unique constant."""
    c = float(next(_counter) + 1000 * os.getpid() % 997) + 0.5
    t = "tensor<3xf32>"
    return c, (f"func.func @main(%a: {t}) -> {t} {{\n"
               f"  %c = stablehlo.constant dense<{c}> : {t}\n"
               f"  %b = stablehlo.add %a, %c : {t}\n"
               f"  return %b : {t}\n}}")


def _run(exe):
    x = onp.array([1.0, 2.0, 3.0], onp.float32)
    device = backend.default_device()
    buf = backend.to_device(x, device)
    handlers = backend.result_handlers([ShapedArray((3,), onp.dtype(onp.float32))], device)
    return onp.asarray(backend.to_host(backend.execute(exe, [buf], handlers)[0]))


def _compile(text):
    return backend.compile_module(text, backend.default_device())


def _entries(d):
    return sorted(p for p in os.listdir(d) if p.endswith(".mjxc")) if d.exists() else []


def _key(text):
    client = backend.get_client()
    options = backend.compile_options(backend.default_device()).SerializeAsString()
    return compile_cache.make_key(text, client, backend.default_device(), options)


def _python(code, env_extra, timeout=120):
    env = dict(os.environ, PYTHONPATH=REPO, **env_extra)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=timeout, cwd=REPO)
    assert out.returncode == 0, out.stderr
    return out.stdout


_JIT_SCRIPT = """
    import json
    import minijax, minijax.numpy as np
    from minijax.backend import compile_cache
    f = minijax.jit(lambda x: np.tanh(x) * 3.0 + 1.0)
    y = f(np.arange(5.0, dtype=np.float32))
    print(json.dumps({"stats": compile_cache.stats, "y": [float(v) for v in y]}))
"""


def test_hit_in_second_process(tmp_path):
    env = {"MINIJAX_CACHE_DIR": str(tmp_path / "c"), "MINIJAX_COMPILATION_CACHE": "1"}
    first = json.loads(_python(_JIT_SCRIPT, env))
    second = json.loads(_python(_JIT_SCRIPT, env))
    assert first["stats"]["misses"] >= 1 and first["stats"]["writes"] >= 1
    assert first["stats"]["hits"] == 0
    assert second["stats"]["hits"] == first["stats"]["writes"]
    assert second["stats"]["misses"] == 0 and second["stats"]["writes"] == 0
    expected = onp.tanh(onp.arange(5.0, dtype=onp.float32)) * 3.0 + 1.0
    onp.testing.assert_allclose(first["y"], expected, rtol=1e-6)
    assert second["y"] == first["y"]


def test_hit_in_same_process_gives_working_executable(cache):
    c, text = _program()
    r1 = _run(_compile(text))
    assert compile_cache.stats["misses"] == 1 and compile_cache.stats["writes"] == 1
    r2 = _run(_compile(text))
    assert compile_cache.stats["hits"] == 1 and compile_cache.stats["misses"] == 1
    onp.testing.assert_array_equal(r1, onp.array([1, 2, 3], onp.float32) + onp.float32(c))
    onp.testing.assert_array_equal(r2, r1)
    assert _entries(cache) == [_key(text) + ".mjxc"]


def _damage_and_recompile(cache, damage):
    c, text = _program()
    _compile(text)
    path = cache / (_key(text) + ".mjxc")
    good = path.read_bytes()
    path.write_bytes(damage(good))
    result = _run(_compile(text))        # must recompile, not crash, not misbehave
    onp.testing.assert_array_equal(result, onp.array([1, 2, 3], onp.float32) + onp.float32(c))
    assert compile_cache.stats["corrupt"] == 1
    assert compile_cache.stats["misses"] == 2 and compile_cache.stats["hits"] == 0
    # replaced by a valid entry: the next compile is a hit
    assert compile_cache.load(_key(text), str(cache)) is not None
    _run(_compile(text))
    assert compile_cache.stats["hits"] == 1


def _flip_payload_byte(data):
    i = len(data) // 2 + 7
    return data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:]


@pytest.mark.parametrize("damage", [
    _flip_payload_byte,
    lambda d: d[:len(d) // 2],                       # truncated payload
    lambda d: d[:20],                                # truncated header
    lambda d: b"",                                   # empty file
    lambda d: b"X" + d[1:],                          # bad magic
], ids=["flipped", "truncated", "header_only", "empty", "magic"])
def test_damaged_entry_is_recompiled_and_replaced(cache, damage):
    _damage_and_recompile(cache, damage)


def test_entry_that_fails_to_deserialize_is_recompiled(cache):
    # a well-formed entry (checksum matches) whose payload is not an executable
    c, text = _program()
    compile_cache.store(_key(text), b"not an executable" * 10, str(cache))
    result = _run(_compile(text))
    onp.testing.assert_array_equal(result, onp.array([1, 2, 3], onp.float32) + onp.float32(c))
    assert compile_cache.stats["corrupt"] == 1 and compile_cache.stats["misses"] == 1
    assert compile_cache.load(_key(text), str(cache)) != b"not an executable" * 10


def test_checksum_and_key_are_checked(cache):
    compile_cache.store("ab" * 32, b"payload", str(cache))
    assert compile_cache.load("ab" * 32, str(cache)) == b"payload"
    # an entry copied under another key's name is not trusted
    os.replace(cache / ("ab" * 32 + ".mjxc"), cache / ("cd" * 32 + ".mjxc"))
    assert compile_cache.load("cd" * 32, str(cache)) is None
    assert compile_cache.stats["corrupt"] == 1


_WRITER = """
    import sys
    from minijax.backend import compile_cache
    d, key, me = sys.argv[1], sys.argv[2], int(sys.argv[3])
    valid = {bytes([i]) * (50_000 + 1000 * i) for i in range(4)}
    bad = 0
    for _ in range(150):
        compile_cache.store(key, bytes([me]) * (50_000 + 1000 * me), d)
        got = compile_cache.load(key, d)
        if got is None or got not in valid:
            bad += 1
    print(bad, compile_cache.stats["corrupt"])
"""


def test_concurrent_writers_of_one_key(tmp_path):
    d = tmp_path / "c"
    key = "ee" * 32
    env = dict(os.environ, PYTHONPATH=REPO)
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(_WRITER), str(d), key,
                               str(i)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=REPO)
             for i in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert out.split() == ["0", "0"], out       # every read saw one whole entry
    assert os.listdir(d) == [key + ".mjxc"]         # no temp files left behind
    payload = compile_cache.load(key, str(d))
    assert payload in {bytes([i]) * (50_000 + 1000 * i) for i in range(4)}


def test_directory_is_user_only(tmp_path, monkeypatch):
    d = tmp_path / "a" / "b" / "minijax"
    monkeypatch.setattr(config, "compilation_cache_dir", str(d))
    old = os.umask(0)                                # the mode must not depend on the umask
    try:
        compile_cache.store("12" * 32, b"x", None)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(d / ("12" * 32 + ".mjxc")).st_mode) == 0o600


def test_lru_eviction_at_tiny_limit(cache, monkeypatch):
    d = str(cache)
    keys = [f"{i:02x}" * 32 for i in range(5)]
    now = time.time()
    for i, k in enumerate(keys[:4]):
        compile_cache.store(k, bytes(1000), d)
        os.utime(os.path.join(d, k + ".mjxc"), (now - 100 + i, now - 100 + i))
    assert compile_cache.load(keys[0], d) is not None     # hit: keys[0] becomes recent
    entry = os.path.getsize(os.path.join(d, keys[0] + ".mjxc"))
    monkeypatch.setattr(config, "compilation_cache_max_bytes", 3 * entry)
    compile_cache.store(keys[4], bytes(1000), d)
    left = {p[:-5] for p in _entries(cache)}
    assert left == {keys[0], keys[3], keys[4]}            # keys[1], keys[2] were oldest
    assert compile_cache.stats["evicted"] == 2
    assert sum(os.path.getsize(os.path.join(d, k + ".mjxc")) for k in left) <= 3 * entry


def test_evict_removes_oldest_first(tmp_path):
    d = tmp_path / "c"
    now = time.time()
    for i in range(4):
        compile_cache.store(f"{i:02x}" * 32, bytes(100), str(d))
        os.utime(d / (f"{i:02x}" * 32 + ".mjxc"), (now - i, now - i))   # 00 newest
    total = compile_cache.evict(0, str(d))
    assert total == 0 and _entries(d) == []


def test_disable_via_config(cache):
    minijax.config.update("compilation_cache", False)
    try:
        c, text = _program()
        result = _run(_compile(text))
    finally:
        minijax.config.update("compilation_cache", True)
    onp.testing.assert_array_equal(result, onp.array([1, 2, 3], onp.float32) + onp.float32(c))
    assert _entries(cache) == []
    assert compile_cache.stats["misses"] == 0 and compile_cache.stats["writes"] == 0


def test_disable_via_env(tmp_path):
    d = tmp_path / "c"
    out = json.loads(_python(_JIT_SCRIPT, {"MINIJAX_CACHE_DIR": str(d),
                                           "MINIJAX_COMPILATION_CACHE": "0"}))
    assert out["stats"]["misses"] == 0 and out["stats"]["writes"] == 0
    assert not d.exists()


def test_dir_from_config_env_and_xdg(monkeypatch, tmp_path):
    monkeypatch.setattr(config, "compilation_cache_dir", None)
    monkeypatch.setenv("MINIJAX_CACHE_DIR", str(tmp_path / "env"))
    assert compile_cache.cache_dir() == str(tmp_path / "env")
    monkeypatch.delenv("MINIJAX_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert compile_cache.cache_dir() == str(tmp_path / "xdg" / "minijax")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert compile_cache.cache_dir() == str(tmp_path / "home" / ".cache" / "minijax")
    monkeypatch.setattr(config, "compilation_cache_dir", str(tmp_path / "cfg"))
    assert compile_cache.cache_dir() == str(tmp_path / "cfg")


def test_key_covers_program_and_options():
    _, a = _program()
    _, b = _program()
    client, device = backend.get_client(), backend.default_device()
    opts = backend.compile_options(device).SerializeAsString()
    assert opts == backend.compile_options(device).SerializeAsString()
    assert compile_cache.make_key(a, client, device, opts) == _key(a)
    assert compile_cache.make_key(a, client, device, opts) != _key(b)
    other = backend.compile_options(device)
    other.num_replicas = 2
    assert compile_cache.make_key(a, client, device, other.SerializeAsString()) != _key(a)
    second = backend.devices()[1]   # another device's assignment is another program
    assert (backend.compile_options(second).SerializeAsString() != opts)


def test_key_covers_xla_flags(monkeypatch):
    _, a = _program()
    before = _key(a)
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_enable_fast_math=true")
    assert _key(a) != before


def test_unusable_directory_does_not_fail_compiles(cache, monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setattr(config, "compilation_cache_dir", str(blocker / "sub"))
    c, text = _program()
    result = _run(_compile(text))
    onp.testing.assert_array_equal(result, onp.array([1, 2, 3], onp.float32) + onp.float32(c))
    assert compile_cache.stats["errors"] >= 1   # the failed read and the failed write
