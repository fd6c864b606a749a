//===- CUDARuntime.cpp - MLIR's GPU runtime entry points on the CUDA driver
//===//
//
// Part of the pe-mlir project.
//
// libpe_cuda_runtime.so implements the `mgpu*` functions that host code
// lowered by `gpu-to-llvm` calls for pe-gpu-pipeline{target=nvvm}, on the
// CUDA driver API. The driver (libcuda.so.1) is loaded at run time with
// dlopen, so the library builds and loads without CUDA: on a machine without
// an NVIDIA driver (or without a device) the first call prints one line,
//
//   pe-cuda-runtime: error: cannot load libcuda.so.1 (the NVIDIA driver): ...
//
// and exits with status 1; the entry points have no way to report failure.
// Only the few driver types and functions used are declared here, with the
// driver's stable ABI (the `_v2` entry points), so no CUDA headers are
// needed either.
//
// Environment: PE_CUDA_LIBRARY (the driver library to load instead of
// libcuda.so.1), PE_CUDA_DEVICE (device ordinal, default 0),
// PE_CUDA_KERNEL_TIMES (when set, each launch is timed with CUDA events and
// reported on stderr as `pe-cuda-runtime: kernel NAME MS ms`; bench/gpu).
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#define PE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUjit_option = int;
constexpr CUjit_option kJitOptimizationLevel = 7; // CU_JIT_OPTIMIZATION_LEVEL

/// The driver functions, resolved once.
struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleLoadDataEx)(CUmodule *, const void *, unsigned,
                               CUjit_option *, void **);
  CUresult (*moduleUnload)(CUmodule);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*streamCreate)(CUstream *, unsigned);
  CUresult (*streamSynchronize)(CUstream);
  CUresult (*streamDestroy)(CUstream);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*memsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*eventCreate)(void **, unsigned);
  CUresult (*eventRecord)(void *, CUstream);
  CUresult (*eventSynchronize)(void *);
  CUresult (*eventElapsedTime)(float *, void *, void *);
  CUresult (*eventDestroy)(void *);
  CUresult (*getErrorName)(CUresult, const char **);
  CUresult (*getErrorString)(CUresult, const char **);
  CUcontext context = nullptr;
};

[[noreturn]] void fatal(const std::string &msg) {
  std::fprintf(stderr, "pe-cuda-runtime: error: %s\n", msg.c_str());
  std::exit(1);
}

Driver &driver();

void check(CUresult r, const char *what) {
  if (r == 0)
    return;
  Driver &d = driver();
  const char *name = nullptr, *text = nullptr;
  if (d.getErrorName && d.getErrorName(r, &name) != 0)
    name = nullptr;
  if (d.getErrorString && d.getErrorString(r, &text) != 0)
    text = nullptr;
  // The codes that mean "no usable GPU here", named even when the driver
  // cannot name them (the toolkit's stub library names nothing).
  if (!name)
    name = r == 34    ? "CUDA_ERROR_STUB_LIBRARY (a stub, not a driver)"
           : r == 35  ? "CUDA_ERROR_INSUFFICIENT_DRIVER"
           : r == 100 ? "CUDA_ERROR_NO_DEVICE"
                      : "CUDA error";
  fatal(std::string(what) + " failed: " + (name ? name : "CUDA error") + " (" +
        std::to_string(r) + ")" + (text ? std::string(": ") + text : ""));
}

Driver loadDriver() {
  const char *path = std::getenv("PE_CUDA_LIBRARY");
  if (!path)
    path = "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    fatal(std::string("cannot load ") + path +
          " (the NVIDIA driver): " + dlerror());
  Driver d{};
  auto get = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(lib, name));
    if (!fn)
      fatal(std::string(path) + " has no " + name +
            " (a driver older than CUDA 11?)");
  };
  get(d.init, "cuInit");
  get(d.deviceGet, "cuDeviceGet");
  get(d.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
  get(d.ctxSetCurrent, "cuCtxSetCurrent");
  get(d.moduleLoadData, "cuModuleLoadData");
  get(d.moduleLoadDataEx, "cuModuleLoadDataEx");
  get(d.moduleUnload, "cuModuleUnload");
  get(d.moduleGetFunction, "cuModuleGetFunction");
  get(d.launchKernel, "cuLaunchKernel");
  get(d.streamCreate, "cuStreamCreate");
  get(d.streamSynchronize, "cuStreamSynchronize");
  get(d.streamDestroy, "cuStreamDestroy_v2");
  get(d.memAlloc, "cuMemAlloc_v2");
  get(d.memFree, "cuMemFree_v2");
  get(d.memcpyAsync, "cuMemcpyAsync");
  get(d.memsetD32Async, "cuMemsetD32Async");
  get(d.eventCreate, "cuEventCreate");
  get(d.eventRecord, "cuEventRecord");
  get(d.eventSynchronize, "cuEventSynchronize");
  get(d.eventElapsedTime, "cuEventElapsedTime");
  get(d.eventDestroy, "cuEventDestroy_v2");
  get(d.getErrorName, "cuGetErrorName");
  get(d.getErrorString, "cuGetErrorString");
  return d;
}

Driver &driver() {
  static Driver d = loadDriver();
  return d;
}

