"""Run Loom artifacts from Python through the runtime's C API (ctypes).

    from loom.runtime import Program, set_num_threads
    program = Program("model.loom")
    outputs = program.run({"x": x})          # dict of numpy arrays

The library is libloom_runtime.so from the build (LOOM_RUNTIME_LIB, else
$LOOM_BUILD/lib, else build/lib beside this package).
"""
import ctypes
import os

import numpy as np

# numpy's type for each of the runtime's dtype names; the codes come from
# the loaded runtime (loom_dtype_name), never from a copy of ABI.h.
_NUMPY_TYPES = {
    "float16": np.float16, "bfloat16": np.dtype("V2"), "float32": np.float32,
    "float64": np.float64, "int8": np.int8, "int16": np.int16,
    "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
    "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "bool": np.bool_,
    # 8-bit floats: raw bytes; int4/uint4: one value per byte.
    "float8e4m3fn": np.dtype("V1"), "float8e4m3fnuz": np.dtype("V1"),
    "float8e5m2": np.dtype("V1"), "float8e5m2fnuz": np.dtype("V1"),
    "int4": np.int8, "uint4": np.uint8}
_dtypes = None


def _dtype_table(lib):
    """{dtype code: numpy dtype} for every dtype the runtime knows: the codes
    1, 2, ... up to the first the runtime calls "invalid"."""
    table = {}
    code = 1
    while True:
        name = lib.loom_dtype_name(code).decode()
        if name == "invalid":
            return table
        if name in _NUMPY_TYPES:
            table[code] = np.dtype(_NUMPY_TYPES[name])
        code += 1


class _TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("num_elements", ctypes.c_int64), ("nbytes", ctypes.c_size_t)]


def _library_path():
    if "LOOM_RUNTIME_LIB" in os.environ:
        return os.environ["LOOM_RUNTIME_LIB"]
    build = os.environ.get("LOOM_BUILD") or os.path.join(
        os.path.dirname(__file__), "..", "..", "build")
    return os.path.join(build, "lib", "libloom_runtime.so")


_lib = None


def library():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(_library_path(), mode=ctypes.RTLD_GLOBAL)
        lib.loom_program_load.restype = ctypes.c_void_p
        lib.loom_program_load.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                          ctypes.c_size_t]
        lib.loom_program_free.argtypes = [ctypes.c_void_p]
        for kind in ("input", "output"):
            count = getattr(lib, f"loom_program_num_{kind}s")
            count.restype = ctypes.c_size_t
            count.argtypes = [ctypes.c_void_p]
            info = getattr(lib, f"loom_program_{kind}")
            info.restype = ctypes.POINTER(_TensorInfo)
            info.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        lib.loom_program_run.restype = ctypes.c_int
        lib.loom_program_run.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t]
        lib.loom_set_num_threads.argtypes = [ctypes.c_int]
        lib.loom_program_load_parameters.restype = ctypes.c_int
        lib.loom_program_load_parameters.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.loom_dtype_name.restype = ctypes.c_char_p
        lib.loom_dtype_name.argtypes = [ctypes.c_int32]
        global _dtypes
        _dtypes = _dtype_table(lib)
        _lib = lib
    return _lib


def set_num_threads(threads):
    """Threads of the kernels (BLAS) and of the parallel loops."""
    library().loom_set_num_threads(int(threads))


class LoomError(RuntimeError):
    pass


class Program:
    def __init__(self, artifact):
        lib = library()
        err = ctypes.create_string_buffer(4096)
        handle = lib.loom_program_load(os.fsencode(artifact), err, len(err))
        if not handle:
            raise LoomError(err.value.decode())
        self._handle = handle
        self.inputs = self._specs("input")
        self.outputs = self._specs("output")
        self._out = [np.empty(shape, dtype) for _, dtype, shape in self.outputs]
        self._out_ptrs = (ctypes.c_void_p * len(self._out))(
            *[a.ctypes.data for a in self._out])
        # Reused by every run: a call costs microseconds on small models.
        self._in_ptrs = (ctypes.c_void_p * max(len(self.inputs), 1))()
        self._err = ctypes.create_string_buffer(4096)
        self._run = lib.loom_program_run

    def _specs(self, kind):
        lib = library()
        specs = []
        for i in range(getattr(lib, f"loom_program_num_{kind}s")(self._handle)):
            info = getattr(lib, f"loom_program_{kind}")(self._handle, i).contents
            shape = tuple(info.shape[d] for d in range(info.rank))
            if info.dtype not in _dtypes:
                raise LoomError(f"{kind} '{info.name.decode()}' has dtype "
                                f"code {info.dtype}, which this package "
                                "cannot map to numpy")
            specs.append((info.name.decode(), _dtypes[info.dtype], shape))
        return specs

    def run(self, feeds):
        """Runs once; returns {output name: array} (arrays are reused by
        the next call: copy them to keep them). One Program runs one call
        at a time; use one Program per thread."""
        arrays = []
        for i, (name, dtype, shape) in enumerate(self.inputs):
            if name not in feeds:
                raise LoomError(f"missing input '{name}'")
            a = feeds[name]
            if (type(a) is np.ndarray and a.dtype == dtype and
                    a.shape == shape and a.flags.c_contiguous):
                arrays.append(a)  # as is: no conversion, no copy
                self._in_ptrs[i] = a.ctypes.data
                continue
            a = np.asarray(a)
            if dtype.kind == "V":
                # bfloat16 and the 8-bit floats: numpy has no such types;
                # take the raw values (e.g. uint16 bits), never a numeric
                # conversion.
                size = dtype.itemsize
                if a.dtype.itemsize != size or a.dtype.kind not in "uiV":
                    what = "bfloat16" if size == 2 else "an 8-bit float"
                    raise LoomError(f"input '{name}' is {what}: pass its "
                                    f"bits as uint{size * 8} or |V{size}, "
                                    f"not {a.dtype}")
                a = a.view(dtype)
            a = np.require(np.asarray(a, dtype=dtype), requirements="C")
            if a.shape != shape:
                raise LoomError(f"input '{name}' expects shape {shape}, "
                                f"got {a.shape}")
            arrays.append(a)
            self._in_ptrs[i] = a.ctypes.data
        # `arrays` keeps converted inputs alive through the call.
        err = self._err
        if self._run(self._handle, self._in_ptrs, self._out_ptrs, err,
                     len(err)):
            raise LoomError(err.value.decode())
        return {name: a for (name, _, _), a in zip(self.outputs, self._out)}

    def load_parameters(self, path):
        """Replaces the parameters with the tensors of the same names in the
        safetensors file `path` (e.g. written by `loom-ckpt export`). Every
        parameter the artifact stores must be there with its dtype and
        shape; nothing changes on error."""
        err = self._err
        if library().loom_program_load_parameters(
                self._handle, os.fsencode(path), err, len(err)):
            raise LoomError(err.value.decode())

    def __del__(self):
        if getattr(self, "_handle", None) and _lib is not None:
            _lib.loom_program_free(self._handle)
            self._handle = None
