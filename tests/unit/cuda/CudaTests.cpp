// CudaTests.cpp - CUDA runtime tests that need no GPU: error messages, the
// driver being unavailable, TILE_NO_GPU.
#include "cuda/Cuda.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <string>

using namespace tile::cuda;

namespace {

/// Sets an environment variable for one scope, restoring the old value.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : Name(name) {
    if (const char *old = std::getenv(name))
      Old = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (Old)
      setenv(Name, Old->c_str(), 1);
    else
      unsetenv(Name);
  }

private:
  const char *Name;
  std::optional<std::string> Old;
};

} // namespace

TEST_CASE("error messages name the call, the kernel and the driver's error") {
  CHECK(formatError("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE",
                    "invalid argument", "matmul_kernel") ==
        "cuLaunchKernel failed for kernel 'matmul_kernel': "
        "CUDA_ERROR_INVALID_VALUE (invalid argument)");
  CHECK(formatError("cuMemAlloc", 2, "CUDA_ERROR_OUT_OF_MEMORY",
                    "out of memory") ==
        "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  CHECK(formatFault("k", "CUDA_ERROR_ILLEGAL_ADDRESS",
                    "an illegal memory access was encountered") ==
        "kernel 'k' faulted: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory "
        "access was encountered)");
}

TEST_CASE("kernel faults are the 700-series results") {
  CHECK(isKernelFault(700));  // illegal address
  CHECK(isKernelFault(716));  // misaligned address
  CHECK(isKernelFault(719));  // launch failed
  CHECK_FALSE(isKernelFault(0));
  CHECK_FALSE(isKernelFault(1));
  CHECK_FALSE(isKernelFault(218)); // invalid PTX
}

TEST_CASE("cuda::Error carries its code and message") {
  Error error("cuInit failed: X (y)", 3);
  CHECK(error.code() == 3);
  CHECK(std::string(error.what()) == "cuInit failed: X (y)");
  const std::runtime_error &base = error;
  CHECK(std::string(base.what()) == "cuInit failed: X (y)");
}

TEST_CASE("a missing driver library gives null and a reason") {
  std::string reason;
  std::unique_ptr<Driver> driver =
      Driver::load("libtile-no-such-cuda.so.1", &reason);
  CHECK(driver == nullptr);
  CHECK(reason.find("cannot load libtile-no-such-cuda.so.1") !=
        std::string::npos);
}

TEST_CASE("a library without the driver API gives null and a reason") {
  std::string reason;
  std::unique_ptr<Driver> driver = Driver::load("libm.so.6", &reason);
  CHECK(driver == nullptr);
  CHECK(reason == "libm.so.6 has no entry point cuInit");
}

TEST_CASE("TILE_NO_GPU=1 forces the interpreter") {
  ScopedEnv env("TILE_NO_GPU", "1");
  CHECK(Driver::get() == nullptr);
  CHECK(Driver::unavailableReason().find("TILE_NO_GPU") != std::string::npos);
  CHECK_THROWS_AS(synchronize(), Error);
}

TEST_CASE("Driver::get is null exactly when there is a reason") {
  Driver *driver = Driver::get();
  std::string reason = Driver::unavailableReason();
  if (driver) {
    CHECK(reason.empty());
    CHECK_FALSE(driver->device().name.empty());
    return;
  }
  MESSAGE("no CUDA driver here: " << reason);
  CHECK_FALSE(reason.empty());
  CHECK_THROWS_AS(synchronize(), Error);
  // A second call answers the same without retrying.
  CHECK(Driver::get() == nullptr);
  CHECK(Driver::unavailableReason() == reason);
}
