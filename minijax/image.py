"""``minijax.image``: resizing and resampling images (JAX's ``jax.image``).

Resampling one dimension is linear: each output sample is a weighted sum of the input
samples along that dimension. The weights are an (input size, output size) matrix: the
kernel evaluated at the distances between the input's pixel centres and each output
pixel's centre mapped back into the input (pixel ``i`` is centred at ``i + 0.5``). The
image is contracted with one such matrix per resampled dimension (``einsum``), so it
traces, batches and differentiates like any product, in the image and in a traced scale
and translation alike. Nearest-neighbour resizing is a gather with indices fixed by the
static shapes.
"""

import enum

import numpy as np

from . import _checks, dtypes, lax
from . import numpy as jnp

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]


class ResizeMethod(enum.Enum):
    """How ``resize`` and ``scale_and_translate`` resample.

    NEAREST: nearest neighbour (``resize`` only). LINEAR: the triangle kernel.
    LANCZOS3, LANCZOS5: Lanczos kernels of radius 3 and 5. CUBIC: Keys' cubic kernel
    (a = -0.5). CUBIC_PYTORCH: PyTorch's bicubic (CUBIC when antialiasing; without, the
    a = -0.75 kernel with the edges repeated). AREA: the overlap of each output pixel
    with the input pixels (a box filter).
    """

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s):
        """The method a string names ('nearest', 'linear', 'bilinear', 'cubic', ...)."""
        method = _NAMES.get(s) if isinstance(s, str) else None
        if method is None:
            raise ValueError(f'Unknown resize method "{s}"; use one of {sorted(_NAMES)}')
        return method


_NAMES = {
    "nearest": ResizeMethod.NEAREST,
    "linear": ResizeMethod.LINEAR, "bilinear": ResizeMethod.LINEAR,
    "trilinear": ResizeMethod.LINEAR, "triangle": ResizeMethod.LINEAR,
    "lanczos3": ResizeMethod.LANCZOS3, "lanczos5": ResizeMethod.LANCZOS5,
    "cubic": ResizeMethod.CUBIC, "bicubic": ResizeMethod.CUBIC,
    "tricubic": ResizeMethod.CUBIC,
    "cubic-pytorch": ResizeMethod.CUBIC_PYTORCH, "bicubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
    "area": ResizeMethod.AREA,
}


def _method(name, method):
    if isinstance(method, ResizeMethod):
        return method
    if isinstance(method, str):
        return ResizeMethod.from_string(method)
    raise TypeError(f"{name}: method must be a ResizeMethod or one of the strings "
                    f"{sorted(_NAMES)}, got {method!r}")


# ---- kernels: functions of the distance x >= 0 (in input pixels, already widened) ------

def _triangle(x):
    return jnp.maximum(0, 1 - x)


def _cubic(a):
    """The cubic convolution kernel with parameter ``a`` (Keys: -0.5; OpenCV: -0.75)."""
    def kernel(x):
        near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
        far = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
        return jnp.where(x >= 2.0, 0.0, jnp.where(x >= 1.0, far, near))
    return kernel


def _lanczos(radius):
    def kernel(x):
        # sin(pi x) sin(pi x / r) r / (pi x)**2 is 0/0 at 0: below 1e-3 it is taken to be
        # 1 (as JAX does), and the division reads a safe x so no nan reaches a gradient
        big = x > 1e-3
        safe = jnp.where(big, x, 1.0)
        y = radius * jnp.sin(np.pi * safe) * jnp.sin(np.pi * safe / radius)
        return jnp.where(x > radius, 0.0, jnp.where(big, y / (np.pi ** 2 * safe ** 2), 1.0))
    return kernel


# method: (radius, kernel); AREA has no kernel of the distance
_KERNELS = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.0)),
    ResizeMethod.CUBIC: (2, _cubic(-0.5)),
    ResizeMethod.CUBIC_PYTORCH: (2, _cubic(-0.75)),
}

# a column whose weights sum to less than this has no input under it: it is zeroed
_TINY_TOTAL = 1000.0 * float(np.finfo(np.float32).eps)


