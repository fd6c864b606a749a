# -*- Python -*-
# lit configuration of the pe regression tests.

import os
import platform

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "PE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lib", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pe_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
# The Debian python3 has numpy; the python3 on PATH may be another one.
config.substitutions.append(("%python", config.python3))
config.substitutions.append(("%pe_src_root", config.pe_src_root))
config.substitutions.append(("%pe_obj_root", config.pe_obj_root))
config.substitutions.append(
    ("%pe_plugin", os.path.join(config.pe_obj_root, "lib", "PEPlugin.so")))
config.substitutions.append(
    ("%pe_ref_lib", os.path.join(config.test_source_root, "Integration", "lib")))
config.substitutions.append(
    ("%npycmp", config.python3 + " " +
     os.path.join(config.test_source_root, "Integration", "lib", "npycmp.py")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])

# PE_SANITIZE builds (utils/pe.sh test --sanitize): feature `sanitize`, and
# every ASan/UBSan/LSan report aborts the tool (a signal, which `not` does not
# accept), unless the caller set its own options. allow_user_poisoning=0:
# LLVM's BumpPtrAllocator poisons slab memory from our instrumented copies of
# its inline code, and the uninstrumented libMLIR.so hands that memory out
# without unpoisoning it (false use-after-poison reports).
# allocator_may_return_null=1: pe-run reports an allocation the compiled code
# cannot get (test/Tools/pe-run/runtime-checks.mlir) instead of ASan aborting.
# LSan ignores the leaks of third-party drivers (test/lsan-suppressions.txt).
if getattr(config, "pe_sanitize", False):
    config.available_features.add("sanitize")
    for var, val in [
        ("ASAN_OPTIONS", "abort_on_error=1:halt_on_error=1:detect_leaks=1:allow_user_poisoning=0"
                         ":detect_stack_use_after_return=1:strict_string_checks=1"
                         ":allocator_may_return_null=1"),
        ("UBSAN_OPTIONS", "abort_on_error=1:halt_on_error=1:print_stacktrace=1"),
        ("LSAN_OPTIONS", "suppressions=" +
         os.path.join(config.test_source_root, "lsan-suppressions.txt")),
    ]:
        config.environment.setdefault(var, val)
# MPICH (mpiexec.mpich and libmpich): feature `mpi`, for the sharded
# execution tests (pe-run --ranks).
if lit.util.which("mpiexec.mpich") and any(
        os.path.exists(os.path.join(d, "libmpich.so"))
        for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
                  "/usr/lib64", "/usr/lib")):
    config.available_features.add("mpi")
# Prefix for a host binary that is not sanitized but loads a pe shared object
# (mlir-opt --load-*-plugin): in sanitized builds, preload the ASan runtime.
if getattr(config, "pe_sanitize", False) and config.pe_asan_runtime:
    config.substitutions.append(
        ("%pe_host_env", "env LD_PRELOAD=" + config.pe_asan_runtime))
else:
    config.substitutions.append(("%pe_host_env", ""))
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.pe_tools_dir, config.llvm_tools_dir]
tools = [
    "pe-opt",
    ToolSubst("pe-run", unresolved="ignore"),
    ToolSubst("pe-capi-test", unresolved="ignore"),
    ToolSubst("pe-lsp-server", unresolved="ignore"),
    ToolSubst("mlir-translate", unresolved="ignore"),
    ToolSubst("mlir-opt", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# GPU code generation (docs/CodegenGPU.md). `ptxas`: a CUDA toolkit (its ptxas
# assembles the PTX of pe-gpu-pipeline{target=nvvm}; CUDA_ROOT also lets
# gpu-module-to-binary link libdevice). `vulkan`: pe's Vulkan runtime was
# built and a Vulkan driver (lavapipe: mesa-vulkan-drivers) is installed.
cuda_root = os.environ.get("CUDA_ROOT") or os.environ.get("CUDA_HOME") or "/usr/local/cuda"
ptxas = os.path.join(cuda_root, "bin", "ptxas")
if not os.path.exists(ptxas):
    ptxas = lit.util.which("ptxas")
    cuda_root = os.path.dirname(os.path.dirname(ptxas)) if ptxas else None
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.environment["CUDA_ROOT"] = cuda_root
    config.substitutions.append(("%cuda_root", cuda_root))
config.substitutions.append(
    ("%extract_gpu_objects", config.python3 + " " +
     os.path.join(config.pe_src_root, "utils", "extract-gpu-objects.py")))
icd_dirs = ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d"]
if os.path.exists(os.path.join(config.pe_obj_root, "lib", "libpe_vulkan_runtime.so")) and any(
        os.path.isdir(d) and os.listdir(d) for d in icd_dirs):
    config.available_features.add("vulkan")
# `host-x86_64`, `host-avx2`: this machine runs x86-64 code, with AVX2 and FMA
# (the x86-64-v3 kernels of `--param pe_pipeline=cpu-avx2`).
if platform.machine() == "x86_64":
    config.available_features.add("host-x86_64")
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            flags = next((line.split() for line in cpuinfo
                          if line.startswith("flags")), [])
        if "avx2" in flags and "fma" in flags:
            config.available_features.add("host-avx2")
        # `host-avx512bf16`: the host target of `pe_pipeline=cpu` has
        # AVX512-BF16, so bf16 attention takes the bf16 dot-product kernel.
        if "avx512_bf16" in flags:
            config.available_features.add("host-avx512bf16")
    except OSError:
        pass
# `aarch64-cross`: pe-run can link AArch64 executables (its AArch64 copy of
# libpe_aot_main.a was built: tools/pe-run/CMakeLists.txt) and qemu-aarch64
# (Debian package qemu-user) runs them.
qemu_aarch64 = lit.util.which("qemu-aarch64")
if qemu_aarch64 and os.path.exists(
        os.path.join(config.pe_obj_root, "lib", "aarch64", "libpe_aot_main.a")):
    config.available_features.add("aarch64-cross")
    config.substitutions.append(("%qemu_aarch64", qemu_aarch64 +
                                 " -L /usr/aarch64-linux-gnu -cpu neoverse-n1"))
# `cuda-driver`: an NVIDIA driver can be loaded (for `--param
# pe_pipeline=cuda`, which bench/gpu/run.sh uses on a GPU machine).
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
