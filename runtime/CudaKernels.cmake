# The CUDA half of the kernels (lib/kernels/cuda/*.cu, declared in
# include/gnnrt/kernels/cuda/), built twice (docs/cuda-emulation.md):
#
#  - gnnrt_kernels_cuda: by nvcc for sm_80 and sm_90, when CUDA is found.
#    RuntimeTests then runs the CUDA kernel tests natively; they skip on a
#    machine without a device.
#  - gnnrt_kernels_cuda_emulated: by the host compiler, each .cu file as C++
#    with the emulation layer (gnnrt_cudaemu) force-included and its shim
#    <cuda_runtime.h>/<cublas_v2.h> first on the include path. Always built:
#    CudaEmulatedTests runs the same kernel tests on it, plus the
#    emulation's own tests; CudaEmulatedAsanTests runs them all again with
#    every emulated part built with -fsanitize=address (GNNC_CUDA_EMULATION_ASAN).
#
# Nothing else in gnnrt depends on either library.

set(GNNRT_CUDA_SOURCES
  lib/kernels/cuda/Aggregate.cu
  lib/kernels/cuda/Axis.cu
  lib/kernels/cuda/BFloat16Rows.cu
  lib/kernels/cuda/Dropout.cu
  lib/kernels/cuda/Edge.cu
  lib/kernels/cuda/Gemm.cu
  lib/kernels/cuda/Loss.cu
  lib/kernels/cuda/Norm.cu
  lib/kernels/cuda/Optimizer.cu
  lib/kernels/cuda/Relational.cu
  lib/kernels/cuda/Scan.cu
  lib/kernels/cuda/SegmentSort.cu
  # The device runtime the kernels run on: memory, streams, the workspace.
  lib/kernels/cuda/device/Memory.cu
  lib/kernels/cuda/device/Stream.cu
  lib/kernels/cuda/device/Workspace.cu
  # Ranks on devices: collectives between them (NCCL, or the emulation's
  # MPI stand-in) and the halo exchange over device rows.
  lib/comm/DeviceHaloExchange.cu
  lib/comm/NcclCommunicator.cu
  # The CUDA half of sample/: neighbour sampling with the CPU sampler's
  # draws (NeighborSampling), on the device.
  lib/sample/cuda/DeviceSampler.cu
  lib/sample/cuda/DeviceBlockBuilder.cu
  # The trainer's device side: host contexts run by device entry points
  # (gnnrt/train/DeviceProgram.h), for trainers built by gnnc --target=cuda,
  # and each rank's choice of device.
  lib/train/cuda/AsyncBatchCopies.cu
  lib/train/cuda/DeviceBatchSource.cu
  lib/train/cuda/DeviceExecution.cu
  lib/train/cuda/DeviceParameters.cu
  lib/train/cuda/DeviceSelection.cu)

# The kernel tests, the same sources for both builds.
set(_gnnrt_cuda_test_dir ${GNNC_SOURCE_DIR}/test/Unit/Runtime/kernels/cuda)
set(GNNRT_CUDA_TESTS
  ${_gnnrt_cuda_test_dir}/AggregateTest.cpp
  ${_gnnrt_cuda_test_dir}/AxisTest.cpp
  ${_gnnrt_cuda_test_dir}/NormTest.cpp
  ${_gnnrt_cuda_test_dir}/DropoutTest.cpp
  ${_gnnrt_cuda_test_dir}/EdgeTest.cpp
  ${_gnnrt_cuda_test_dir}/GemmTest.cpp
  ${_gnnrt_cuda_test_dir}/LossTest.cpp
  ${_gnnrt_cuda_test_dir}/OptimizerTest.cpp
  ${_gnnrt_cuda_test_dir}/RelationalTest.cpp
  ${_gnnrt_cuda_test_dir}/ScanTest.cpp
  ${_gnnrt_cuda_test_dir}/SegmentSortTest.cpp
  ${_gnnrt_cuda_test_dir}/WorkspaceTest.cpp
  ${GNNC_SOURCE_DIR}/test/Unit/Runtime/sample/cuda/DeviceBlockBuilderTest.cpp
  ${GNNC_SOURCE_DIR}/test/Unit/Runtime/sample/cuda/DeviceSamplerTest.cpp)
