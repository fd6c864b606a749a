#!/bin/sh
# One rank under faulty-mpiexec.sh: rank 1 (PMI_RANK, set by MPICH's Hydra)
# hangs, crashes or exits early as MODE says; every other rank runs the
# command it was given.
mode=$1
shift
if [ "$PMI_RANK" = 1 ]; then
  case $mode in
    hang) exec sleep 1000 ;;
    crash) kill -SEGV $$ ;;
    exit) exit 3 ;;
    early) exit 0 ;;
  esac
fi
exec "$@"
