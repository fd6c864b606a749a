//===- VulkanRuntime.cpp - MLIR's GPU runtime entry points on Vulkan ------===//
//
// Part of the pe-mlir project.
//
// libpe_vulkan_runtime.so implements the `mgpu*` functions that host code
// lowered by `gpu-to-llvm` calls, on Vulkan compute, so that the SPIR-V
// kernels of `pe-gpu-pipeline{target=spirv}` run through any Vulkan driver:
// on a CPU, Mesa's lavapipe (package mesa-vulkan-drivers), which executes
// real workgroups with shared memory and barriers. pe-run loads it for
// `--pipeline=vulkan`.
//
// Calling convention (gpu-to-llvm{use-bare-pointers-for-kernels
// intersperse-sizes-for-kernels}): the kernel parameters are pairs (pointer
// to a host buffer, its size in bytes); pair i is storage buffer binding i of
// descriptor set 0, which is how convert-gpu-to-spirv numbers the kernel
// arguments. convert-pe-to-gpu gives kernels only buffer arguments.
//
// Execution is synchronous: each launch copies its buffers into
// host-visible device memory, dispatches, waits, and copies back the buffers
// the kernel changed (unchanged ones are not written, so read-only host
// memory such as constant globals is never touched). Shader modules and
// pipelines are created once per kernel. Errors print one line and exit
// with status 1: the entry points have no way to report failure.
//
// Environment: PE_VULKAN_DEVICE (a substring of the device name to pick),
// PE_VULKAN_VERBOSE (print the device used).
//
//===----------------------------------------------------------------------===//

#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#define PE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

[[noreturn]] void fatal(const std::string &msg) {
  std::fprintf(stderr, "pe-vulkan-runtime: error: %s\n", msg.c_str());
  std::exit(1);
}

void check(VkResult r, const char *what) {
  if (r != VK_SUCCESS)
    fatal(std::string(what) + " failed (VkResult " + std::to_string(r) + ")");
}

/// The instance, device and queue, created on first use.
struct Device {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory{};

