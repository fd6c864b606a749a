# -*- Python -*-
# Runs the GoogleTest unit tests under lit, one lit test per gtest case.

import os

import lit.formats

config.name = "PE-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.pe_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# PE_SANITIZE builds: every sanitizer report aborts the test binary.
if getattr(config, "pe_sanitize", False):
    config.environment.setdefault(
        "ASAN_OPTIONS", "abort_on_error=1:halt_on_error=1:detect_leaks=1:allow_user_poisoning=0")
    config.environment.setdefault(
        "UBSAN_OPTIONS", "abort_on_error=1:halt_on_error=1:print_stacktrace=1")
