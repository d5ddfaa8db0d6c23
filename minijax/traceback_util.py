"""Tracebacks that show the user's code: minijax's own frames are removed from an
exception's traceback when it leaves a public API function (``jit``, ``grad``,
``vmap``, ...). ``config.update("traceback_filtering", "off")`` (or the environment
variable ``MINIJAX_TRACEBACK_FILTERING=off``) keeps every frame."""

import functools
import os
import sys
import types
import warnings

from .config import config

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def is_internal(filename):
    return filename.startswith(PACKAGE_DIR)


_internal_files = {}   # co_filename -> is_internal (tracing asks once per equation)


def user_frame_summary():
    """``file:line`` of the innermost caller outside minijax (None if there is none)."""
    frame = sys._getframe(1)
    known = _internal_files
    while frame is not None:
        filename = frame.f_code.co_filename
        internal = known.get(filename)
        if internal is None:
            internal = known[filename] = is_internal(filename)
        if not internal:
            break
        frame = frame.f_back
    if frame is None:
        return None
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


def warn_in_user_code(message, category):
    """``warnings.warn`` located at the innermost caller outside minijax, where the user's
    line is (as NumPy's own warnings point at the caller's line)."""
    frame, level = sys._getframe(1), 2
    while frame is not None and is_internal(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def filter_traceback(tb):
    """``tb`` without minijax's frames (the user's frames, in order)."""
    kept = []
    while tb is not None:
        if not is_internal(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def api_boundary(fun):
    """Decorate a public entry point: exceptions leave it with filtered tracebacks."""
    @functools.wraps(fun)
    def entry(*args, **kwargs):
        try:
            return fun(*args, **kwargs)
        except Exception as e:
            if config.traceback_filtering == "off":
                raise
            raise e.with_traceback(filter_traceback(e.__traceback__))
    return entry
