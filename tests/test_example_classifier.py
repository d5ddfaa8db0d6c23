"""examples/train_classifier.py (minijax.random, nn, jit, grad, vmap) trains."""

import importlib.util
import pathlib


def test_train_classifier_example_learns(capsys):
    path = pathlib.Path(__file__).parent.parent / "examples" / "train_classifier.py"
    spec = importlib.util.spec_from_file_location("train_classifier", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    final_loss, final_accuracy = example.main(steps=1000)
    out = capsys.readouterr().out
    initial_loss = float(out.split("initial loss ")[1].split(",")[0])
    assert final_loss < 0.5 * initial_loss
    assert final_accuracy > 0.9
    assert "per-example gradient norm" in out
