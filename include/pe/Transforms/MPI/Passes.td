//===- Passes.td - shard to MPI passes ---------------------*- tablegen -*-===//
//
// Part of the pe-mlir project.
//
// Passes that fill gaps of MLIR 22 itself, independent of the pe dialect;
// each one's description says what MLIR lacks.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TRANSFORMS_MPI_PASSES_TD
#define PE_TRANSFORMS_MPI_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerShardCollectives : Pass<"pe-lower-shard-collectives", "ModuleOp"> {
  let summary = "Lower the shard collectives that convert-shard-to-mpi leaves behind";
  let description = [{
    MLIR 22's `convert-shard-to-mpi` lowers `shard.all_reduce`, the process
    index ops and halo updates, and leaves every other collective in place
    while still succeeding. This pass, run on the partitioned program before
    it, rewrites the ones a partitioned pe program produces into
    `shard.all_reduce` and tensor slicing, exactly:

    * `shard.all_gather`: each process writes its block into a zero tensor of
      the gathered shape at its offset, and an all-reduce sum fills in the
      others' blocks (x + 0 is exact);
    * `shard.all_to_all`: that gather along the concatenation axis, then the
      process's block along the split axis;
    * `shard.reduce_scatter`: an all-reduce, then the process's block;
    * `shard.all_slice`: the process's block (upstream patterns).

    Static shapes only. Any other collective (`shard.broadcast`,
    `shard.gather`, `shard.scatter`, `shard.reduce`, `shard.send`,
    `shard.recv`, `shard.shift`), or one of the above with a dynamic shape,
    is an error that names it, so that nothing reaches the LLVM translation
    unlowered.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::shard::ShardDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def SetMPIImplementation : Pass<"pe-set-mpi-implementation", "ModuleOp"> {
  let summary = "State which MPI library the mpi dialect is lowered for";
  let description = [{
    The lowering of the `mpi` dialect to LLVM (MLIR 22's `convert-to-llvm`)
    targets the ABI of one MPI library, the one the module's DLTI map entry
    `"MPI:Implementation"` names, and reports an error when the module has no
    such entry. This pass adds the entry (`dlti.map = #dlti.map<
    "MPI:Implementation" = "MPICH">`) to a module that has none; an entry the
    module already has is kept. `implementation` is `MPICH` (the library the
    MLIR 22 lowering works with as shipped) or `OpenMPI`.
  }];
  let options = [
    Option<"implementation", "implementation", "std::string",
           /*default=*/"\"MPICH\"",
           "The MPI library: MPICH or OpenMPI">,
  ];
  let dependentDialects = ["::mlir::DLTIDialect"];
}

def FinalizeShardToMPI : Pass<"pe-finalize-shard-to-mpi", "ModuleOp"> {
  let summary = "Check that convert-shard-to-mpi lowered everything, drop the grids";
  let description = [{
    Runs after `convert-shard-to-mpi`, which succeeds even when it leaves
    `shard` ops behind. Any `shard` op other than `shard.grid` left in the
    module is an error naming it; the `shard.grid` declarations, which
    nothing refers to any more, are erased, so that the module contains no
    `shard` op for the LLVM translation to trip over.
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

def FreeMPICommunicators : Pass<"pe-free-mpi-communicators", "ModuleOp"> {
  let summary = "Free the communicator of each MPI_Comm_split after its last use";
  let description = [{
    `convert-shard-to-mpi` creates a communicator with `mpi.comm_split` for
    every collective, and MLIR 22's mpi dialect has no op to free one, so
    the lowered program leaks one communicator per collective per call: a
    function called in a loop runs out of MPI context ids (MPICH has a few
    thousand) and fails in `MPI_Comm_split`.

    Runs after the mpi dialect is lowered to LLVM calls. For each
    `llvm.call @MPI_Comm_split(..., %newcomm)` it inserts
    `llvm.call @MPI_Comm_free(%newcomm)` in the same block, after the last
    operation that uses the communicator loaded from `%newcomm` (through
    casts and extensions), and declares `MPI_Comm_free` if needed. The
    signature `int MPI_Comm_free(MPI_Comm *)` is the same for MPICH and
    Open MPI. A split whose communicator is stored, returned or passed to a
    block is left alone, with a remark: then its lifetime is not local.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // PE_TRANSFORMS_MPI_PASSES_TD
