# C declarations of runtime/fast_functions.py (Cython's augmenting .pxd, DESIGN 10).
cimport cython
cimport numpy

from minijax.runtime.array cimport (Array as ArrayCore, _holding, canonical_dtype,
                                    canonical_scalar_type, import_numpy_c_api,
                                    ndarray_dtype)

cdef object _ABSENT, _warn
cdef list numpy_flag   # (a C variable: the closures below read it on every call)
cdef type _ndarray, _Array

# NumPy's C API on an ndarray ``a`` (the .py spells them as method calls for the
# uncompiled run; import_numpy_c_api (array.pxd), called once at import, sets the API
# up for this module).
# ndarray_known_finite: every element of ``a`` is known to be finite (an integer or bool
# dtype, or a native float32 or float64 array in C order whose values were checked).
cdef extern from *:
    """
    #include <float.h>
    static PyObject *minijax_ndarray_view(PyObject *a) {
        return PyArray_View((PyArrayObject *)a, NULL, NULL);
    }
    static PyObject *minijax_ndarray_copy(PyObject *a) {
        return PyArray_NewCopy((PyArrayObject *)a, NPY_KEEPORDER);
    }
    /* 1 if every value of ``arr`` (of float type ``from``) narrowed to float type
       ``to`` is finite and normal there, or zero, or infinite: no flag is set */
    static int minijax_narrows_quietly(PyArrayObject *arr, int from, int to) {
        double max, tiny, v;
        npy_intp i, n = PyArray_SIZE(arr);
        if (to == NPY_FLOAT && from == NPY_DOUBLE) { max = FLT_MAX; tiny = FLT_MIN; }
        else if (to == NPY_HALF && (from == NPY_DOUBLE || from == NPY_FLOAT)) {
            max = 65504.0;   /* (float16's largest and smallest normal) */
            tiny = 6.103515625e-05;
        }
        else return 0;
        if (!PyArray_IS_C_CONTIGUOUS(arr) || !PyArray_ISALIGNED(arr)
                || !PyArray_ISNBO(PyArray_DESCR(arr)->byteorder)) {
            return 0;
        }
        for (i = 0; i < n; i++) {
            v = from == NPY_DOUBLE ? fabs(((const double *)PyArray_DATA(arr))[i])
                : fabs((double)((const float *)PyArray_DATA(arr))[i]);
            if (!(isinf(v) || v == 0.0 || (v >= tiny && v <= max))) return 0;
        }
        return 1;
    }
    /* a.astype(dtype) where the cast sets no floating-point flag (a safe cast, one
       among integers and bools, from them to float32, float64 or complex, or a float
       narrowed quietly); None where it might */
    static PyObject *minijax_ndarray_quiet_cast(PyObject *a, PyObject *dtype) {
        PyArrayObject *arr = (PyArrayObject *)a;
        PyArray_Descr *to = (PyArray_Descr *)dtype;
        int from_num = PyArray_DESCR(arr)->type_num, to_num = to->type_num;
        PyObject *out;
        int from_exact = PyTypeNum_ISINTEGER(from_num) || PyTypeNum_ISBOOL(from_num);
        if (!(PyArray_CanCastTypeTo(PyArray_DESCR(arr), to, NPY_SAFE_CASTING)
              || (from_exact && (PyTypeNum_ISINTEGER(to_num) || PyTypeNum_ISBOOL(to_num)
                                 || PyTypeNum_ISCOMPLEX(to_num) || to_num == NPY_FLOAT
                                 || to_num == NPY_DOUBLE))
              || minijax_narrows_quietly(arr, from_num, to_num))) {
            Py_RETURN_NONE;
        }
        /* NumPy's astype: a new array in a's order 'K', assigned */
        Py_INCREF(dtype);   /* (PyArray_NewLikeArray steals it) */
        out = PyArray_NewLikeArray(arr, NPY_KEEPORDER, to, 0);
        if (out != NULL && PyArray_CopyInto((PyArrayObject *)out, arr) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        return out;
    }
    static int minijax_ndarray_known_finite(PyObject *a) {
        PyArrayObject *arr = (PyArrayObject *)a;
        PyArray_Descr *descr = PyArray_DESCR(arr);
        int type_num = descr->type_num;
        npy_intp i, n = 1;
        if (PyTypeNum_ISINTEGER(type_num) || PyTypeNum_ISBOOL(type_num)) return 1;
        if ((type_num != NPY_DOUBLE && type_num != NPY_FLOAT) || !PyArray_IS_C_CONTIGUOUS(arr)
                || !PyArray_ISALIGNED(arr) || !PyArray_ISNBO(descr->byteorder)) {
            return 0;
        }
        for (i = 0; i < PyArray_NDIM(arr); i++) n *= PyArray_DIM(arr, i);
        if (type_num == NPY_DOUBLE) {
            const double *p = (const double *)PyArray_DATA(arr);
            for (i = 0; i < n; i++) {
                if (!isfinite(p[i])) return 0;
            }
        } else {
            const float *p = (const float *)PyArray_DATA(arr);
            for (i = 0; i < n; i++) {
                if (!isfinite(p[i])) return 0;
            }
        }
        return 1;
    }
    /* row r of minijax_sorted_rows_tie, of elements of type T */
    #define MINIJAX_ROW_TIES(T) do {                                    \
            const T *row = (const T *)PyArray_DATA(a) + r * n;           \
            T prev = row[order[0]], v;                                   \
            if (isnan(row[order[n - 1]])) return 1;                      \
            for (j = 1; j < n; j++) {                                    \
                if ((npy_uintp)order[j] >= (npy_uintp)n) return -1;      \
                v = row[order[j]];                                       \
                if (v == prev) return 1;                                 \
                prev = v;                                                \
            }                                                            \
        } while (0)
    /* Whether the rows (along the last axis) of ``a``, a native float64 or float32
       array, read in the order of ``idx`` (their argsort, intp, of a's shape) have two
       equal neighbours or end in a NaN (NaNs sort last): 1 or 0; -1 where the arrays
       are not both C-contiguous and aligned, or idx is not such an argsort. */
    static int minijax_sorted_rows_tie(PyObject *a_obj, PyObject *idx_obj) {
        PyArrayObject *a = (PyArrayObject *)a_obj, *idx = (PyArrayObject *)idx_obj;
        PyArray_Descr *descr = PyArray_DESCR(a), *idescr = PyArray_DESCR(idx);
        int type_num = descr->type_num, nd = PyArray_NDIM(a), d;
        npy_intp n, rows, r, j;
        const npy_intp *order = (const npy_intp *)PyArray_DATA(idx);
        if ((type_num != NPY_DOUBLE && type_num != NPY_FLOAT) || nd < 1
                || PyArray_NDIM(idx) != nd || idescr->type_num != NPY_INTP
                || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_IS_C_CONTIGUOUS(idx)
                || !PyArray_ISALIGNED(a) || !PyArray_ISALIGNED(idx)
                || !PyArray_ISNBO(descr->byteorder) || !PyArray_ISNBO(idescr->byteorder)) {
            return -1;
        }
        for (d = 0; d < nd; d++) {
            if (PyArray_DIM(a, d) != PyArray_DIM(idx, d)) return -1;
        }
        n = PyArray_DIM(a, nd - 1);
        if (n == 0) return 0;
        rows = PyArray_SIZE(a) / n;
        for (r = 0; r < rows; r++, order += n) {
            if ((npy_uintp)order[0] >= (npy_uintp)n || (npy_uintp)order[n - 1] >= (npy_uintp)n)
                return -1;   /* (an index out of the row: not an argsort) */
            if (type_num == NPY_DOUBLE) MINIJAX_ROW_TIES(double);
            else MINIJAX_ROW_TIES(float);
        }
        return 0;
    }
    """
    object ndarray_view "minijax_ndarray_view"(object a)
    object ndarray_copy "minijax_ndarray_copy"(object a)
    object ndarray_quiet_cast "minijax_ndarray_quiet_cast"(object a, object dtype)
    bint ndarray_known_finite "minijax_ndarray_known_finite"(object a)
    int sorted_rows_tie "minijax_sorted_rows_tie"(object a, object idx)


@cython.locals(arr=ArrayCore)
cdef bint _is_itself(object a)
@cython.locals(arr=ArrayCore)
cdef object _strong_ndarray(object a)
@cython.locals(arr=ArrayCore)
cdef object _converted(object a, object d)
cdef object _value_array(object x, object t)
cdef bint _only_numbers(object seq, int depth) except -1
cdef list _strong_values(tuple args, object scalar_type_class)
@cython.locals(arr=ArrayCore)
cdef object _strong_dtype(object a, object scalar_type_class)
cdef object _known_dtype(object x, object scalar_type_class)
cdef object _python_scalar_type(object x)
cdef bint _finite(object x) except -1
