# lit configuration that runs every GoogleTest binary under <build>/test/Unit.
import os
import lit.formats

config.name = "gnnc-unit"
config.suffixes = []
config.test_source_root = os.path.join(config.gnnc_obj_root, "test", "Unit")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
