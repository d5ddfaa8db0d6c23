# C declarations of runtime/numpy_dispatch.py (Cython's augmenting .pxd, DESIGN 10): the
# Array's fields are read as C fields where the wrappers read an operand's host value.
cimport cython

# (the C type under another name: the .py imports the Python name ``Array``)
from minijax.runtime.array cimport (Array as ArrayCore, _current_host, _holding, _link, _make,
                                    as_view_of, direct_write_target, host_indexing,
                                    _view_root, _view_snapshot, canonical_dtype,
                                    canonical_scalar_type, given, ndarray_base,
                                    ndarray_dtype, ndarray_writeable,
                                    overlapping_or_read_only, sole_source, strong_host,
                                    ufunc_in_place, view_link, view_result,
                                    _view_holding, ndarray_bounds_overlap, ndarray_ndim,
                                    ndarray_size)

# The base of minijax's ufunc objects, a C type: calling an instance forwards its
# arguments as they came (vectorcall) to the dispatching function it was given, where a
# Python class's __call__ (even a static method) costs a type lookup, an argument tuple
# and a second call. Python subclasses get the fast call from ``enable_vectorcall``
# (CPython 3.11 passes it on only to immutable types).
cdef extern from *:
    """
    #include <structmember.h>
    typedef struct {
        PyObject_HEAD
        vectorcallfunc vectorcall;
        PyObject *target;
        PyObject *positional;   /* a _NumpyCall, or NULL */
    } minijax_Forwarder;

    /* _positional_call, and the marker of an argument not given */
    static PyObject *(*minijax_positional_call)(PyObject *, PyObject *, PyObject *) = NULL;
    static PyObject *minijax_absent = NULL;

    static PyObject *minijax_forwarder_call(PyObject *self, PyObject *const *args,
                                            size_t nargsf, PyObject *kwnames) {
        PyObject *target = ((minijax_Forwarder *)self)->target;
        PyObject *positional = ((minijax_Forwarder *)self)->positional;
        Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
        if (positional != NULL && kwnames == NULL && nargs <= 2)
            return minijax_positional_call(positional,
                                           nargs > 0 ? args[0] : minijax_absent,
                                           nargs > 1 ? args[1] : minijax_absent);
        if (target == NULL) {
            PyErr_SetString(PyExc_TypeError, "this function or ufunc object was not initialized");
            return NULL;
        }
        return PyObject_Vectorcall(target, args, nargsf, kwnames);
    }

    static PyObject *minijax_forwarder_new(PyTypeObject *type, PyObject *args,
                                           PyObject *kwds) {
        minijax_Forwarder *self = (minijax_Forwarder *)type->tp_alloc(type, 0);
        if (self != NULL) self->vectorcall = minijax_forwarder_call;
        return (PyObject *)self;
    }

    static void minijax_forwarder_dealloc(PyObject *self) {
        PyTypeObject *type = Py_TYPE(self);
        Py_CLEAR(((minijax_Forwarder *)self)->target);
        Py_CLEAR(((minijax_Forwarder *)self)->positional);
        type->tp_free(self);
        Py_DECREF(type);   /* (instances of a heap type hold a reference to it) */
    }

    static PyMemberDef minijax_forwarder_members[] = {
        {"__vectorcalloffset__", T_PYSSIZET, offsetof(minijax_Forwarder, vectorcall),
         READONLY, NULL},
        {NULL}
    };

    static PyType_Slot minijax_forwarder_slots[] = {
        {Py_tp_new, (void *)minijax_forwarder_new},
        {Py_tp_dealloc, (void *)minijax_forwarder_dealloc},
        {Py_tp_call, (void *)PyVectorcall_Call},
        {Py_tp_members, (void *)minijax_forwarder_members},
        {Py_tp_doc, (void *)"Calls forward to the function set with forward_to."},
        {0, NULL}
    };

    static PyType_Spec minijax_forwarder_spec = {
        "minijax.runtime.numpy_dispatch.Forwarder", sizeof(minijax_Forwarder), 0,
        Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_VECTORCALL,
        minijax_forwarder_slots
    };

    static PyObject *minijax_forwarder_type = NULL;

    static PyObject *minijax_make_forwarder_type(void) {
        if (minijax_forwarder_type == NULL)
            minijax_forwarder_type = PyType_FromSpec(&minijax_forwarder_spec);
        Py_XINCREF(minijax_forwarder_type);
        return minijax_forwarder_type;
    }

    static int minijax_forward_to(PyObject *self, PyObject *target, PyObject *positional) {
        if (minijax_forwarder_type == NULL ||
                !PyObject_TypeCheck(self, (PyTypeObject *)minijax_forwarder_type)) {
            PyErr_SetString(PyExc_TypeError, "forward_to: not a Forwarder");
            return -1;
        }
        if (positional != Py_None && minijax_positional_call == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "forward_to: no positional call set");
            return -1;
        }
        Py_INCREF(target);
        Py_XSETREF(((minijax_Forwarder *)self)->target, target);
        if (positional == Py_None) {
            Py_CLEAR(((minijax_Forwarder *)self)->positional);
        } else {
            Py_INCREF(positional);
            Py_XSETREF(((minijax_Forwarder *)self)->positional, positional);
        }
        return 0;
    }

    static void minijax_set_positional_call(
            PyObject *(*call)(PyObject *, PyObject *, PyObject *), PyObject *absent) {
        Py_INCREF(absent);
        minijax_absent = absent;
        minijax_positional_call = call;
    }

    static int minijax_enable_vectorcall(PyObject *cls) {
        PyTypeObject *type = (PyTypeObject *)cls;
        if (minijax_forwarder_type == NULL || !PyType_Check(cls) ||
                !PyType_IsSubtype(type, (PyTypeObject *)minijax_forwarder_type) ||
                type->tp_call != PyVectorcall_Call || type->tp_vectorcall_offset !=
                offsetof(minijax_Forwarder, vectorcall)) {
            PyErr_SetString(PyExc_TypeError, "enable_vectorcall: a subclass of Forwarder "
                            "that does not define __call__ is needed");
            return -1;
        }
        type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
        return 0;
    }

    /* cls (a vectorcall subclass of Forwarder whose __get__ binds as a function's does)
       is called as a function is when found in a class's dict: CPython then calls it
       with the instance first and makes no bound method (and CPython 3.11 specializes
       that call only for an immutable type: cls's own attributes are fixed from now) */
    static int minijax_bind_as_function(PyObject *cls) {
        PyTypeObject *type = (PyTypeObject *)cls;
        if (!(type->tp_flags & Py_TPFLAGS_HAVE_VECTORCALL) || type->tp_descr_get == NULL) {
            PyErr_SetString(PyExc_TypeError, "bind_as_function: a Forwarder subclass "
                            "with vectorcall and __get__ is needed");
            return -1;
        }
        type->tp_flags |= Py_TPFLAGS_METHOD_DESCRIPTOR | Py_TPFLAGS_IMMUTABLETYPE;
        PyType_Modified(type);
        return 0;
    }

    /* whether NumPy reads ``shape`` as it is: an int or a tuple of ints, each exact
       and in 0 .. PY_SSIZE_T_MAX */
    static int minijax_plain_shape(PyObject *shape) {
        PyObject *const *items = &shape;
        Py_ssize_t n = 1;
        if (PyTuple_CheckExact(shape)) {
            items = &PyTuple_GET_ITEM(shape, 0);
            n = PyTuple_GET_SIZE(shape);
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            if (!PyLong_CheckExact(items[i])) return 0;
            Py_ssize_t k = PyLong_AsSsize_t(items[i]);
            if (k == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
            if (k < 0) return 0;
        }
        return 1;
    }
    """
    object make_forwarder_type "minijax_make_forwarder_type"()
    int _forward_to_c "minijax_forward_to"(object self, object target,
                                           object positional) except -1
    void _set_positional_call_c "minijax_set_positional_call"(
        object (*call)(object, object, object), object absent)
    int _enable_vectorcall_c "minijax_enable_vectorcall"(object cls) except -1
    int _bind_as_function_c "minijax_bind_as_function"(object cls) except -1
    bint plain_shape "minijax_plain_shape"(object shape)