def _fold_edges(w, pad, size):
    """Add the rows of ``w`` for the ``pad`` positions beyond each edge into the edge
    pixel's row (the edges repeated)."""
    if size == 0:
        return w[:0]
    if size == 1:
        return jnp.sum(w, axis=0, keepdims=True)
    low = jnp.sum(w[:pad + 1], axis=0, keepdims=True)
    high = jnp.sum(w[pad + size - 1:], axis=0, keepdims=True)
    return jnp.concatenate([low, w[pad + 1:pad + size - 1], high])


def _weights(in_size, out_size, scale, translation, method, antialias, dtype):
    """The (in_size, out_size) matrix resampling one dimension: output pixel ``i`` reads
    the input around ``(i + 0.5 - translation) / scale - 0.5``."""
    inv_scale = 1.0 / scale
    outputs = jnp.arange(out_size, dtype=dtype)
    centres = (outputs + 0.5) * inv_scale - translation * inv_scale - 0.5
    repeat_edges = method is ResizeMethod.CUBIC_PYTORCH and not antialias
    if method is ResizeMethod.AREA:
        left = outputs * inv_scale - translation * inv_scale
        right = left + inv_scale
        pixels = jnp.arange(in_size, dtype=dtype)[:, None]
        w = jnp.maximum(0.0, jnp.minimum(right[None, :], pixels + 1.0)
                        - jnp.maximum(left[None, :], pixels))
    else:
        radius, kernel = _KERNELS[method]
        pad = radius if repeat_edges else 0
        if not antialias:
            width = 1.0
        elif isinstance(inv_scale, float):
            width = max(inv_scale, 1.0)
        else:
            width = jnp.maximum(inv_scale, 1.0)
        # downsampling with antialiasing widens the kernel by 1 / scale: a low-pass filter
        positions = jnp.arange(-pad, in_size + pad, dtype=dtype)
        w = kernel(jnp.abs(centres[None, :] - positions[:, None]) / width)
        if pad:
            w = _fold_edges(w, pad, in_size)
    # near the edges part of the kernel falls outside the input: normalise what is left
    total = jnp.sum(w, axis=0, keepdims=True)
    w = jnp.where(jnp.abs(total) > _TINY_TOTAL, w / jnp.where(total != 0, total, 1), 0)
    if not repeat_edges:  # output pixels whose centre maps outside the input are zero
        inside = (centres >= -0.5) & (centres <= in_size - 0.5)
        w = jnp.where(inside[None, :], w, 0)
    return w


def _resample(image, shape, dims, scales, translations, method, antialias, precision,
              dtype):
    if not dims:
        return image
    if method is ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC  # PyTorch's antialiased bicubic is Keys' kernel
    ndim = image.ndim
    operands = [image, list(range(ndim))]
    out_labels = list(range(ndim))
    for k, (d, scale, translation) in enumerate(zip(dims, scales, translations)):
        w = _weights(image.shape[d], shape[d], scale, translation, method, antialias, dtype)
        operands += [w.astype(image.dtype), [d, ndim + k]]
        out_labels[d] = ndim + k
    return jnp.einsum(*operands, out_labels, precision=precision)


def _inexact_dtype(dtype):
    """JAX's inexact dtype for ``dtype``: float32 for bools and integers of up to 32 bits,
    the default float for 64-bit integers."""
    dtype = np.dtype(dtype)
    if dtypes.is_inexact(dtype):
        return dtype
    if dtypes.is_integer(dtype) and dtype.itemsize == 8:
        return dtypes.default_float()
    return np.dtype(np.float32)


def _check_arguments(name, image, shape, method, antialias, precision):
    image = jnp.asarray(image)
    shape = _checks.shape(shape, f"{name}: shape")
    if len(shape) != image.ndim:
        raise ValueError(f"{name}: shape must have one entry per dimension of the image, "
                         f"got {shape} for an image of shape {image.shape}")
    method = _method(name, method)
    antialias = (bool(antialias) if isinstance(antialias, np.bool_)
                 else _checks.flag(antialias, f"{name}: antialias"))
    lax.precision.canonicalize_precision(precision, name)
    return image, shape, method, antialias


