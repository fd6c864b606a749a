//===- Passes.td - pe conversion passes --------------------*- tablegen -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_CONVERSION_PASSES_TD
#define PE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertPEToLinalg : Pass<"convert-pe-to-linalg"> {
  let summary = "Lower every pe op to linalg, tensor, arith and math";
  let description = [{
    Rewrites each `pe` op into its plain, unfused meaning on tensors:
    `linalg.generic` ops whose bodies evaluate the formulas stated in the op
    descriptions, with `arith`/`math`/`tensor` ops around them.
    `pe.attention` becomes the textbook composition (scores, bias and
    masks, a max-subtracted softmax, the weighted sum of values); frequency
    ops with constant inputs become constants (through their folders) and
    the run-time ones (dynamic NTK, LongRoPE with a run-time length) become
    scalar arithmetic; an f32 frequency table used only as rope frequencies
    is first made f64 (`populateWidenRopeFrequenciesPatterns`), the exact
    values those angles are defined with. This is a partial conversion with the `pe` dialect
    illegal: an op that cannot be lowered (for example attention with
    dynamic head counts) makes the pass fail with a diagnostic.

    It defines the reference semantics that `pe-run --check=reference`
    compares optimised pipelines against.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ConvertPEToVector : Pass<"convert-pe-to-vector"> {
  let summary = "Generate vector kernels for attention and RoPE on the CPU";
  let description = [{
    **Attention.**
    Replaces each `pe.attention` without a bias or mask tensor by a
    flash-attention kernel in `scf`/`vector`/`memref` generated
    for its exact combination of encodings: RoPE (either layout, partial
    rotary, inv_freq or cache tables, attention scaling, query and key
    offsets, or none), ALiBi (any distance, computed from indices), causal
    masking (with whole key blocks above the diagonal skipped), softcap in
    either order. Memory stays O(T D): the keys of one head are rotated and
    packed once into blocked, transposed scratch, queries are rotated per
    64-row block, and the scores of a 64 x 64 block live in a 16 KiB
    buffer (per key block, all 16 groups of 4 query rows are scored before
    any softmax and `P V`, so that the key block and then the value block
    stay in the L1 cache).

    The kernel runs in parallel over batch x heads (`scf.parallel`, lowered
    to OpenMP by `pe-cpu-pipeline`) and is vectorised for the target that
    the module's `llvm.target` attribute names (written by
    `pe-attach-cpu-target`; without one, the tool's default target, which
    pe-opt and pe-run set to the host): 16 f32 lanes with AVX-512F, 8 with
    AVX2 and FMA, 4 on SSE2 and NEON. With bf16 query, key and value and a
    target that has AVX512-BF16, the prefill kernel forms `Q K^T` and `P V` with bf16 dot products
    (`x86vector.avx512.dot`, f32 accumulation; keys packed as channel pairs,
    values as key pairs, P rounded to bf16, as `pe.attention` allows);
    without the feature, and for decode, a bf16 attention runs the f32
    kernel on widened operands and the pass says why in a remark
    (`bf16-dot`). Ops it does not support (non-f32 element types, head
    dimensions that are not multiples of the lane count, dynamic head
    counts) are left for `convert-pe-to-linalg`, and the pass reports
    each with its reason as a missed-optimization remark in category
    `convert-pe-to-vector` (`--remarks-filter=convert-pe-to-vector`).

    **RoPE.** A standalone `pe.rope` on f32 with offset positions becomes a
    parallel loop over (64-token block, chunk of the leading dimensions):
    each task computes the cos/sin rows of its block (in f64: Cody-Waite
    reduction to [-pi/4, pi/4] and polynomials, rounded once to f32) or
    gathers them from the caches, and rotates every row of its chunk (all
    heads, unless there are few token blocks) with vectors of the target's
    width: contiguous halves for the `half` layout, neighbour swaps for
    `interleaved`.

    **Sinusoidal PE.** A `pe.add_sinusoidal` on f32 with offset positions and
    a multiple of 16 channels becomes a parallel loop over 64-token blocks
    that evaluates the encoding in f64 and adds it in f64 (one rounding, as
    the op states): channel pairs that are the sin and cos of one angle share
    one reduction and pair of polynomials, and when every angle of the block
    is at most 2^20 only its first row is evaluated so, the next rows
    following by the angle-addition formulas; other layouts use one sine per
    channel with cos channels shifted by a quarter turn.

    **Decode.** An attention with one query per head runs in parallel over
    (batch, KV head), the query heads of a GQA group together: scores 16
    keys at a time (each key row loaded once for the group), each head's
    maximum kept as they go, then `P V`, which takes the softmax weights 16
    keys at a time as it reaches them. Each pass over the K or V cache
    starts with its first `decode-prefetch-bytes` of rows prefetched into
    the L2 (`memref.prefetch`) and stays that far ahead, unless the pass
    runs fewer than `decode-prefetch-min-ops` vector operations per 64-byte
    line (by default: f32 rows read by one query head, a single multiply-add
    per line), where the software prefetch slowed the pass. A pass with
    fewer than `decode-prefetch-l2-min-ops` operations per line (by default
    8: f32 rows for a GQA group of up to 7 heads, f16/bf16 rows for one or
    two heads) prefetches into the L1 instead (locality 3), where the f32
    GQA step read faster.

    **Scratch.** Each task of the attention kernels (the scf.parallel
    body) is built in a `memref.alloca_scope`; its scratch buffers whose
    size is known at compile time go on the stack (`memref.alloca`) while
    the task's total stays within `stack-scratch-bytes`, the others on the
    heap (`memref.alloc`). A heap buffer per task costs a malloc and a free
    in every task of every call.

    Results of the RoPE and sinusoidal kernels of 32 MiB or more are written
    with non-temporal stores.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::x86vector::X86VectorDialect",
  ];
  let options = [
    Option<"decodePrefetchBytes", "decode-prefetch-bytes", "int64_t",
           /*default=*/"8192",
           "Decode kernel: prefetch the K and V cache rows this many bytes "
           "ahead of the row in use (one prefetch per 64-byte line); 0 turns "
           "the software prefetch off">,
    Option<"decodePrefetchMinOps", "decode-prefetch-min-ops", "int64_t",
           /*default=*/"2",
           "Decode kernel: a pass over the K or V cache prefetches only if "
           "it runs at least this many vector operations per 64-byte line "
           "(per 16 lanes, a multiply-add per query head of the GQA group, "
           "a conversion from f16/bf16, two for rotating a key); lighter "
           "passes leave the lines to the hardware prefetchers; 0 or 1: "
           "every pass prefetches">,
    Option<"decodePrefetchL2MinOps", "decode-prefetch-l2-min-ops", "int64_t",
           /*default=*/"8",
           "Decode kernel: a pass that prefetches does so into the L2 if it "
           "runs at least this many vector operations per 64-byte line, "
           "into the L1 if fewer; 0: every pass into the L2">,
    Option<"stackScratchBytes", "stack-scratch-bytes", "int64_t",
           /*default=*/"131072",
           "Attention kernels: each parallel task's scratch buffers of "
           "static size go on the stack (memref.alloca in a "
           "memref.alloca_scope per task) while the task's total stays "
           "within this many bytes; the others, and all with 0, are "
           "allocated on the heap">,
  ];
}

def AttachCPUTarget : Pass<"pe-attach-cpu-target", "::mlir::ModuleOp"> {
  let summary = "Name the CPU target of the generated kernels and of the "
                "LLVM translation";
  let description = [{
    Checks a CPU target (an LLVM triple, CPU and feature flags) against
    LLVM's target registry and writes it on the module: `llvm.target`
    (`#llvm.target<triple = ..., chip = ..., features = ...>`), which
    `convert-pe-to-vector` reads for its vector width and feature-gated
    paths, `llvm.target_triple`, and `target_cpu` / `target_features` on
    every function with a body, which the translation to LLVM IR turns
    into the module's triple and the functions' "target-cpu" and
    "target-features", so that the backend compiles for that target.

    The target is the options' when `triple` is given, else the module's
    own `llvm.target`, else the tool's default target (pe-opt and pe-run:
    the host). Unknown triples, CPUs and feature names, and targets other
    than x86-64 and AArch64, are errors.

    Example: `pe-attach-cpu-target{triple=x86_64-unknown-linux-gnu
    cpu=x86-64-v3}` (AVX2 + FMA: 8-lane kernels).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"triple", "triple", "std::string", /*default=*/"",
           "LLVM target triple ('x86_64-unknown-linux-gnu', "
           "'aarch64-unknown-linux-gnu'); empty: the module's llvm.target, "
           "else the tool's default">,
    Option<"cpu", "cpu", "std::string", /*default=*/"",
           "Target CPU ('x86-64-v3', 'znver4', 'neoverse-n1'); empty: the "
           "triple's generic CPU. Only with triple">,
    Option<"features", "features", "std::string", /*default=*/"",
           "Target features in LLVM's syntax ('+avx512bf16,-avx512fp16'), "
           "on top of the CPU's. Only with triple">,
  ];
}

def ExpandBF16Conversions
    : Pass<"pe-expand-bf16-conversions", "::mlir::ModuleOp"> {
  let summary = "Round f32 to bf16 in integer arithmetic where the CPU "
                "target's LLVM backend would call a library function";
  let description = [{
    LLVM 22's X86 backend lowers `fptrunc` to `bfloat` without AVX512-BF16
    (every AVX2 machine, and AVX-512 ones such as `x86-64-v4` or
    `skylake-avx512`) to one `__truncsfbf2` call per element, also inside
    vector kernels: a bf16 RoPE of 16M elements spent about 10x the time of
    its memory traffic in those calls, and its streaming stores were lost
    with them. For a module whose CPU target (`llvm.target`, see
    `pe-attach-cpu-target`) is x86-64 without `avx512bf16`, this pass
    applies MLIR's bf16 expansion (`arith::populateExpandBFloat16Patterns`,
    as `arith-expand{include-bf16}`) with its own `arith.truncf` expansion
    ahead of upstream's: `arith.truncf` f32 to bf16 and `arith.extf` from
    bf16 become bit casts, shifts and integer rounding (round to nearest
    even; a NaN gets the quiet bit and keeps its sign and leading payload
    bits, as `vcvtneps2bf16` rounds it), scalars and vectors alike, which
    vectorise. The NaN case is selected on the i32 bits before the shift:
    upstream's expansion selects a bf16 NaN constant after the bit cast,
    which LLVM's InstCombine turns into a select on bf16 vectors that the
    X86 backend scalarizes (a compare, a cmov and a 2-byte store per lane,
    streaming stores lost). Other rounding modes and f64 to bf16 are left
    as they are. On targets with AVX512-BF16 (`vcvtneps2bf16`) and on
    AArch64 (whose backend expands it inline) nothing changes.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ConvertPEToGPU : Pass<"convert-pe-to-gpu"> {
  let summary = "Generate GPU kernels (gpu.launch) for attention, RoPE and "
                "sinusoidal PE";
  let description = [{
    Replaces each `pe.attention` without a bias or mask tensor, and each
    `pe.rope` and `pe.add_sinusoidal` with offset positions, by a
    `gpu.launch` kernel on memrefs,
    generated for the op's exact encodings (read through the op's
    accessors). The kernels are target-neutral gpu dialect: workgroup
    buffers and per-thread arrays are launch attributions, and
    `pe-gpu-pipeline` lowers them to NVVM (PTX) or SPIR-V.

    **Attention.** One block per (tile of `block-rows` query rows, KV head,
    batch), one thread per query row; the rows of a block are the (query
    head of the GQA group, token) pairs of one KV head, so query heads that
    share a KV head share its tiles, and a decode step (one token) still
    fills a block with a GQA group. Per tile of `key-tile` keys (only the
    tiles that the causal limit and the sliding window leave) the threads
    stage K, rotated as it is loaded, and V in workgroup memory, then each
    thread scores its row (softcap, ALiBi, causal/window/`kv_lengths` masks
    all from indices), keeps an online softmax (running max and sum, one
    rescale of the accumulator per tile) and accumulates P V. A decode
    attention (one query token) splits its key range into
    `decode-split-keys` pieces (split-KV): each piece is a block of its
    own, writing the unnormalised O and its max and sum, and a second kernel
    merges the pieces of each row (the same merge as `lse`-based key
    splits), so that long caches get many blocks rather than B x Hkv. The cos/sin of
    every query and key position (f64 angles, rounded once to f32, or rows
    of the caches) and the ALiBi slopes are computed on the host. The math
    is f32; f16 and bf16 operands are converted as they are loaded and the
    result is rounded once.

    **RoPE.** One thread per rotated pair (or copied channel) of every row,
    with the same host cos/sin table.

    **Sinusoidal PE.** The `[T, C]` encoding is evaluated on the host in f64;
    one thread per element adds it to the (scaled) input in f64 and rounds
    once, as the op states.

    **Tensor cores.** With `tensor-cores=auto` and an NVVM `chip` of sm_80 or
    above, an f16 or bf16 attention with more than one query token and head
    dimensions that are multiples of 16 up to 128 gets a FlashAttention-2
    style kernel instead: 4 warps of 16 query rows per block, S = Q K^T and
    O += P V with `mma.sync` m16n8k16 (f16/bf16 inputs, f32 accumulators) on
    fragments, the score modifications and masks per accumulator element
    from its row and column, and the online softmax reduced over the 4 lanes
    of a fragment row with `gpu.shuffle xor`. `tensor-cores=emulate` builds the
    same kernel on any target with each `mma.sync` and each shuffle emulated
    through workgroup memory in the exact PTX fragment layouts (for testing
    the kernel on SPIR-V/lavapipe). An f16/bf16 attention that keeps the
    SIMT kernel is reported (remark `tensor-core-kernel`) with the reason.

    **Workgroup memory.** The K/V tiles are the kernels' static workgroup
    memory: `key-tile x (D + Dv)` f32 values in the SIMT kernel (4 bytes each;
    the input type, 2 bytes, in the tensor-core kernel, plus its emulation
    buffers when emulated). A kernel whose tiles of `key-tile` keys would
    exceed `shared-memory-bytes` takes the largest key tile that fits (a
    multiple of 16 in the tensor-core kernel) and says so (remark
    `key-tile`); an f16/bf16 attention whose tensor-core tiles of 16 keys do
    not fit keeps the SIMT kernel (remark `tensor-core-kernel`), and an
    attention whose SIMT tile of one key does not fit runs on the host
    (remark `attention-kernel`).

    Ops without a kernel (other element types, explicit bias or mask, dynamic
    head counts or head dimension, positions tensors, per-token caches) stay
    for `convert-pe-to-linalg`, which runs them on the host, and the pass
    reports each with its reason as a missed-optimization remark in category
    `convert-pe-to-gpu`.
  }];
  let options = [
    Option<"blockRows", "block-rows", "int64_t", /*default=*/"64",
           "Query rows (threads) per attention block">,
    Option<"keyTile", "key-tile", "int64_t", /*default=*/"32",
           "Keys per K/V tile staged in workgroup memory (at most: fewer "
           "where the tiles would exceed shared-memory-bytes)">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t",
           /*default=*/"49152",
           "Static workgroup memory a kernel may use, in bytes (49152: a "
           "CUDA kernel's static shared memory); the attention kernels "
           "take the largest key tile up to key-tile that fits">,
    Option<"decodeSplitKeys", "decode-split-keys", "int64_t",
           /*default=*/"128",
           "Keys per split of a decode attention (one query token): each "
           "split is a block of its own and a second kernel combines them "
           "(split-KV); rounded down to whole key tiles, at most 64 splits; "
           "0: one block per KV head and batch">,
    Option<"ropeBlock", "rope-block", "int64_t", /*default=*/"128",
           "Threads per block of the RoPE kernel">,
    Option<"allowF16", "allow-f16", "bool", /*default=*/"true",
           "Generate kernels for f16 operands (the target can load, convert "
           "and store f16)">,
    Option<"allowBF16", "allow-bf16", "bool", /*default=*/"true",
           "Generate kernels for bf16 operands (the target can load, convert "
           "and store bf16)">,
    Option<"staticBuffersOnly", "static-buffers-only", "bool",
           /*default=*/"false",
           "Generate kernels only for ops with static shapes, so that every "
           "kernel buffer has a static size (for runtimes that bind buffers "
           "by static size)">,
    Option<"tensorCores", "tensor-cores", "std::string", /*default=*/"\"auto\"",
           "Tensor-core attention kernel for f16/bf16: auto (mma.sync when "
           "`chip` is sm_80 or above), off (the SIMT kernel), emulate (the "
           "same fragment kernel with mma.sync and shuffles emulated through "
           "workgroup memory, on any target)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "NVVM chip the kernels are for (sm_80, sm_90, ...); empty: a "
           "target without mma.sync">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // PE_CONVERSION_PASSES_TD