# module globals the wrappers read on every call, as C variables (not dict lookups)
cdef object _ABSENT
cdef list numpy_flag
cdef type _ndarray, _Array
cdef frozenset _PLAIN, _KEYWORDS_TO_CONVERT
cdef dict _NUMERIC_DTYPES
cdef dict _weak_scalar_avals
@cython.locals(out=ArrayCore)
cdef object _weak_result(object r, tuple args=*, bint each=*)
cdef tuple _DTYPE_LIKE
cdef object _scalar_type_class, _float64, _float32, _float16
cdef type _float64_scalar, _float32_scalar, _float16_scalar

@cython.locals(arr=ArrayCore)
cpdef _host(a)
cpdef eager_host(self)
@cython.locals(t=type)
cpdef wrap(object r, object args=*)
@cython.locals(arrays=Py_ssize_t, root_writeable=bint)
cdef list _wrap_each(object r, object args)
@cython.locals(out=ArrayCore)
cdef object _function_result(object r, object h, object x0, object x1, tuple rest)
cdef object _write_target(ArrayCore self)
@cython.locals(arr=ArrayCore, t=type)
cdef bint _weak_operand(object a)
@cython.locals(i=Py_ssize_t, n=Py_ssize_t, found=bint)
cdef bint _weak_operands(tuple args, Py_ssize_t start, Py_ssize_t stop)
cdef object _plain_keywords(dict kwargs)
@cython.locals(d=object, t=type)
cdef bint _float_operand(object h)
@cython.locals(n=Py_ssize_t)
cdef object _keyword_call(object np_fn, object a, object b, object c, Py_ssize_t n,
                          dict kwargs)
cdef dict _NO_KEYWORDS
@cython.locals(call=_NumpyCall)
cdef object _positional_call(object dispatch, object x0, object x1)
cdef bint _keywords_within(dict kwargs, frozenset names)
cdef frozenset _SHAPE_MAKERS, _LIKE_MAKERS


cdef class _NumpyCall:
    cdef object np_fn, lax_definition, ufunc, function, direct, direct_keywords
    cdef Py_ssize_t nin, first_operand, last_operand, fewest, most
    cdef bint each, makes, makes_shape
    cdef object eager(self, object x0, object x1, tuple rest, dict kwargs)
    cdef object general(self, tuple args, dict kwargs)


cdef object _made(_NumpyCall call, object x)


cdef class _MethodCall:
    cdef object host_fn, function
    cdef object eager(self, object arr, object x0)


cdef object _method_result(object r, object self, object host)


cdef class _Rows:
    cdef object root, rows, link


cdef class _Elements:
    cdef object elements
