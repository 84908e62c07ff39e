# lit configuration: every *.tir (IR text) and *.tile file under tests/lit
# with a RUN: line is a test.
import os
import lit.formats

config.name = "tile"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tir", ".tile", ".test"]
config.test_source_root = os.path.dirname(__file__)
# Outputs (%t files) go under the build tree, next to lit.site.cfg.py.
config.test_exec_root = os.path.join(os.path.dirname(config.tile_bin_dir), "tests", "lit")
config.excludes = ["Inputs"]
config.substitutions.append(("%tile-opt", os.path.join(config.tile_bin_dir, "tile-opt")))
config.substitutions.append(("%tilec", os.path.join(config.tile_bin_dir, "tilec")))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%examples", os.path.join(config.tile_src_root, "dsl_examples")))
config.environment["NO_COLOR"] = "1"
# No test reads or fills the user's kernel cache (~/.cache/tile); the cache's
# own tests turn it on with a TILE_CACHE_DIR of their own.
config.environment["TILE_CACHE"] = "0"
# "ptxas": tests that assemble cubins need CUDA's ptxas (PATH or /usr/local/cuda/bin).
import shutil
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"))
