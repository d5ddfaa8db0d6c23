"""``conv_transpose`` (the gradient-shaped "deconvolution") and the shape helpers that
stax-style layer libraries call: ``conv_general_shape_tuple``,
``conv_transpose_shape_tuple`` and ``reduce_window_shape_tuple``."""

import operator

import numpy as np

from .. import _checks
from ._helpers import dilate_dim, padtype_to_pads
from .convolution import conv_dimension_numbers, conv_general_dilated
from .slicing import rev

# JAX's default layouts for conv_transpose: channels last, kernel ...IO.
_DEFAULT_LAYOUTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                    4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def _ints(values):
    return tuple(operator.index(v) for v in values)


def _out_spatial(sizes, windows, strides, pads):
    return tuple((n + lo + hi - w) // s + 1
                 for n, w, s, (lo, hi) in zip(sizes, windows, strides, pads))


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers):
    """The output shape of ``conv_general_dilated`` without dilation or groups."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs = [lhs_shape[i] for i in dn.lhs_spec]
    rhs = [rhs_shape[i] for i in dn.rhs_spec]
    strides = _ints(window_strides)
    pads = padtype_to_pads(lhs[2:], rhs[2:], strides, padding, "conv_general_shape_tuple")
    out = (lhs[0], rhs[0]) + _out_spatial(lhs[2:], rhs[2:], strides, pads)
    return tuple(out[dn.out_spec.index(i)] for i in range(len(out)))


def _transpose_padding(window, stride, padding):
    """The (lo, hi) padding of the dilated input that makes ``conv_transpose`` the
    transpose of a forward convolution padded with ``padding`` ('SAME' or 'VALID')."""
    mode = padding.upper()
    if mode == "SAME":
        total = window + stride - 2
        lo = window - 1 if stride > window - 1 else -(-total // 2)
    elif mode == "VALID":
        total = window + stride - 2 + max(window - stride, 0)
        lo = window - 1
    else:
        raise ValueError(f"lax.conv_transpose: padding must be 'SAME', 'VALID' or a sequence "
                         f"of (low, high) pairs, got {padding!r}")
    return lo, total - lo


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    """The output shape of ``conv_transpose`` (no kernel dilation)."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs = [lhs_shape[i] for i in dn.lhs_spec]
    rhs = [rhs_shape[i] for i in dn.rhs_spec]
    strides = _ints(window_strides)
    if isinstance(padding, str):
        pads = [_transpose_padding(k, s, padding) for k, s in zip(rhs[2:], strides)]
    else:
        pads = [(_checks.index(lo), _checks.index(hi)) for lo, hi in padding]
    spatial = tuple((n - 1) * s - k + 2 + lo + hi
                    for n, k, s, (lo, hi) in zip(lhs[2:], rhs[2:], strides, pads))
    out = (lhs[0], rhs[0]) + spatial
    return tuple(out[dn.out_spec.index(i)] for i in range(len(out)))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    """The output shape of ``reduce_window``; ``padding`` is (lo, hi) pairs."""
    shape = _ints(operand_shape)
    windows = _ints(window_dimensions)
    if base_dilation is not None:
        shape = tuple(dilate_dim(n, d) for n, d in zip(shape, _ints(base_dilation)))
    if window_dilation is not None:
        windows = tuple(dilate_dim(w, d) for w, d in zip(windows, _ints(window_dilation)))
    pads = [(_checks.index(lo), _checks.index(hi)) for lo, hi in padding]
    return _out_spatial(shape, windows, _ints(window_strides), pads)


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None):
    """Transposed convolution: the lhs is dilated by ``strides`` and convolved with the
    kernel, so the output grows where a forward convolution would shrink. With
    ``transpose_kernel=True`` this is the gradient of ``conv_general_dilated`` with
    respect to its input (the kernel is flipped and its I and O axes swapped)."""
    lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
    ndim = len(lhs_shape)
    if dimension_numbers is None:
        if ndim not in _DEFAULT_LAYOUTS:
            raise ValueError(f"lax.conv_transpose: without dimension_numbers the operands must "
                             f"have rank 2 to 5, got lhs shape {lhs_shape}")
        dimension_numbers = _DEFAULT_LAYOUTS[ndim]
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    kernel_spatial = [rhs_shape[i] for i in dn.rhs_spec[2:]]
    rhs_dilation = (1,) * (ndim - 2) if rhs_dilation is None else _ints(rhs_dilation)
    strides = _ints(strides)
    if isinstance(padding, str):
        pads = [_transpose_padding(dilate_dim(k, d), s, padding)
                for k, d, s in zip(kernel_spatial, rhs_dilation, strides)]
    else:
        pads = [(_checks.index(lo), _checks.index(hi)) for lo, hi in padding]
    if transpose_kernel:
        rhs = rev(rhs, tuple(dn.rhs_spec[2:]))
        o, i = dn.rhs_spec[0], dn.rhs_spec[1]
        dn = dn._replace(rhs_spec=(i, o) + tuple(dn.rhs_spec[2:]))
    return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), pads, lhs_dilation=strides,
                                rhs_dilation=rhs_dilation, dimension_numbers=dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)
