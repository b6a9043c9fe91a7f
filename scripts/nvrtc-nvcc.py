#!/usr/bin/env python3
"""An `nvcc -ptx` look-alike that compiles with NVIDIA's NVRTC library (libnvrtc) instead of nvcc.

NVIDIA publishes no CUDA 12.x nvcc on the Python package index (the `nvidia-cuda-nvcc-cu12` wheels hold ptxas,
libnvvm and headers, but neither nvcc nor cicc), while `nvidia-cuda-nvrtc-cu12` holds the whole CUDA C++ device
compiler of its release as a library. scripts/install-cuda-toolchain.sh copies this file into the toolchain as
`bin/nvcc`, next to `lib/libnvrtc.so.*`, so crates/xpbd-cuda/build.rs, scripts/check-ptx.sh and the install
script's own check can call it exactly as they call nvcc. It understands only what they pass:

    nvcc --version
    nvcc -ptx -arch=compute_XX [-O3] [-std=c++17] [-I DIR | -IDIR] [-D NAME[=V] | -DNAME[=V]] [-lineinfo]
         [--use_fast_math] [-maxrregcount=N] [-allow-unsupported-compiler] FILE.cu -o FILE.ptx

Device code is always optimised (NVRTC has no -O switch; nvcc's -O3 is a host-code flag). There is no host
compiler, so `-allow-unsupported-compiler` is accepted and ignored, and kernels may include only their own
headers (kernels/ includes nothing from the C++ or CUDA runtime headers). The library is `../lib/libnvrtc.so*`
relative to this file, or `$XPBD_NVRTC_LIB`.
"""

import ctypes
import glob
import os
import sys

PROG = "nvcc (NVRTC)"


def die(message, code=1):
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.exit(code)


def find_library():
    explicit = os.environ.get("XPBD_NVRTC_LIB")
    if explicit:
        return explicit
    here = os.path.dirname(os.path.realpath(__file__))
    lib = os.path.join(here, "..", "lib")
    # libnvrtc.so.12 (the wheel's name), or libnvrtc.so / libnvrtc.so.X.Y.
    candidates = sorted(glob.glob(os.path.join(lib, "libnvrtc.so*")), key=len)
    candidates = [c for c in candidates if "builtins" not in os.path.basename(c)]
    if not candidates:
        die(f"no libnvrtc.so* in {os.path.normpath(lib)} (set XPBD_NVRTC_LIB, or rerun scripts/install-cuda-toolchain.sh)")
    return candidates[0]


def load():
    path = find_library()
    try:
        nvrtc = ctypes.CDLL(path)
    except OSError as error:
        die(f"cannot load {path}: {error}")
    c_int_p = ctypes.POINTER(ctypes.c_int)
    nvrtc.nvrtcVersion.argtypes = [c_int_p, c_int_p]
    nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p
    nvrtc.nvrtcGetErrorString.argtypes = [ctypes.c_int]
    nvrtc.nvrtcCreateProgram.argtypes = [
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_char_p),
        ctypes.POINTER(ctypes.c_char_p),
    ]
    nvrtc.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    nvrtc.nvrtcGetProgramLogSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    nvrtc.nvrtcGetProgramLog.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    nvrtc.nvrtcGetPTXSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    nvrtc.nvrtcGetPTX.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    nvrtc.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    return path, nvrtc


def check(nvrtc, status, what):
    if status != 0:
        die(f"{what}: {nvrtc.nvrtcGetErrorString(status).decode()}")


def version(nvrtc):
    major, minor = ctypes.c_int(), ctypes.c_int()
    check(nvrtc, nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    return major.value, minor.value


def parse(args):
    """nvcc's arguments -> (source, output, NVRTC options)."""
    source = output = None
    options = []
    ptx = False
    i = 0

    def value(flag):
        nonlocal i
        arg = args[i]
        if arg == flag:
            i += 1
            if i >= len(args):
                die(f"{flag} needs a value")
            return args[i]
        return arg[len(flag):].lstrip("=")

    while i < len(args):
        arg = args[i]
        if arg in ("-ptx", "--ptx"):
            ptx = True
        elif arg.startswith(("-arch", "--gpu-architecture")):
            arch = value("-arch" if arg.startswith("-arch") else "--gpu-architecture")
            if not arch.startswith("compute_"):
                die(f"-arch={arch}: only a virtual architecture (compute_XX) can be compiled to PTX")
            options.append(f"--gpu-architecture={arch}")
        elif arg.startswith("-std"):
            options.append(f"--std={value('-std')}")
        elif arg.startswith("-O") and len(arg) == 3:
            pass  # host optimisation level; NVRTC always optimises device code
        elif arg.startswith("-I"):
            options.append(f"--include-path={value('-I')}")
        elif arg.startswith("-D"):
            options.append(f"--define-macro={value('-D')}")
        elif arg in ("-lineinfo", "--generate-line-info"):
            options.append("--generate-line-info")
        elif arg in ("--use_fast_math", "-use_fast_math"):
            options.append("--use_fast_math")
        elif arg.startswith("-maxrregcount") or arg.startswith("--maxrregcount"):
            options.append(f"--maxrregcount={value('-maxrregcount' if arg.startswith('-m') else '--maxrregcount')}")
        elif arg in ("-allow-unsupported-compiler", "--allow-unsupported-compiler"):
            pass  # no host compiler is involved
        elif arg == "-o" or arg.startswith("-o"):
            output = value("-o")
        elif arg.startswith("-"):
            die(f"unsupported option {arg} (this is NVRTC behind an nvcc-like interface; see {__file__})")
        else:
            if source is not None:
                die(f"one source file only (got {source} and {arg})")
            source = arg
        i += 1
    if not ptx:
        die("only -ptx is supported")
    if source is None:
        die("no input file")
    if output is None:
        output = os.path.splitext(os.path.basename(source))[0] + ".ptx"
    return source, output, options


def main(args):
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    path, nvrtc = load()
    if args[0] in ("--version", "-V"):
        major, minor = version(nvrtc)
        # The release line first: build.rs and check-ptx.sh read the first "release X.Y".
        print(f"Cuda compilation tools, release {major}.{minor}, NVRTC {major}.{minor}")
        print(f"{PROG}: libnvrtc {path}")
        return 0
    source, output, options = parse(args)
    try:
        with open(source, "rb") as f:
            text = f.read()
    except OSError as error:
        die(f"cannot read {source}: {error}")
    program = ctypes.c_void_p()
    check(nvrtc, nvrtc.nvrtcCreateProgram(ctypes.byref(program), text, source.encode(), 0, None, None), "nvrtcCreateProgram")
    encoded = [o.encode() for o in options]
    array = (ctypes.c_char_p * len(encoded))(*encoded)
    status = nvrtc.nvrtcCompileProgram(program, len(encoded), array)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    if size.value > 1:
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(program, log)
        sys.stderr.write(log.value.decode(errors="replace"))
    if status != 0:
        nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
        die(f"compiling {source} failed: {nvrtc.nvrtcGetErrorString(status).decode()}")
    check(nvrtc, nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size)), "nvrtcGetPTXSize")
    ptx = ctypes.create_string_buffer(size.value)
    check(nvrtc, nvrtc.nvrtcGetPTX(program, ptx), "nvrtcGetPTX")
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    with open(output, "wb") as f:
        f.write(ptx.value)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