# Tests of the emulation itself (deliberately wrong kernels among them).
set(_gnnrt_cudaemu_test_dir ${GNNC_SOURCE_DIR}/test/Unit/Runtime/cudaemu)
set(GNNRT_CUDAEMU_TESTS
  ${_gnnrt_cudaemu_test_dir}/SchedulerTest.cu
  ${_gnnrt_cudaemu_test_dir}/RuntimeApiTest.cpp)

option(GNNC_CUDA_EMULATION_ASAN
  "Build and run the emulated CUDA tests a second time under AddressSanitizer" ON)

#===-- nvcc ---------------------------------------------------------------===#
if(GNNC_HAVE_CUDA)
  add_library(gnnrt_kernels_cuda STATIC ${GNNRT_CUDA_SOURCES})
  target_include_directories(gnnrt_kernels_cuda PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)
  # Private headers by their folder under lib/kernels (cuda/Common.h), as
  # the emulated build finds them.
  target_include_directories(gnnrt_kernels_cuda PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/lib/kernels)
  # gnnrt_kernels: the run's gather storage (GatherStorage.h), which bf16
  # runs set and the device kernels read.
  target_link_libraries(gnnrt_kernels_cuda PUBLIC gnnrt_support gnnrt_graph
    gnnrt_kernels CUDA::cudart CUDA::cublas CUDA::cublasLt)
  # NCCL for the ranks' collectives between GPUs: the toolkit's own first.
  # Without it the build still passes, and a trainer refuses several ranks
  # (NcclCommunicator.cu).
  find_path(GNNRT_NCCL_INCLUDE_DIR nccl.h
    HINTS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}/include)
  find_library(GNNRT_NCCL_LIBRARY nccl
    HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib)
  if(GNNRT_NCCL_INCLUDE_DIR AND GNNRT_NCCL_LIBRARY)
    message(STATUS "gnnrt: NCCL ${GNNRT_NCCL_LIBRARY}")
    target_include_directories(gnnrt_kernels_cuda PRIVATE
      ${GNNRT_NCCL_INCLUDE_DIR})
    target_compile_definitions(gnnrt_kernels_cuda PRIVATE GNNRT_HAVE_NCCL=1)
    target_link_libraries(gnnrt_kernels_cuda PUBLIC ${GNNRT_NCCL_LIBRARY})
  else()
    message(STATUS "gnnrt: NCCL not found: CUDA trainers run one rank")
    set(GNNRT_NCCL_LIBRARY "")
  endif()
  # Random.h's Philox is constexpr-friendly host code that kernels call.
  target_compile_options(gnnrt_kernels_cuda PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  set_target_properties(gnnrt_kernels_cuda PROPERTIES
    POSITION_INDEPENDENT_CODE ON CUDA_ARCHITECTURES "80;90")
  if(TARGET RuntimeTests)
    target_sources(RuntimeTests PRIVATE ${GNNRT_CUDA_TESTS})
    target_link_libraries(RuntimeTests PRIVATE gnnrt_kernels_cuda)
  endif()
endif()

#===-- Host compiler over the emulation layer -----------------------------===#

# The sources of an emulated build: each .cu file as a generated C++
# translation unit that includes it (so that its quoted includes still
# resolve beside it); other files as they are.
function(gnnrt_emulated_sources out)
  set(units)
  foreach(source ${ARGN})
    get_filename_component(abs ${source} ABSOLUTE
      BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(NOT abs MATCHES "\\.cu$")
      list(APPEND units ${abs})
      continue()
    endif()
    file(RELATIVE_PATH rel ${GNNC_SOURCE_DIR} ${abs})
    set(unit ${CMAKE_CURRENT_BINARY_DIR}/cuda-emulated/${rel}.cpp)
    file(CONFIGURE OUTPUT ${unit}
      CONTENT "// Generated: ${rel} compiled as C++ over gnnrt/cudaemu.\n#include \"${abs}\"\n")
    list(APPEND units ${unit})
  endforeach()
  set(${out} ${units} PARENT_SCOPE)
endfunction()

# What every emulated translation unit is compiled with.
function(gnnrt_emulate_cuda target)
  target_include_directories(${target} BEFORE PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/include/gnnrt/cudaemu/shim)
  target_compile_definitions(${target} PRIVATE GNNRT_CUDA_EMULATION=1)
  # No fused multiply-add the device code did not ask for: results stay
  # comparable with the CPU kernels bit for bit where those promise it.
  target_compile_options(${target} PRIVATE -ffp-contract=off
    "SHELL:-include gnnrt/cudaemu/Cuda.h")
endfunction()

function(gnnrt_sanitize target)
  target_compile_options(${target} PRIVATE -fsanitize=address
    -fno-omit-frame-pointer)
  target_link_options(${target} PUBLIC -fsanitize=address)
endfunction()

get_target_property(_gnnrt_cudaemu_sources gnnrt_cudaemu SOURCES)
gnnrt_emulated_sources(_gnnrt_emulated_kernels ${GNNRT_CUDA_SOURCES})
gnnrt_emulated_sources(_gnnrt_emulated_tests ${GNNRT_CUDAEMU_TESTS})

# gnnrt_add_emulated_cuda(<kernels library> <test binary> [ASAN]): the
# emulated CUDA kernels and, with GTest, their test binary; with ASAN, both
# and a copy of the emulation layer (gnnrt_cudaemu_asan) sanitized.
function(gnnrt_add_emulated_cuda kernels testName)
  cmake_parse_arguments(ARG "ASAN" "" "" ${ARGN})
  set(emu gnnrt_cudaemu)
  if(ARG_ASAN)
    set(emu gnnrt_cudaemu_asan)
    add_library(${emu} STATIC ${_gnnrt_cudaemu_sources})
    target_include_directories(${emu}
      PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
      PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/lib/cudaemu ${GNNRT_CBLAS_INCLUDE_DIR})
    target_link_libraries(${emu} PUBLIC Boost::context ${GNNRT_BLAS_LIBRARY}
      MPI::MPI_C)
    gnnrt_sanitize(${emu})
  endif()
  add_library(${kernels} STATIC ${_gnnrt_emulated_kernels})
  target_include_directories(${kernels} PUBLIC
    ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_include_directories(${kernels} PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/lib/kernels)
  target_link_libraries(${kernels} PUBLIC gnnrt_support gnnrt_graph
    gnnrt_kernels ${emu})
  gnnrt_emulate_cuda(${kernels})
  if(ARG_ASAN)
    gnnrt_sanitize(${kernels})
  endif()
  if(NOT GTest_FOUND)
    return()
  endif()
  add_executable(${testName} ${GNNRT_CUDA_TESTS} ${_gnnrt_emulated_tests})
  target_include_directories(${testName} PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/lib ${GNNC_SOURCE_DIR}/test/Unit/Runtime)
  target_link_libraries(${testName} PRIVATE ${kernels} gnnrt GTest::gtest
    GTest::gtest_main)
  target_compile_definitions(${testName} PRIVATE
    GNNRT_SOURCE_DIR="${GNNC_SOURCE_DIR}")
  gnnrt_emulate_cuda(${testName})
  if(ARG_ASAN)
    gnnrt_sanitize(${testName})
  endif()
  set_target_properties(${testName} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test/Unit)
  set_property(GLOBAL APPEND PROPERTY GNNC_TEST_DEPENDS ${testName})
endfunction()

gnnrt_add_emulated_cuda(gnnrt_kernels_cuda_emulated CudaEmulatedTests)
if(GNNC_CUDA_EMULATION_ASAN)
  gnnrt_add_emulated_cuda(gnnrt_kernels_cuda_emulated_asan
    CudaEmulatedAsanTests ASAN)
endif()