  Device() {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "pe-mlir";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo instanceInfo{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    instanceInfo.pApplicationInfo = &app;
    if (vkCreateInstance(&instanceInfo, nullptr, &instance) != VK_SUCCESS)
      fatal("no Vulkan instance (is a Vulkan driver installed? On a CPU: "
            "Debian package mesa-vulkan-drivers)");
    uint32_t count = 0;
    check(vkEnumeratePhysicalDevices(instance, &count, nullptr),
          "vkEnumeratePhysicalDevices");
    if (count == 0)
      fatal("no Vulkan device (on a CPU: Debian package mesa-vulkan-drivers "
            "provides lavapipe)");
    std::vector<VkPhysicalDevice> devices(count);
    check(vkEnumeratePhysicalDevices(instance, &count, devices.data()),
          "vkEnumeratePhysicalDevices");
    physical = devices[0];
    if (const char *want = std::getenv("PE_VULKAN_DEVICE")) {
      bool found = false;
      for (VkPhysicalDevice d : devices) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(d, &p);
        if (std::strstr(p.deviceName, want)) {
          physical = d;
          found = true;
          break;
        }
      }
      if (!found)
        fatal(std::string("no Vulkan device matches PE_VULKAN_DEVICE='") +
              want + "'");
    }
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    if (std::getenv("PE_VULKAN_VERBOSE"))
      std::fprintf(stderr, "pe-vulkan-runtime: device '%s'\n",
                   props.deviceName);
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
    std::vector<VkQueueFamilyProperties> familyProps(families);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &families,
                                             familyProps.data());
    bool found = false;
    for (uint32_t i = 0; i < families && !found; ++i)
      if (familyProps[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        family = i;
        found = true;
      }
    if (!found)
      fatal(std::string("device '") + props.deviceName +
            "' has no compute queue");
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{
        VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queueInfo.queueFamilyIndex = family;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    // The kernels use 64-bit integers (the Int64 capability); f16 kernels
    // use f16 arithmetic and 16-bit storage buffers, the sinusoidal kernel
    // f64 arithmetic, enabled where the device has them (a kernel that needs
    // a missing one fails to build).
    VkPhysicalDevice16BitStorageFeatures storage16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceShaderFloat16Int8Features float16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    float16.pNext = &storage16;
    VkPhysicalDeviceFeatures2 supported{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    supported.pNext = &float16;
    vkGetPhysicalDeviceFeatures2(physical, &supported);
    if (!supported.features.shaderInt64)
      fatal(std::string("device '") + props.deviceName +
            "' does not support shaderInt64");
    VkPhysicalDevice16BitStorageFeatures enable16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    enable16.storageBuffer16BitAccess = storage16.storageBuffer16BitAccess;
    VkPhysicalDeviceShaderFloat16Int8Features enableF16{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    enableF16.shaderFloat16 = float16.shaderFloat16;
    enableF16.pNext = &enable16;
    VkPhysicalDeviceFeatures2 features{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.features.shaderInt64 = VK_TRUE;
    features.features.shaderFloat64 = supported.features.shaderFloat64;
    features.features.shaderInt16 = supported.features.shaderInt16;
    features.pNext = &enableF16;
    VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    deviceInfo.pNext = &features;
    deviceInfo.queueCreateInfoCount = 1;
    deviceInfo.pQueueCreateInfos = &queueInfo;
    check(vkCreateDevice(physical, &deviceInfo, nullptr, &device),
          "vkCreateDevice");
    vkGetDeviceQueue(device, family, 0, &queue);
    VkCommandPoolCreateInfo poolInfo{
        VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.queueFamilyIndex = family;
    check(vkCreateCommandPool(device, &poolInfo, nullptr, &pool),
          "vkCreateCommandPool");
    vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  }
};

Device &device() {
  static Device d;
  return d;
}

struct Module;

/// A kernel of a module, with its pipeline once it has been launched.
struct Function {
  Module *module;
  std::string name;
  uint32_t bindings = 0;
  VkShaderModule shader = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;

  Function(Module *module, std::string name)
      : module(module), name(std::move(name)) {}
  Function(const Function &) = delete;
  Function &operator=(const Function &) = delete;
  ~Function() {
    if (shader == VK_NULL_HANDLE)
      return;
    Device &d = device();
    vkDestroyPipeline(d.device, pipeline, nullptr);
    vkDestroyPipelineLayout(d.device, layout, nullptr);
    vkDestroyDescriptorSetLayout(d.device, setLayout, nullptr);
    vkDestroyShaderModule(d.device, shader, nullptr);
  }

  void build(uint32_t numBindings);
};

/// A SPIR-V module (the gpu.binary object) and its kernels, each created on
/// first use and kept until the module is unloaded: gpu-to-llvm's host code
/// asks for the function at every launch, and its pipeline is built once.
struct Module {
  std::vector<uint32_t> words;
  std::map<std::string, std::unique_ptr<Function>> functions;
};

/// The loaded modules. Only JIT-compiled host code holds a module's pointer,
/// in memory LeakSanitizer does not scan; when a run stops on an error
/// (fatal() exits), the modules still loaded are reachable from here instead
/// of reported as leaks. Never destroyed: kernels may run until exit.
std::set<Module *> &loadedModules() {
  static auto *modules = new std::set<Module *>;
  return *modules;
}

void Function::build(uint32_t numBindings) {
  if (pipeline != VK_NULL_HANDLE) {
    if (numBindings != bindings)
      fatal("kernel '" + name + "' launched with " +
            std::to_string(numBindings) + " buffers, before with " +
            std::to_string(bindings));
    return;
  }
  Device &d = device();
  bindings = numBindings;
  VkShaderModuleCreateInfo shaderInfo{
      VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  shaderInfo.codeSize = module->words.size() * sizeof(uint32_t);
  shaderInfo.pCode = module->words.data();
  check(vkCreateShaderModule(d.device, &shaderInfo, nullptr, &shader),
        "vkCreateShaderModule");
  std::vector<VkDescriptorSetLayoutBinding> layoutBindings(bindings);
  for (uint32_t i = 0; i < bindings; ++i) {
    layoutBindings[i].binding = i;
    layoutBindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    layoutBindings[i].descriptorCount = 1;
    layoutBindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = bindings;
  setInfo.pBindings = layoutBindings.data();
  check(vkCreateDescriptorSetLayout(d.device, &setInfo, nullptr, &setLayout),
        "vkCreateDescriptorSetLayout");
  VkPipelineLayoutCreateInfo layoutInfo{
      VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout;
  check(vkCreatePipelineLayout(d.device, &layoutInfo, nullptr, &layout),
        "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo pipelineInfo{
      VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipelineInfo.stage.sType =
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = shader;
  pipelineInfo.stage.pName = name.c_str();
  pipelineInfo.layout = layout;
  check(vkCreateComputePipelines(d.device, VK_NULL_HANDLE, 1, &pipelineInfo,
                                 nullptr, &pipeline),
        "vkCreateComputePipelines");
}

/// A host buffer's copy in host-visible device memory.
struct Buffer {
  void *host = nullptr;
  size_t bytes = 0;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void *mapped = nullptr;

  Buffer(void *hostData, size_t size) : host(hostData), bytes(size) {
    Device &d = device();
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = bytes ? bytes : 4;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vkCreateBuffer(d.device, &info, nullptr, &buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d.device, buffer, &req);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < d.memory.memoryTypeCount && type == UINT32_MAX;
         ++i)
      if ((req.memoryTypeBits & (1u << i)) &&
          (d.memory.memoryTypes[i].propertyFlags & want) == want)
        type = i;
    if (type == UINT32_MAX)
      fatal("no host-visible, coherent memory type for a storage buffer");
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    check(vkAllocateMemory(d.device, &alloc, nullptr, &memory),
          "vkAllocateMemory");
    check(vkBindBufferMemory(d.device, buffer, memory, 0),
          "vkBindBufferMemory");
    check(vkMapMemory(d.device, memory, 0, VK_WHOLE_SIZE, 0, &mapped),
          "vkMapMemory");
    if (bytes)
      std::memcpy(mapped, host, bytes);
  }
  ~Buffer() {
    Device &d = device();
    vkUnmapMemory(d.device, memory);
    vkDestroyBuffer(d.device, buffer, nullptr);
    vkFreeMemory(d.device, memory, nullptr);
  }
  /// Copies the device data back if the kernel changed it.
  void copyBack() {
    if (bytes && std::memcmp(mapped, host, bytes) != 0)
      std::memcpy(host, mapped, bytes);
  }
};

std::mutex launchMutex;

} // namespace

PE_EXPORT void *mgpuModuleLoad(void *data, size_t bytes) {
  if (bytes % 4 != 0)
    fatal("a SPIR-V binary of " + std::to_string(bytes) +
          " bytes (not whole 32-bit words)");
  auto *module = new Module;
  module->words.resize(bytes / 4);
  std::memcpy(module->words.data(), data, bytes);
  std::lock_guard<std::mutex> lock(launchMutex);
  loadedModules().insert(module);
  return module;
}

PE_EXPORT void mgpuModuleUnload(void *module) {
  std::lock_guard<std::mutex> lock(launchMutex);
  loadedModules().erase(static_cast<Module *>(module));
  delete static_cast<Module *>(module);
}

PE_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  std::lock_guard<std::mutex> lock(launchMutex);
  auto *m = static_cast<Module *>(module);
  std::unique_ptr<Function> &function = m->functions[name];
  if (!function)
    function = std::make_unique<Function>(m, name);
  return function.get();
}

PE_EXPORT void *mgpuStreamCreate() {
  static int stream;
  return &stream;
}

PE_EXPORT void mgpuStreamDestroy(void *) {}

PE_EXPORT void mgpuStreamSynchronize(void *) {}

PE_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                intptr_t gridZ, intptr_t, intptr_t, intptr_t,
                                int32_t sharedMemoryBytes, void *,
                                void **params, void **, size_t paramCount) {
  std::lock_guard<std::mutex> lock(launchMutex);
  auto *fn = static_cast<Function *>(function);
  if (sharedMemoryBytes != 0)
    fatal("kernel '" + fn->name +
          "': dynamic shared memory is not supported by the Vulkan runtime");
  if (paramCount % 2 != 0)
    fatal("kernel '" + fn->name +
          "': parameters are not (buffer, size) pairs; lower the host code "
          "with gpu-to-llvm{use-bare-pointers-for-kernels "
          "intersperse-sizes-for-kernels} and give kernels only memref "
          "arguments");
  uint32_t numBuffers = static_cast<uint32_t>(paramCount / 2);
  fn->build(numBuffers);
  Device &d = device();

  std::vector<std::unique_ptr<Buffer>> buffers;
  for (uint32_t i = 0; i < numBuffers; ++i) {
    void *host = *static_cast<void **>(params[2 * i]);
    int64_t bytes = *static_cast<int64_t *>(params[2 * i + 1]);
    if (bytes < 0)
      fatal("kernel '" + fn->name + "': negative buffer size");
    buffers.push_back(std::make_unique<Buffer>(host, size_t(bytes)));
  }

  VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                numBuffers ? numBuffers : 1};
  VkDescriptorPoolCreateInfo poolInfo{
      VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  VkDescriptorPool pool;
  check(vkCreateDescriptorPool(d.device, &poolInfo, nullptr, &pool),
        "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo setAlloc{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  setAlloc.descriptorPool = pool;
  setAlloc.descriptorSetCount = 1;
  setAlloc.pSetLayouts = &fn->setLayout;
  VkDescriptorSet set;
  check(vkAllocateDescriptorSets(d.device, &setAlloc, &set),
        "vkAllocateDescriptorSets");
  std::vector<VkDescriptorBufferInfo> infos(numBuffers);
  std::vector<VkWriteDescriptorSet> writes(numBuffers);
  for (uint32_t i = 0; i < numBuffers; ++i) {
    infos[i] = {buffers[i]->buffer, 0, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(d.device, numBuffers, writes.data(), 0, nullptr);

  VkCommandBufferAllocateInfo cmdAlloc{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cmdAlloc.commandPool = d.pool;
  cmdAlloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cmdAlloc.commandBufferCount = 1;
  VkCommandBuffer cmd;
  check(vkAllocateCommandBuffers(d.device, &cmdAlloc, &cmd),
        "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, fn->pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, fn->layout, 0, 1,
                          &set, 0, nullptr);
  vkCmdDispatch(cmd, uint32_t(gridX), uint32_t(gridY), uint32_t(gridZ));
  check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  check(vkCreateFence(d.device, &fenceInfo, nullptr, &fence), "vkCreateFence");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  check(vkQueueSubmit(d.queue, 1, &submit, fence), "vkQueueSubmit");
  check(vkWaitForFences(d.device, 1, &fence, VK_TRUE, UINT64_MAX),
        "vkWaitForFences");
  vkDestroyFence(d.device, fence, nullptr);
  vkFreeCommandBuffers(d.device, d.pool, 1, &cmd);
  vkDestroyDescriptorPool(d.device, pool, nullptr);
  for (auto &buffer : buffers)
    buffer->copyBack();
}