/// A kernel: the driver's function and its name (for the timing report).
struct Kernel {
  CUfunction function;
  std::string name;
};

/// The kernels asked for, per (module, name): gpu-to-llvm's host code asks
/// at every launch; each is looked up once and kept until its module is
/// unloaded.
std::mutex kernelsMutex;
std::map<std::pair<CUmodule, std::string>, std::unique_ptr<Kernel>> kernels;

/// The driver, initialized, with the primary context of the device current
/// on the calling thread.
Driver &ready() {
  static std::once_flag once;
  Driver &d = driver();
  std::call_once(once, [&] {
    check(d.init(0), "cuInit");
    int ordinal = 0;
    if (const char *env = std::getenv("PE_CUDA_DEVICE"))
      ordinal = std::atoi(env);
    CUdevice device;
    check(d.deviceGet(&device, ordinal), "cuDeviceGet");
    check(d.primaryCtxRetain(&d.context, device), "cuDevicePrimaryCtxRetain");
  });
  check(d.ctxSetCurrent(d.context), "cuCtxSetCurrent");
  return d;
}

} // namespace

PE_EXPORT void *mgpuModuleLoad(void *data, size_t) {
  Driver &d = ready();
  CUmodule module = nullptr;
  check(d.moduleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

PE_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel) {
  Driver &d = ready();
  CUmodule module = nullptr;
  CUjit_option options[] = {kJitOptimizationLevel};
  void *values[] = {reinterpret_cast<void *>(intptr_t(optLevel))};
  check(d.moduleLoadDataEx(&module, data, 1, options, values),
        "cuModuleLoadDataEx (PTX JIT)");
  return module;
}

PE_EXPORT void mgpuModuleUnload(void *module) {
  {
    std::lock_guard<std::mutex> lock(kernelsMutex);
    for (auto it = kernels.begin(); it != kernels.end();)
      it = it->first.first == module ? kernels.erase(it) : std::next(it);
  }
  check(ready().moduleUnload(module), "cuModuleUnload");
}

PE_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  std::lock_guard<std::mutex> lock(kernelsMutex);
  std::unique_ptr<Kernel> &kernel = kernels[{module, name}];
  if (!kernel) {
    CUfunction function = nullptr;
    check(ready().moduleGetFunction(&function, module, name),
          "cuModuleGetFunction");
    kernel = std::make_unique<Kernel>(Kernel{function, name});
  }
  return kernel.get();
}

PE_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                intptr_t gridZ, intptr_t blockX,
                                intptr_t blockY, intptr_t blockZ,
                                int32_t sharedMemoryBytes, void *stream,
                                void **params, void **extra, size_t) {
  Driver &d = ready();
  auto *kernel = static_cast<Kernel *>(function);
  static const bool timing = std::getenv("PE_CUDA_KERNEL_TIMES") != nullptr;
  void *start = nullptr, *end = nullptr;
  if (timing) {
    check(d.eventCreate(&start, 0), "cuEventCreate");
    check(d.eventCreate(&end, 0), "cuEventCreate");
    check(d.eventRecord(start, stream), "cuEventRecord");
  }
  check(d.launchKernel(kernel->function, gridX, gridY, gridZ, blockX, blockY,
                       blockZ, sharedMemoryBytes, stream, params, extra),
        "cuLaunchKernel");
  if (timing) {
    check(d.eventRecord(end, stream), "cuEventRecord");
    check(d.eventSynchronize(end), "cuEventSynchronize");
    float ms = 0;
    check(d.eventElapsedTime(&ms, start, end), "cuEventElapsedTime");
    std::fprintf(stderr, "pe-cuda-runtime: kernel %s %.6f ms\n",
                 kernel->name.c_str(), ms);
    d.eventDestroy(start);
    d.eventDestroy(end);
  }
}

PE_EXPORT void *mgpuStreamCreate() {
  CUstream stream = nullptr;
  check(ready().streamCreate(&stream, /*CU_STREAM_NON_BLOCKING=*/1),
        "cuStreamCreate");
  return stream;
}

PE_EXPORT void mgpuStreamDestroy(void *stream) {
  check(ready().streamDestroy(stream), "cuStreamDestroy");
}

PE_EXPORT void mgpuStreamSynchronize(void *stream) {
  check(ready().streamSynchronize(stream), "cuStreamSynchronize");
}

PE_EXPORT void *mgpuMemAlloc(uint64_t bytes, void *, bool hostShared) {
  if (hostShared)
    fatal("host-shared (managed) allocations are not supported");
  CUdeviceptr ptr = 0;
  if (bytes)
    check(ready().memAlloc(&ptr, bytes), "cuMemAlloc");
  return reinterpret_cast<void *>(ptr);
}

PE_EXPORT void mgpuMemFree(void *ptr, void *) {
  if (ptr)
    check(ready().memFree(reinterpret_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

PE_EXPORT void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  // Unified addressing: the driver tells host from device pointers.
  if (bytes)
    check(ready().memcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                              reinterpret_cast<CUdeviceptr>(src), bytes,
                              stream),
          "cuMemcpyAsync");
}

PE_EXPORT void mgpuMemset32(void *dst, unsigned value, size_t count,
                            void *stream) {
  check(ready().memsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                               stream),
        "cuMemsetD32Async");
}
