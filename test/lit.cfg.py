# lit configuration for gnnc's FileCheck suites (.gnn, .mlir, .test files).
import os
import shutil
import tempfile
import subprocess
import sys
import lit.formats
from lit.llvm import llvm_config

config.name = "gnnc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".gnn", ".mlir", ".test"]
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gnnc_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"
# lit runs tests side by side, each trainer with its OpenMP threads: idle
# threads that spin (libgomp's default) take the cores the other tests need
# (a 1.5 s GIN epoch took 110 s at load 14). Results do not depend on it.
config.environment["OMP_WAIT_POLICY"] = "passive"
# mpirun as root in tests.
config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"

config.substitutions.append(("%gnnc_src", config.gnnc_src_root))
config.substitutions.append(("%stdlib", os.path.join(config.gnnc_src_root, "stdlib")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%examples", os.path.join(config.gnnc_src_root, "examples")))
# Test-only programs (test/Distributed/Helpers), built beside the tests.
config.substitutions.append(
    ("%helpers", os.path.join(config.gnnc_obj_root, "test", "Distributed", "Helpers")))

llvm_config.with_system_environment(["HOME", "TMPDIR", "PATH"])
llvm_config.use_default_substitutions()  # FileCheck, not, count from llvm_tools_dir

tool_dirs = [config.gnnc_tools_dir, config.llvm_tools_dir]
tools = ["gnnc", "gnn-opt", "gnn-translate", "gnn-data", "gnn-partition", "gnn-lsp",
         "gnn-plot", "gnn-run", "not"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Debian's METIS command-line programs (package metis), to compare with.
if shutil.which("gpmetis"):
    config.available_features.add("gpmetis")

# Vim, to check tools/editor/vim's syntax file.
if shutil.which("vim"):
    config.available_features.add("vim")

if config.gnnc_have_cuda:
    config.available_features.add("cuda")

# Distributed runs: Open MPI's launcher, allowed to run as root (CI is root)
# and to place more ranks than cores.
if shutil.which("mpirun"):
    config.available_features.add("mpirun")
    config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    config.environment["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    config.substitutions.append(("%mpirun", "mpirun --oversubscribe"))

# A real single-node Slurm (Debian's slurm-wlm): test/Distributed/slurm.test
# starts its own slurmctld and slurmd through slurm-cluster.sh.
if all(shutil.which(t) for t in ("slurmctld", "slurmd", "srun", "sinfo")):
    config.available_features.add("slurm")


# Hosts built as network namespaces (test/Distributed/netns-cluster.sh): needs
# `ip` and `unshare`, and the right to create a namespace (root or
# CAP_NET_ADMIN), which only trying shows.
def can_make_network_namespaces():
    if not (shutil.which("ip") and shutil.which("unshare")):
        return "ip (iproute2) or unshare (util-linux) is not installed"
    probe = "gnnc-probe-%d" % os.getpid()
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return "cannot create a network namespace (needs root or CAP_NET_ADMIN): " + \
            made.stderr.strip()
    subprocess.run(["ip", "netns", "delete", probe], capture_output=True)
    return None


why_not = can_make_network_namespaces()
if why_not is None:
    config.available_features.add("netns")
else:
    lit_config.note("tests across network-namespace hosts are skipped: " + why_not)


# A small file system that fills up (tests of a full disk): a tmpfs mounted
# in a private mount namespace (`unshare -m`), so it goes with the test's
# process. Needs root or CAP_SYS_ADMIN, which only trying shows.
def can_mount_private_tmpfs():
    if not shutil.which("unshare"):
        return "unshare (util-linux) is not installed"
    with tempfile.TemporaryDirectory() as where:
        made = subprocess.run(["unshare", "-m", "sh", "-c",
                               "mount -t tmpfs -o size=1M tmpfs " + where],
                              capture_output=True, text=True)
    if made.returncode != 0:
        return "cannot mount a tmpfs in a mount namespace: " + made.stderr.strip()
    return None


why_not = can_mount_private_tmpfs()
if why_not is None:
    config.available_features.add("tmpfs")
else:
    lit_config.note("tests of a full disk are skipped: " + why_not)
