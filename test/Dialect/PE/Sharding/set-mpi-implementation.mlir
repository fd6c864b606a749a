// RUN: pe-opt %s --split-input-file --verify-diagnostics --pe-set-mpi-implementation | FileCheck %s
// RUN: pe-opt %s --split-input-file --verify-diagnostics --pe-set-mpi-implementation=implementation=OpenMPI | FileCheck %s --check-prefix=OMPI
// RUN: not pe-opt %s --split-input-file --pe-set-mpi-implementation=implementation=LAM 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// OMPI: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// BAD: error: pe-set-mpi-implementation: unknown MPI implementation 'LAM' (expected MPICH or OpenMPI)
module {
}

// -----

// Other entries are kept, and an entry the module has wins.
// CHECK: module attributes {dlti.map = #dlti.map<"other" = 1 : i32, "MPI:Implementation" = "MPICH">}
// OMPI: module attributes {dlti.map = #dlti.map<"other" = 1 : i32, "MPI:Implementation" = "OpenMPI">}
module attributes {dlti.map = #dlti.map<"other" = 1 : i32>} {
}

// -----

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// OMPI: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">} {
}