def _nearest_indices(in_size, out_size):
    """Input index of each output pixel: the pixel under its centre, floor((i + 0.5) * in
    / out), in exact integer arithmetic. (JAX computes it in float32: the same indices
    while in * out < 2**23; beyond, its result depends on how XLA divides.)"""
    i = np.arange(out_size, dtype=np.int64)
    return ((2 * i + 1) * in_size // (2 * out_size)).astype(np.int32)


def resize(image, shape, method, antialias=True, precision=lax.Precision.HIGHEST):
    """Resize ``image`` to ``shape`` (one size per dimension; dimensions whose size is
    unchanged, such as batch and channel dimensions, are not resampled).

    ``method``: a ``ResizeMethod`` or its name ('nearest', 'linear', 'cubic', 'lanczos3',
    'lanczos5', 'cubic-pytorch', 'area' and their aliases). ``antialias`` widens the
    kernel when downsampling. ``precision`` is passed to the contractions. Nearest keeps
    the image's dtype (and ignores ``antialias``); the other methods return floats.
    """
    image, shape, method, antialias = _check_arguments("resize", image, shape, method,
                                                       antialias, precision)
    for d, (m, n) in enumerate(zip(image.shape, shape)):
        if m == 0 and n != 0:
            raise ValueError(f"resize: cannot resize dimension {d} of size 0 to size {n}")
    dims = [d for d in range(image.ndim) if image.shape[d] != shape[d]]
    if method is ResizeMethod.NEAREST:
        for d in dims:
            image = jnp.take(image, _nearest_indices(image.shape[d], shape[d]), axis=d)
        return image
    image = image.astype(_inexact_dtype(image.dtype))
    # dimensions of unchanged size are skipped: every kernel interpolates, so the identity
    # warp returns the input
    scales = [shape[d] / image.shape[d] if shape[d] else 1.0 for d in dims]
    return _resample(image, shape, dims, scales, [0.0] * len(dims), method, antialias,
                     precision, dtypes.default_float())


def scale_and_translate(image, shape, spatial_dims, scale, translation, method,
                        antialias=True, precision=lax.Precision.HIGHEST):
    """Resample ``image`` onto ``shape`` under the warp ``x -> x * scale + translation``
    along each of ``spatial_dims`` (``scale`` and ``translation``: one value per spatial
    dimension, possibly traced). Output pixels that map outside the input are zero.

    ``method``, ``antialias`` and ``precision`` are as in ``resize`` (nearest is not
    supported here). Returns floats.
    """
    image, shape, method, antialias = _check_arguments("scale_and_translate", image, shape,
                                                       method, antialias, precision)
    if method is ResizeMethod.NEAREST:
        raise ValueError("scale_and_translate: nearest-neighbour resampling is not "
                         "supported; use resize, or another method")
    if hasattr(spatial_dims, "__iter__"):
        spatial_dims = tuple(spatial_dims)
    dims = _checks.axes(spatial_dims, image.ndim, "scale_and_translate: spatial_dims")
    scale, translation = jnp.asarray(scale), jnp.asarray(translation)
    for label, value in (("scale", scale), ("translation", translation)):
        if value.shape != (len(dims),):
            raise ValueError(f"scale_and_translate: {label} must have one entry per spatial "
                             f"dimension ({len(dims)}), got shape {value.shape}")
    if jnp.iscomplexobj(scale) or jnp.iscomplexobj(translation):
        raise TypeError("scale_and_translate: scale and translation must be real")
    for d in range(image.ndim):
        if d not in dims and shape[d] != image.shape[d]:
            raise ValueError(f"scale_and_translate: dimension {d} is not spatial, so its "
                             f"size cannot change ({image.shape[d]} to {shape[d]})")
    dtype = _inexact_dtype(jnp.result_type(scale, translation))
    scale, translation = scale.astype(dtype), translation.astype(dtype)
    image = image.astype(_inexact_dtype(image.dtype))
    return _resample(image, shape, dims, [scale[k] for k in range(len(dims))],
                     [translation[k] for k in range(len(dims))], method, antialias,
                     precision, dtype)
