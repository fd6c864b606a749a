# -*- Python -*-
# Runs the GoogleTest unit tests under lit, one lit test per gtest case.

import os

import lit.formats

config.name = "PE-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.pe_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
