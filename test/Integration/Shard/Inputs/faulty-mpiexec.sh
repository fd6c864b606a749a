#!/bin/sh
# A launcher for the cleanup tests, given to pe-run as
#   --mpiexec='sh faulty-mpiexec.sh MODE'
# pe-run appends `-n N PE-RUN ARGS...`. It runs mpiexec.mpich with the same
# process count, and rank 1 replaced according to MODE: `hang` (it sleeps
# for 1000 s), `crash` (it dies by SIGSEGV), `exit` (it exits with status 3
# before MPI_Init) or `early` (it exits with status 0 before MPI_Init). The
# other ranks are pe-run's.
mode=$1
shift
[ "$1" = "-n" ] || { echo "faulty-mpiexec.sh: expected -n N, got '$1'" >&2; exit 2; }
n=$2
shift 2
exec mpiexec.mpich -n "$n" sh "$(dirname "$0")/faulty-rank.sh" "$mode" "$@"
